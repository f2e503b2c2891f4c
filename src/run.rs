//! `tandem run`: one prompt, headless. Opens a session in the store like an editor would,
//! runs the turn, and renders what the editor would see, as text or as ACP JSON lines.
#![allow(clippy::print_stdout)] // The terminal renderer is the one place that writes stdout.

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;

use crate::bus::{Bus, CompactionState, Event};
use crate::config;
use crate::message::{PartBody, ToolState};
use crate::provider::resolve::default_model_name;
use crate::session::{SessionManager, StopReason};
use crate::store::Store;
use crate::todo::TodoStatus;
use crate::tool::{PermissionDecision, UnattendedPort};
use crate::{acp, paths, provider};

/// How `tandem run` shows the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Readable text.
    Text,
    /// The exact `session/update` JSON-RPC lines an editor would receive.
    Json,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The project directory (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// The model, `provider/model`. Without one and without any key, the scripted demo runs.
    #[arg(long, short)]
    pub model: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Answer every permission question with "allow" (default: reject).
    #[arg(long)]
    pub allow_all: bool,
    /// The prompt.
    #[arg(required = true, trailing_var_arg = true)]
    pub prompt: Vec<String>,
}

pub async fn run(args: RunArgs) -> anyhow::Result<()> {
    let cwd = match args.cwd {
        Some(dir) => dir,
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let cwd = std::fs::canonicalize(&cwd)
        .with_context(|| format!("cannot open the project directory {}", cwd.display()))?;
    let config = config::load(&cwd)?;
    let model = match args.model {
        Some(model) => model,
        None => match default_model_name(&config) {
            Some(model) => model,
            None => {
                eprintln!(
                    "tandem: no model configured and no API key set; using the scripted demo \
                     model (no network). See the README to configure a real model."
                );
                "scripted/demo".to_owned()
            }
        },
    };
    let resolved = provider::resolve(&config, Some(&model))?;
    let store = Arc::new(Store::open_in(&paths::data_dir())?);
    let bus = Bus::new();
    let manager = SessionManager::new(store, bus.clone());
    let info = manager.create(&cwd, Vec::new())?;
    manager.set_model(&info.id, model.clone())?;
    eprintln!("tandem: session {} with {}", info.id, resolved.display_name);

    let format = args.format;
    let colour = std::io::stdout().is_terminal();
    let _subscription = bus.subscribe(move |event| render(format, colour, event));
    let port = Arc::new(UnattendedPort {
        decision: if args.allow_all {
            PermissionDecision::AllowOnce
        } else {
            PermissionDecision::RejectOnce
        },
    });
    let prompt = PartBody::Text {
        text: args.prompt.join(" "),
        synthetic: false,
    };
    let stop = manager.prompt(&info.id, vec![prompt], port).await?;
    let reason = match stop {
        StopReason::EndTurn => "end_turn",
        StopReason::MaxTokens => "max_tokens",
        StopReason::MaxTurnRequests => "max_turn_requests",
        StopReason::Refusal => "refusal",
        StopReason::Cancelled => "cancelled",
    };
    match format {
        Format::Text => println!("\n[stop: {reason}]"),
        Format::Json => println!(
            "{}",
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": reason}})
        ),
    }
    Ok(())
}

fn render(format: Format, colour: bool, event: &Event) {
    if format == Format::Json {
        if let Some(line) = acp::event_as_json_rpc(event) {
            println!("{line}");
        }
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = match event {
        Event::TextDelta { delta, .. } => write!(out, "{delta}"),
        Event::ReasoningDelta { delta, .. } if colour => write!(out, "\x1b[2m{delta}\x1b[0m"),
        Event::ReasoningDelta { delta, .. } => write!(out, "{delta}"),
        Event::PartUpdated { part, .. } => match &part.body {
            PartBody::Reasoning { .. } | PartBody::Text { .. } => writeln!(out),
            PartBody::Tool(call) => match &call.state {
                ToolState::Pending { .. } => Ok(()),
                ToolState::Running { title, .. } => writeln!(
                    out,
                    "→ {} {}",
                    call.tool,
                    title.as_deref().unwrap_or_default()
                ),
                ToolState::Completed { output, .. } => {
                    writeln!(out, "{}", indent(output))
                }
                ToolState::Error { error, shown, .. } => {
                    writeln!(
                        out,
                        "✗ {}: {}",
                        call.tool,
                        shown.as_deref().unwrap_or(error)
                    )
                }
            },
            _ => Ok(()),
        },
        Event::Usage {
            usage,
            context_window,
            ..
        } => match context_window {
            Some(size) => writeln!(
                out,
                "[context: {} of {size} tokens]",
                usage.context_tokens()
            ),
            None => Ok(()),
        },
        Event::ToolOutput { delta, .. } => write!(out, "{}", indent(delta)),
        Event::TurnChanged { diff, .. } => writeln!(out, "[{diff}]"),
        Event::Reverted { .. } | Event::Status { .. } => Ok(()),
        Event::TodoUpdated { todos, .. } => {
            let lines: Vec<String> = todos
                .iter()
                .map(|t| {
                    let mark = match t.status {
                        TodoStatus::Pending => "[ ]",
                        TodoStatus::InProgress => "[~]",
                        TodoStatus::Completed => "[x]",
                        TodoStatus::Cancelled => "[-]",
                    };
                    format!("  {mark} {}", t.content)
                })
                .collect();
            writeln!(out, "Plan:\n{}", lines.join("\n"))
        }
        Event::SubagentStarted {
            agent, description, ..
        } => writeln!(out, "→ @{agent}: {description}"),
        Event::CommandsChanged { .. } => Ok(()),
        Event::Compaction { state, .. } => match state {
            CompactionState::Started => writeln!(out, "[compacting the conversation…]"),
            CompactionState::Completed {
                tokens_before,
                tokens_after,
                ..
            } => writeln!(out, "[compacted: {tokens_before} → {tokens_after} tokens]"),
            CompactionState::Failed { error } => writeln!(out, "[compaction failed: {error}]"),
        },
        Event::SessionUpdated { .. } | Event::ToolTerminal { .. } => Ok(()),
    };
    let _ = out.flush();
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|line| format!("  {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}
