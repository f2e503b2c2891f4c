//! `tandem auth login|list|logout`: store, show and forget API keys. The key is read without
//! echo from the terminal (or from piped stdin) and never printed, logged or stored elsewhere.

use std::io::{BufRead as _, IsTerminal as _, Write as _};

use anyhow::Context as _;

use super::{Credentials, HOSTED, KeySource, find_key, hosted};

#[derive(Debug, clap::Args)]
pub struct AuthArgs {
    #[command(subcommand)]
    pub command: AuthCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum AuthCommand {
    /// Store an API key for a provider (asked for without echo; piped stdin works too).
    Login {
        /// The provider id, e.g. openai, anthropic, openrouter, or one from tandem.json.
        provider: Option<String>,
    },
    /// The providers that have a key, and where each key comes from (never the key).
    List,
    /// Forget a stored key.
    Logout { provider: String },
}

pub fn run(args: AuthArgs) -> anyhow::Result<()> {
    match args.command {
        AuthCommand::Login { provider } => login(provider),
        AuthCommand::List => list(),
        AuthCommand::Logout { provider } => logout(&provider),
    }
}

/// Asks which provider (when not given) and its key, then stores it. Everything the person
/// reads goes to stderr: stdout stays free for scripts.
pub fn login(provider: Option<String>) -> anyhow::Result<()> {
    let mut stored = Credentials::load()?;
    let provider = match provider {
        Some(p) => p,
        None => ask_provider()?,
    };
    if provider.is_empty() || provider.contains('/') || provider.chars().any(char::is_whitespace) {
        anyhow::bail!("`{provider}` is not a provider id (examples: openai, anthropic)");
    }
    let key = read_key(&provider)?;
    stored.set(&provider, key)?;
    eprintln!(
        "Stored the key for {provider} in {} (readable by you alone).",
        Credentials::path().display()
    );
    if let Some(h) = hosted(&provider)
        && super::env(h.env_key).is_some()
    {
        eprintln!(
            "Note: ${} is set and is used before the stored key.",
            h.env_key
        );
    }
    Ok(())
}

fn ask_provider() -> anyhow::Result<String> {
    let names: Vec<&str> = HOSTED.iter().map(|h| h.id).collect();
    eprint!("Provider ({}) [openai]: ", names.join(", "));
    std::io::stderr().flush()?;
    let line = read_line_from_terminal()?;
    let line = line.trim();
    Ok(if line.is_empty() { "openai" } else { line }.to_owned())
}

/// A line from the terminal when there is one, else from stdin.
fn read_line_from_terminal() -> anyhow::Result<String> {
    let mut line = String::new();
    match std::fs::File::open("/dev/tty") {
        Ok(tty) => std::io::BufReader::new(tty).read_line(&mut line)?,
        Err(_) => std::io::stdin().lock().read_line(&mut line)?,
    };
    Ok(line)
}

/// The key, without echo on a terminal; from piped stdin otherwise.
fn read_key(provider: &str) -> anyhow::Result<String> {
    let key = if std::io::stdin().is_terminal() {
        rpassword::prompt_password(format!("API key for {provider} (not shown): "))
            .context("cannot read the key from the terminal")?
    } else {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line)?;
        line
    };
    let key = key.trim().to_owned();
    if key.is_empty() {
        anyhow::bail!("no key given; nothing stored");
    }
    Ok(key)
}

#[allow(clippy::print_stdout)] // The listing is the command's output.
fn list() -> anyhow::Result<()> {
    let stored = Credentials::load()?;
    let mut providers: Vec<String> = HOSTED.iter().map(|h| h.id.to_owned()).collect();
    for p in stored.providers() {
        if !providers.iter().any(|q| q == p) {
            providers.push(p.to_owned());
        }
    }
    for provider in providers {
        let source = match find_key(&provider) {
            Some((_, KeySource::Environment(var))) => format!("key from ${var}"),
            Some((_, KeySource::Stored)) => {
                format!("key stored in {}", Credentials::path().display())
            }
            None => "no key".to_owned(),
        };
        println!("{provider:<12} {source}");
    }
    Ok(())
}

fn logout(provider: &str) -> anyhow::Result<()> {
    let mut stored = Credentials::load()?;
    if stored.remove(provider)? {
        eprintln!("Forgot the stored key for {provider}.");
    } else {
        eprintln!("No key was stored for {provider}.");
    }
    if let Some(h) = hosted(provider)
        && super::env(h.env_key).is_some()
    {
        eprintln!("${} is still set in this environment.", h.env_key);
    }
    Ok(())
}
