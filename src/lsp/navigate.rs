//! The `lsp` tool's questions as LSP requests (definition, references, implementation,
//! hover, document and workspace symbols) and their answers as places with 1-based lines
//! and character columns, whichever of LSP's shapes the server answers in.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use super::position::{from_utf16, line_of, path_of, to_utf16, uri};
use super::server::Server;
use crate::tool::ports::{Answer, Inquiry, Operation, Place};

/// The longest a question waits for its answer.
const ANSWER_WAIT: Duration = Duration::from_secs(20);
/// The most places one answer lists.
const MAX_PLACES: usize = 200;
/// The longest hover text passed on.
const MAX_HOVER: usize = 6000;

/// Asks `server` `inquiry` about a file whose text is `text`.
pub(super) async fn ask(server: &Server, inquiry: &Inquiry, text: &str) -> Result<Answer, String> {
    let document = json!({"uri": uri(&inquiry.path)});
    let position = json!({
        "line": inquiry.line.saturating_sub(1),
        "character": to_utf16(line_of(text, inquiry.line.saturating_sub(1)), inquiry.column),
    });
    let at = json!({"textDocument": document, "position": position});
    let (method, params) = match inquiry.operation {
        Operation::Definition => ("textDocument/definition", at),
        Operation::Implementation => ("textDocument/implementation", at),
        Operation::Hover => ("textDocument/hover", at),
        Operation::References => {
            let mut params = at;
            params["context"] = json!({"includeDeclaration": true});
            ("textDocument/references", params)
        }
        Operation::DocumentSymbols => (
            "textDocument/documentSymbol",
            json!({"textDocument": document}),
        ),
        Operation::WorkspaceSymbols => ("workspace/symbol", json!({"query": inquiry.query})),
    };
    let answer = server.request(method, params, ANSWER_WAIT).await?;
    let mut texts = Texts::default();
    texts.known.insert(inquiry.path.clone(), text.to_owned());
    Ok(match inquiry.operation {
        Operation::Hover => Answer::Text(hover_text(&answer)),
        Operation::DocumentSymbols => {
            let mut places = Vec::new();
            document_symbols(&answer, &inquiry.path, 0, &mut texts, &mut places);
            Answer::Places(places)
        }
        Operation::WorkspaceSymbols => Answer::Places(symbols(&answer, &mut texts)),
        _ => Answer::Places(locations(&answer, &mut texts)),
    })
}

/// The files answers point into, read once each, to count their columns in characters.
#[derive(Default)]
struct Texts {
    known: HashMap<PathBuf, String>,
}

impl Texts {
    fn place(&mut self, path: PathBuf, start: &Value, label: Option<String>) -> Place {
        let line = start.get("line").and_then(Value::as_u64).unwrap_or(0) as u32;
        let units = start.get("character").and_then(Value::as_u64).unwrap_or(0) as u32;
        let text = self
            .known
            .entry(path.clone())
            .or_insert_with(|| std::fs::read_to_string(&path).unwrap_or_default());
        Place {
            column: from_utf16(line_of(text, line), units),
            line: line + 1,
            path,
            label,
        }
    }
}

impl Texts {
    /// Moves `place` (the start of a symbol's whole declaration, as workspace symbols give
    /// it) onto the symbol's name, where a question about the symbol can be asked.
    fn point_at_name(&mut self, place: &mut Place, name: &str) {
        let Some(text) = self.known.get(&place.path) else {
            return;
        };
        let from = place.line.saturating_sub(1) as usize;
        for (n, line) in text.lines().enumerate().skip(from).take(5) {
            let skip = if n == from {
                place.column.saturating_sub(1) as usize
            } else {
                0
            };
            let rest: String = line.chars().skip(skip).collect();
            if let Some(at) = rest.find(name) {
                place.line = n as u32 + 1;
                place.column = (skip + rest[..at].chars().count()) as u32 + 1;
                return;
            }
        }
    }
}

/// `Location`, `Location[]` or `LocationLink[]`.
fn locations(answer: &Value, texts: &mut Texts) -> Vec<Place> {
    let items: Vec<&Value> = match answer {
        Value::Array(items) => items.iter().collect(),
        Value::Object(_) => vec![answer],
        _ => Vec::new(),
    };
    items
        .into_iter()
        .filter_map(|item| {
            let (uri, range) = match item.get("targetUri") {
                Some(uri) => (
                    uri,
                    item.get("targetSelectionRange")
                        .or(item.get("targetRange"))?,
                ),
                None => (item.get("uri")?, item.get("range")?),
            };
            let path = path_of(uri.as_str()?)?;
            Some(texts.place(path, range.get("start")?, None))
        })
        .take(MAX_PLACES)
        .collect()
}

/// `SymbolInformation[]` or `WorkspaceSymbol[]`.
fn symbols(answer: &Value, texts: &mut Texts) -> Vec<Place> {
    let items = answer.as_array().map(Vec::as_slice).unwrap_or_default();
    items
        .iter()
        .filter_map(|item| {
            let location = item.get("location")?;
            let path = path_of(location.get("uri")?.as_str()?)?;
            let start = location
                .pointer("/range/start")
                .cloned()
                .unwrap_or(json!({}));
            let container = item
                .get("containerName")
                .and_then(Value::as_str)
                .filter(|c| !c.is_empty())
                .map(|c| format!(" in {c}"))
                .unwrap_or_default();
            let name = item.get("name")?.as_str()?;
            let label = format!("{} {name}{container}", kind_name(item));
            let mut place = texts.place(path, &start, Some(label));
            texts.point_at_name(&mut place, name);
            Some(place)
        })
        .take(MAX_PLACES)
        .collect()
}

/// `DocumentSymbol[]` (nested, shown indented) or `SymbolInformation[]`.
fn document_symbols(
    answer: &Value,
    path: &std::path::Path,
    depth: usize,
    texts: &mut Texts,
    places: &mut Vec<Place>,
) {
    let items = answer.as_array().map(Vec::as_slice).unwrap_or_default();
    if items.first().is_some_and(|i| i.get("location").is_some()) {
        places.extend(symbols(answer, texts));
        return;
    }
    for item in items {
        if places.len() >= MAX_PLACES {
            return;
        }
        let (Some(name), Some(start)) = (
            item.get("name").and_then(Value::as_str),
            item.pointer("/selectionRange/start")
                .or(item.pointer("/range/start")),
        ) else {
            continue;
        };
        let label = format!("{}{} {name}", "  ".repeat(depth), kind_name(item));
        places.push(texts.place(path.to_owned(), start, Some(label)));
        if let Some(children) = item.get("children") {
            document_symbols(children, path, depth + 1, texts, places);
        }
    }
}

/// The name of a symbol's `kind`.
fn kind_name(item: &Value) -> &'static str {
    const KINDS: [&str; 26] = [
        "file",
        "module",
        "namespace",
        "package",
        "class",
        "method",
        "property",
        "field",
        "constructor",
        "enum",
        "interface",
        "function",
        "variable",
        "constant",
        "string",
        "number",
        "boolean",
        "array",
        "object",
        "key",
        "null",
        "enum member",
        "struct",
        "event",
        "operator",
        "type parameter",
    ];
    let kind = item.get("kind").and_then(Value::as_u64).unwrap_or(0) as usize;
    KINDS.get(kind.wrapping_sub(1)).copied().unwrap_or("symbol")
}

/// A hover's `contents`: markup, a marked string, or a list of them.
fn hover_text(answer: &Value) -> String {
    fn part(value: &Value) -> String {
        match value {
            Value::String(text) => text.clone(),
            Value::Object(object) => {
                let text = object
                    .get("value")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                match object.get("language").and_then(Value::as_str) {
                    Some(language) => format!("```{language}\n{text}\n```"),
                    None => text.to_owned(),
                }
            }
            Value::Array(items) => items.iter().map(part).collect::<Vec<_>>().join("\n\n"),
            _ => String::new(),
        }
    }
    let text = part(answer.get("contents").unwrap_or(&Value::Null));
    text.trim().chars().take(MAX_HOVER).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_and_links_become_places_with_character_columns() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.py");
        std::fs::write(&file, "x\né😀y = 1\n").unwrap();
        let target = uri(&file);
        let answer = json!([
            {"uri": target, "range": {"start": {"line": 1, "character": 3}}},
            {"targetUri": target, "targetRange": {"start": {"line": 0, "character": 0}},
             "targetSelectionRange": {"start": {"line": 0, "character": 0}}},
        ]);
        let places = locations(&answer, &mut Texts::default());
        assert_eq!((places[0].line, places[0].column), (2, 3));
        assert_eq!((places[1].line, places[1].column), (1, 1));
        let hover = json!({"contents": {"kind": "markdown", "value": " def f() "}});
        assert_eq!(hover_text(&hover), "def f()");
        let nested = json!([{"name": "C", "kind": 5, "range": {"start": {"line": 0, "character": 0}},
            "selectionRange": {"start": {"line": 0, "character": 0}},
            "children": [{"name": "m", "kind": 6, "range": {"start": {"line": 1, "character": 0}},
                          "selectionRange": {"start": {"line": 1, "character": 0}}}]}]);
        let mut places = Vec::new();
        document_symbols(&nested, &file, 0, &mut Texts::default(), &mut places);
        let labels: Vec<_> = places.iter().map(|p| p.label.clone().unwrap()).collect();
        assert_eq!(labels, ["class C", "  method m"]);
    }
}
