//! `lsp`: asks the project's language server where a symbol is defined, used or implemented,
//! what it is (hover), and which symbols a file or the workspace holds; answers are places
//! in the project, and places outside it pass the `external_directory` rule as `read` does.

use std::path::Path;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::message::Location;
use crate::permission::keys;
use crate::tool::ports::{Answer, Inquiry, Operation, Place};
use crate::tool::{
    Need, PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput, describe_file,
    input_schema, parse_input,
};

pub struct LspTool;

/// What to ask the language server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum OperationName {
    /// Where the symbol at the position (or named `symbol`) is defined.
    Definition,
    /// Every place the symbol is used, its definition included.
    References,
    /// The symbol's type and documentation.
    Hover,
    /// Where an interface or trait method is implemented.
    Implementation,
    /// The symbols (classes, functions…) defined in `filePath`, nested.
    DocumentSymbol,
    /// The symbols in the whole project whose names match `symbol`.
    WorkspaceSymbol,
}

/// The `lsp` tool's arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LspInput {
    pub operation: OperationName,
    /// The file asked about (for `workspaceSymbol`, any file of the language).
    pub file_path: String,
    /// The symbol's line, from 1 as `read` numbers them.
    #[serde(default)]
    pub line: Option<u32>,
    /// The symbol's column on that line, from 1 (any character of its name).
    #[serde(default)]
    pub character: Option<u32>,
    /// A symbol's name: what `workspaceSymbol` searches for; for the other operations, used
    /// instead of `line`/`character` (the symbol of exactly that name).
    #[serde(default)]
    pub symbol: Option<String>,
}

impl Tool for LspTool {
    fn name(&self) -> &'static str {
        "lsp"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Search
    }

    fn concurrent(&self) -> bool {
        true
    }

    fn description(&self) -> &'static str {
        "Asks the project's language server about code: `definition`, `references`, `hover`, \
         `implementation` of the symbol at `filePath` `line`:`character` (from 1, as `read` \
         shows them) or named by `symbol`; `documentSymbol` lists a file's symbols; \
         `workspaceSymbol` finds symbols named like `symbol` across the project. Faster and \
         more exact than grep for finding where something is defined or used. Works for the \
         languages whose server is installed (Rust, TypeScript/JavaScript, Python, Go, C/C++…)."
    }

    fn parameters(&self) -> Value {
        input_schema::<LspInput>()
    }

    fn describe(&self, input: &Value, cwd: &Path) -> (String, Vec<Location>) {
        let (path, locations) = describe_file(input, cwd);
        let operation = input
            .get("operation")
            .and_then(Value::as_str)
            .unwrap_or("lsp");
        let at = match (
            input.get("line"),
            input.get("symbol").and_then(Value::as_str),
        ) {
            (Some(line), _) if line.is_u64() => format!("{path}:{line}"),
            (_, Some(symbol)) => format!("{symbol} ({path})"),
            _ => path,
        };
        (format!("{operation} {at}"), locations)
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: LspInput = parse_input(self.name(), input)?;
            let path = ctx.path_in_reach(&input.file_path).await?;
            let relative = ctx.relative(&path);
            let names = ctx.rule_names(&input.file_path, &path);
            ctx.ask(PermissionCheck {
                needs: vec![
                    Need::new(keys::LSP, names.clone()),
                    Need::new(keys::READ, names),
                ],
                title: format!("Ask the language server about {relative}"),
                locations: vec![Location::file(path.clone())],
                diffs: vec![],
            })
            .await?;
            ctx.started();
            let inquiry = inquiry(ctx, &input, path).await?;
            let answer = ctx.code.inquire(inquiry).await.map_err(ToolError::Failed)?;
            let (output, count) = match answer {
                Answer::Text(text) if text.is_empty() => {
                    ("The server has nothing to say there.".to_owned(), 0)
                }
                Answer::Text(text) => (text, 1),
                Answer::Places(places) => shown(ctx, &places).await,
            };
            Ok(ToolOutput {
                title: format!("{} {relative}", operation_word(input.operation)),
                output,
                metadata: json!({"count": count}),
                ..Default::default()
            })
        })
    }
}

fn operation_word(operation: OperationName) -> &'static str {
    match operation {
        OperationName::Definition => "definition",
        OperationName::References => "references",
        OperationName::Hover => "hover",
        OperationName::Implementation => "implementation",
        OperationName::DocumentSymbol => "documentSymbol",
        OperationName::WorkspaceSymbol => "workspaceSymbol",
    }
}

/// The question as the port takes it: a position, found through a workspace search when the
/// model named a symbol instead.
async fn inquiry(
    ctx: &ToolContext,
    input: &LspInput,
    path: std::path::PathBuf,
) -> Result<Inquiry, ToolError> {
    let operation = match input.operation {
        OperationName::Definition => Operation::Definition,
        OperationName::References => Operation::References,
        OperationName::Hover => Operation::Hover,
        OperationName::Implementation => Operation::Implementation,
        OperationName::DocumentSymbol => Operation::DocumentSymbols,
        OperationName::WorkspaceSymbol => Operation::WorkspaceSymbols,
    };
    let symbol = input.symbol.clone().unwrap_or_default();
    let mut inquiry = Inquiry {
        operation,
        path,
        line: input.line.unwrap_or(0),
        column: input.character.unwrap_or(1).max(1),
        query: symbol.clone(),
    };
    let positioned = !matches!(
        operation,
        Operation::DocumentSymbols | Operation::WorkspaceSymbols
    );
    if operation == Operation::WorkspaceSymbols && symbol.is_empty() {
        return Err(ToolError::failed(
            "workspaceSymbol needs `symbol`: the name to search for.",
        ));
    }
    if positioned && input.line.is_none() {
        if symbol.is_empty() {
            return Err(ToolError::failed(
                "Give `line` and `character` (from 1, as read shows them), or the symbol's name as `symbol`.",
            ));
        }
        let search = Inquiry {
            operation: Operation::WorkspaceSymbols,
            ..inquiry.clone()
        };
        let found = match ctx.code.inquire(search).await.map_err(ToolError::Failed)? {
            Answer::Places(places) => places
                .into_iter()
                .find(|p| p.label.as_deref().is_some_and(|l| names_symbol(l, &symbol))),
            Answer::Text(_) => None,
        };
        let place = found.ok_or_else(|| {
            ToolError::failed(format!(
                "The language server knows no symbol named `{symbol}`. Give its line and character instead."
            ))
        })?;
        inquiry.path = place.path;
        inquiry.line = place.line;
        inquiry.column = place.column;
    }
    Ok(inquiry)
}

/// Whether a workspace symbol's label ("function foo in Bar") is the symbol `name`.
fn names_symbol(label: &str, name: &str) -> bool {
    let words: Vec<&str> = label
        .split(" in ")
        .next()
        .unwrap_or("")
        .split(' ')
        .collect();
    words.last() == Some(&name)
}

/// The places as lines the model reads (`path:line:column`, the symbol or the line's text);
/// a place outside the project is shown only when `external_directory` allows it.
async fn shown(ctx: &ToolContext, places: &[Place]) -> (String, usize) {
    let readable = ctx.readable();
    let mut lines = Vec::new();
    let mut withheld = 0;
    for place in places {
        if !ctx.in_workspace(&place.path)
            && ctx
                .path_in_reach(&place.path.to_string_lossy())
                .await
                .is_err()
        {
            withheld += 1;
            continue;
        }
        let at = format!(
            "{}:{}:{}",
            ctx.relative(&place.path),
            place.line,
            place.column
        );
        let what = match &place.label {
            Some(label) => label.clone(),
            None if readable(&place.path) => line_text(&place.path, place.line),
            None => String::new(),
        };
        lines.push(if what.is_empty() {
            at
        } else {
            format!("{at}: {what}")
        });
    }
    let count = lines.len();
    if lines.is_empty() {
        lines.push("No results.".into());
    }
    if withheld > 0 {
        lines.push(format!(
            "({withheld} more outside the project, not shown: the external_directory rule does not allow them)"
        ));
    }
    (lines.join("\n"), count)
}

/// Line `line` (from 1) of `path`, trimmed and cut to 200 characters.
fn line_text(path: &Path, line: u32) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let line = text
        .lines()
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("");
    line.trim().chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symbols_label_names_it_by_its_last_word_before_the_container() {
        assert!(names_symbol("function greet in app", "greet"));
        assert!(names_symbol("class Greeter", "Greeter"));
        assert!(!names_symbol("function greeting", "greet"));
    }
}
