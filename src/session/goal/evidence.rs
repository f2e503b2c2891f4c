//! What a goal's judge reads of the turn that just ended: the commands run with their exit
//! codes and the end of their output, the files changed, what the language servers reported
//! after edits, and the agent's own last words marked as a claim, not evidence. Also what the
//! turn used (tokens, money, time) for the goal's budget.

use crate::message::{Message, PartBody, Role, ToolState};

/// How many of a command's last output lines the judge reads.
const OUTPUT_LINES: usize = 30;
/// How much of the agent's last words the judge reads.
const CLAIM_CHARS: usize = 1500;

/// The turn's messages: those after the last message the person (or the goal) sent.
pub(super) fn last_turn(messages: &[Message]) -> &[Message] {
    let start = messages
        .iter()
        .rposition(|m| m.info.role == Role::User && !m.info.joined)
        .map_or(0, |i| i + 1);
    &messages[start..]
}

/// What one turn used: tokens (input, cached and output), money, and wall time in ms.
pub(super) fn used(messages: &[Message], turn: &[Message]) -> (u64, f64, u64) {
    let tokens = turn
        .iter()
        .filter_map(|m| m.info.usage.as_ref())
        .map(|u| u.context_tokens())
        .sum();
    let cost = turn.iter().filter_map(|m| m.info.cost).sum();
    let began = messages
        .iter()
        .rev()
        .find(|m| m.info.role == Role::User && !m.info.joined)
        .map(|m| m.info.created_at);
    let ms = began.map_or(0, |at| (crate::id::now_ms() - at).max(0) as u64);
    (tokens, cost, ms)
}

/// The evidence of `turn`, as the judge reads it.
pub(super) fn gather(turn: &[Message]) -> String {
    let mut commands = Vec::new();
    let mut changed = Vec::new();
    let mut reports = Vec::new();
    let mut claim = None;
    for part in turn.iter().flat_map(|m| &m.parts) {
        match &part.body {
            PartBody::Tool(call) => match &call.state {
                ToolState::Completed {
                    input,
                    output,
                    metadata,
                    diffs,
                    ..
                } => {
                    if call.tool == "bash" {
                        let command = input["command"].as_str().unwrap_or_default();
                        let code = match &metadata["exitCode"] {
                            serde_json::Value::Null => "no exit code (killed or timed out)".into(),
                            code => format!("exit code {code}"),
                        };
                        commands.push(format!("$ {command}\n({code})\n{}", tail(output)));
                    }
                    changed.extend(diffs.iter().map(|d| d.path.display().to_string()));
                    if output.contains("<diagnostics") || output.contains("language server") {
                        reports.push(tail(output));
                    }
                }
                ToolState::Error { error, .. } if call.tool == "bash" => {
                    let command = call.state.input()["command"].as_str().unwrap_or_default();
                    commands.push(format!("$ {command}\n(failed: {error})"));
                }
                _ => {}
            },
            PartBody::Text { text, synthetic } if !synthetic && !text.trim().is_empty() => {
                claim = Some(text.clone());
            }
            _ => {}
        }
    }
    changed.sort();
    changed.dedup();
    let mut evidence = String::new();
    evidence.push_str(&section("Commands run, with their exit codes", &commands));
    evidence.push_str(&section("Files changed", &changed));
    evidence.push_str(&section("Language-server reports after edits", &reports));
    if let Some(claim) = claim {
        let cut: String = claim.chars().take(CLAIM_CHARS).collect();
        evidence.push_str(&format!(
            "## The agent's last words (its claim, not evidence)\n{cut}\n"
        ));
    }
    evidence
}

fn section(title: &str, items: &[String]) -> String {
    match items {
        [] => format!("## {title}\n(none)\n\n"),
        items => format!("## {title}\n{}\n\n", items.join("\n\n")),
    }
}

/// The last lines of a command's output.
fn tail(output: &str) -> String {
    let lines: Vec<&str> = output.lines().collect();
    let from = lines.len().saturating_sub(OUTPUT_LINES);
    lines[from..].join("\n")
}
