//! `tandem mcp login NAME` and `tandem mcp logout NAME`: logging in at a terminal to a remote
//! MCP server of the config (the link printed, the redirect awaited on a loopback port, the
//! server connected once to show it works), and forgetting that login.
#![allow(clippy::print_stdout)] // What a person at a terminal reads.

use std::io::Write;

use super::connect::{self, Failure};
use super::oauth::{self, TokenFile};
use super::spec::{self, McpServerSpec, McpTransport};

#[derive(clap::Args)]
pub struct McpArgs {
    #[command(subcommand)]
    command: McpCommand,
}

#[derive(clap::Subcommand)]
enum McpCommand {
    /// Log in to a remote MCP server of the config that asks for a login (OAuth).
    Login {
        /// The server's name in the config's `mcp` block.
        name: String,
    },
    /// Forget the login kept for a server.
    Logout { name: String },
}

pub async fn run(args: McpArgs) -> anyhow::Result<()> {
    match args.command {
        McpCommand::Login { name } => login(&name).await,
        McpCommand::Logout { name } => {
            let (spec, url) = remote(&name)?;
            let file = TokenFile::for_server(&spec.name, &url);
            match file.forget() {
                true => say(&format!("Logged out of the MCP server {name}.")),
                false => say(&format!("No login was kept for the MCP server {name}.")),
            }
            Ok(())
        }
    }
}

/// The remote server `name` (the config's, or a trusted plugin's) and its URL.
fn remote(name: &str) -> anyhow::Result<(McpServerSpec, String)> {
    let cwd = std::env::current_dir()?;
    let config = crate::trust::load(&cwd)?;
    let mut specs = spec::from_config(&config.config.mcp, None);
    specs.extend(spec::from_plugins(&config.plugins, None));
    let Some(spec) = specs.into_iter().find(|s| s.name == name) else {
        anyhow::bail!("the config names no MCP server `{name}` (in its \"mcp\" block)");
    };
    let McpTransport::Http { url, .. } = &spec.transport else {
        anyhow::bail!("`{name}` is not a remote server: only those log in");
    };
    let url = url.clone();
    Ok((spec, url))
}

async fn login(name: &str) -> anyhow::Result<()> {
    let (spec, url) = remote(name)?;
    let McpTransport::Http { headers, .. } = &spec.transport else {
        unreachable!("remote() returns remote servers");
    };
    let challenge = match connect::connect_http(&url, headers, None).await {
        Ok(_) => {
            say(&format!("The MCP server {name} connects without a login."));
            return Ok(());
        }
        Err(Failure::Login(challenge)) => challenge,
        Err(Failure::Other(reason)) => {
            anyhow::bail!("cannot reach the MCP server {name}: {reason}")
        }
    };
    let pending = oauth::begin(name, &url, Some(&challenge), &spec.login)
        .await
        .map_err(|why| anyhow::anyhow!("cannot start the login to {name}: {why}"))?;
    say(&format!(
        "Open this link to log in to the MCP server {name}:\n{}",
        pending.link
    ));
    let (client, outcome) = match pending.finish().await {
        Ok(done) => done,
        Err((why, page)) => {
            oauth::tell_failure(&why, page).await;
            anyhow::bail!("the login to {name} failed: {why}");
        }
    };
    match connect::connect_http(&url, headers, Some(client)).await {
        Ok(connection) => {
            let tools = connection.tools.lock().map(|t| t.len()).unwrap_or(0);
            outcome
                .tell(Ok(format!(
                    "Tandem is logged in to the MCP server {name}. You can close this tab."
                )))
                .await;
            say(&format!(
                "Logged in to the MCP server {name} ({tools} tools)."
            ));
            Ok(())
        }
        Err(failure) => {
            let why = match failure {
                Failure::Login(challenge) => format!("it still refused ({challenge})"),
                Failure::Other(reason) => reason,
            };
            outcome
                .tell(Err(format!("Tandem logged in, but {name} refused: {why}")))
                .await;
            anyhow::bail!("logged in, but the MCP server {name} refused: {why}")
        }
    }
}

fn say(line: &str) {
    println!("{line}");
    let _ = std::io::stdout().flush();
}
