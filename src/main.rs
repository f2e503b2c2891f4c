//! The `tandem` command: `tandem acp` is what editors launch; `tandem run` drives one turn
//! headless and prints what the editor would see. Parses arguments, then hands off.
#![deny(clippy::print_stdout)]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc: glibc's malloc serialised the runtime's worker threads on its arena locks when
/// many sessions ran at once (seen in perf as `__lll_lock_wait_private` under malloc).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "tandem",
    version,
    about = "A coding agent for editors that speak the Agent Client Protocol"
)]
struct Cli {
    /// Also write logs to this file (logs always go to stderr).
    #[arg(long, global = true, env = "TANDEM_LOG_FILE")]
    log_file: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Speak ACP (JSON-RPC 2.0) on stdin/stdout: what an editor launches.
    Acp {
        /// Ask for an API key at the terminal and store it, then exit (ACP's terminal auth
        /// method: the editor runs this in a terminal).
        #[arg(long)]
        login: bool,
        /// The agent sessions start with: one the config defines, or another agent Tandem
        /// knows (claude, codex, gemini, opencode), run in front of the editor under Tandem's
        /// sandbox, rules, undo and history.
        #[arg(long, value_name = "NAME")]
        agent: Option<String>,
    },
    /// Check the config files: errors, unknown keys, and where each value came from.
    Config(tandem::doctor::config_check::ConfigArgs),
    /// Check the data dir, the store, git and each provider, and say what to fix.
    Doctor(tandem::doctor::DoctorArgs),
    /// Store, list or forget API keys.
    Auth(tandem::auth::cli::AuthArgs),
    /// Run one prompt headless and print what the editor would see.
    Run(tandem::run::RunArgs),
    /// Serve the sessions over HTTP and JSON-RPC (HTTP and WebSocket) for other programs.
    Serve(tandem::server::ServeArgs),
    /// List, show, export, delete or prune the stored sessions.
    Sessions(tandem::sessions::SessionsArgs),
    /// Trust a folder as it is, so the programs its files bring may run (or show, forget).
    Trust(tandem::trust::cli::TrustArgs),
    /// Bring in other agents' sessions (Claude Code): list them, import them all, or files.
    Import(tandem::import::cli::ImportArgs),
    /// Log in to (or out of) a remote MCP server that asks for a login.
    Mcp(tandem::mcp::cli::McpArgs),
    /// The models this project can use, with context size and prices.
    Models(tandem::models::ModelsArgs),
    /// The watchdog that kills Tandem's process groups when Tandem dies (started by Tandem).
    #[command(hide = true)]
    Reaper,
    /// Runs a command in a sandbox (what the editor's terminal runs for Tandem's commands).
    #[command(hide = true)]
    SandboxExec {
        /// The policy, as Tandem writes it.
        #[arg(long)]
        policy: String,
        /// The program and its arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        command: Vec<String>,
    },
    /// Print the config's JSON Schema, or (`--write`) regenerate every schema in `schemas/`.
    Schema {
        /// Write all the schemas under `--dir` instead of printing the config's.
        #[arg(long)]
        write: bool,
        #[arg(long, default_value = "schemas")]
        dir: PathBuf,
    },
}

/// `tandem schema`: the config schema on stdout, or every schema written to `dir`.
#[allow(clippy::print_stdout)] // The schema is the command's output.
fn schema(write: bool, dir: &std::path::Path) -> anyhow::Result<()> {
    if !write {
        let (_, config) = tandem::schema::all().remove(0);
        print!("{}", tandem::schema::render(&config));
        return Ok(());
    }
    let written = tandem::schema::write(dir)?;
    eprintln!("wrote {} schemas under {}", written.len(), dir.display());
    Ok(())
}

/// `tandem run`: one turn, with Tandem the subreaper of what it starts.
fn run_headless(
    runtime: &tokio::runtime::Runtime,
    args: tandem::run::RunArgs,
) -> anyhow::Result<u8> {
    tandem::process::escapees::adopt();
    runtime.block_on(tandem::run::run(args))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match &cli.command {
        Command::Reaper => {
            tandem::process::reaper::run_watchdog();
            return ExitCode::SUCCESS;
        }
        Command::SandboxExec { policy, command } => {
            return tandem::sandbox::exec::run(policy, command);
        }
        _ => {}
    }
    let serving_acp = matches!(cli.command, Command::Acp { login: false, .. });
    tandem::logging::init(cli.log_file.as_deref(), serving_acp);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("tandem: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = match cli.command {
        Command::Acp { login: true, .. } => tandem::auth::cli::login(None),
        Command::Auth(args) => tandem::auth::cli::run(args),
        Command::Config(args) => tandem::doctor::config_check::run(args),
        Command::Doctor(args) => runtime.block_on(tandem::doctor::run(args)),
        Command::Acp {
            login: false,
            agent,
        } => {
            if let Some(agent) = agent {
                tandem::config::set_command_line(serde_json::json!({"default_agent": agent}));
            }
            // Saved tool outputs unused for a week go, off the start-up path; the sandbox's
            // probes run beside it, off the first session's.
            std::thread::spawn(|| tandem::tool::saved::prune(tandem::tool::saved::KEEP));
            tandem::sandbox::warm_up();
            tandem::process::escapees::adopt();
            runtime.block_on(tandem::acp::serve())
        }
        .map_err(|e| anyhow::anyhow!("ACP connection failed: {e}")),
        Command::Run(args) => match run_headless(&runtime, args) {
            Ok(0) => Ok(()),
            Ok(code) => return ExitCode::from(code),
            Err(error) => Err(error),
        },
        Command::Serve(args) => {
            tandem::process::escapees::adopt();
            runtime.block_on(tandem::server::serve(args))
        }
        Command::Sessions(args) => runtime.block_on(tandem::sessions::run(args)),
        Command::Schema { write, dir } => schema(write, &dir),
        Command::Models(args) => tandem::models::run(args),
        Command::Import(args) => tandem::import::cli::run(args),
        Command::Mcp(args) => runtime.block_on(tandem::mcp::cli::run(args)),
        Command::Trust(args) => tandem::trust::cli::run(args),
        Command::Reaper | Command::SandboxExec { .. } => Ok(()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("tandem: {error:#}");
            ExitCode::FAILURE
        }
    }
}
