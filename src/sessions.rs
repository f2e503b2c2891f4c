//! `tandem sessions`: the stored sessions from a terminal: list, show, export a transcript,
//! delete one, or prune those not touched for a while. Prints to stdout (it is no protocol).
#![allow(clippy::print_stdout)]

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use serde_json::{Value, json};

use crate::bus::Bus;
use crate::id::{SessionId, iso8601};
use crate::service::{Method, SessionService, TranscriptFormat};
use crate::session::SessionManager;
use crate::store::Store;

#[derive(Debug, clap::Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    pub command: SessionsCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum SessionsCommand {
    /// The sessions, newest first: id, last update, title, directory.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// One session's record, status and pending revert, as JSON.
    Show { id: String },
    /// A session's transcript: what the person and the agent said, each tool call as a line.
    Export {
        id: String,
        #[arg(long, value_enum, default_value = "md")]
        format: ExportFormat,
        /// Include each tool call's input and output.
        #[arg(long)]
        with_tools: bool,
    },
    /// Deletes a session with its subagents' sessions and the snapshots only they used.
    Delete { id: String },
    /// Deletes the sessions not updated for a while (`30d`, `12h`).
    Prune {
        #[arg(long, value_parser = humantime::parse_duration)]
        older_than: Duration,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ExportFormat {
    Md,
    Json,
}

pub async fn run(args: SessionsArgs) -> anyhow::Result<()> {
    let store = Store::open_in(&crate::paths::data_dir())?;
    let manager = SessionManager::new(Arc::new(store), Bus::new());
    let service = SessionService::new(manager.clone());
    let call = async |method: Method, params: Value| {
        let raw = service
            .call(method, params)
            .await
            .map_err(|e| anyhow::anyhow!(e.message))?;
        Ok::<Value, anyhow::Error>(serde_json::from_str(raw.get())?)
    };
    match args.command {
        SessionsCommand::List { json } => {
            let list = call(Method::List, Value::Null).await?;
            let sessions = list["sessions"].as_array().cloned().unwrap_or_default();
            if json {
                println!("{}", serde_json::to_string_pretty(&sessions)?);
            } else {
                for s in &sessions {
                    let updated = iso8601(s["time"]["updated"].as_i64().unwrap_or_default());
                    let title = s["title"].as_str().unwrap_or_default();
                    let dir = s["directory"].as_str().unwrap_or_default();
                    println!(
                        "{}  {updated}  {title}  ({dir})",
                        s["id"].as_str().unwrap_or_default()
                    );
                }
            }
        }
        SessionsCommand::Show { id } => {
            let mut view = call(Method::Get, json!({"sessionID": id})).await?;
            view["status"] = call(Method::Status, json!({"sessionID": id})).await?;
            println!("{}", serde_json::to_string_pretty(&view)?);
        }
        SessionsCommand::Export {
            id,
            format,
            with_tools,
        } => {
            let format = match format {
                ExportFormat::Md => TranscriptFormat::Markdown,
                ExportFormat::Json => TranscriptFormat::Json,
            };
            let params = json!({"sessionID": id, "format": format, "withTools": with_tools});
            let out = call(Method::Transcript, params).await?;
            print!("{}", out["transcript"].as_str().unwrap_or_default());
        }
        SessionsCommand::Delete { id } => {
            let deleted = manager
                .delete(&SessionId(id.clone()))
                .await
                .with_context(|| format!("cannot delete session {id}"))?;
            println!("Deleted {} session(s): {}", deleted.len(), join(&deleted));
        }
        SessionsCommand::Prune { older_than } => {
            let deleted = manager.delete_older_than(older_than).await?;
            let ids: Vec<SessionId> = deleted.into_iter().map(|s| s.id).collect();
            let outputs = crate::tool::saved::prune(older_than);
            println!(
                "Deleted {} session(s) older than {}: {}; {outputs} saved tool output folder(s)",
                ids.len(),
                humantime::format_duration(older_than),
                join(&ids)
            );
        }
    }
    Ok(())
}

fn join(ids: &[SessionId]) -> String {
    ids.iter()
        .map(|id| id.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}
