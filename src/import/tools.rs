//! Other agents' tool calls in Tandem's terms: the tool Tandem has for each (Claude Code's
//! `Write` is `write`, Codex's `exec_command` and Gemini CLI's `run_shell_command` are `bash`), with its input in Tandem's keys
//! (`file_path` → `filePath`); a tool Tandem has none for keeps its own name and input.

use serde_json::{Map, Value};

/// Tandem's name for Claude Code's tool `name`, if it has one.
fn claude_code(name: &str) -> Option<&'static str> {
    Some(match name {
        "Write" => "write",
        "Edit" => "edit",
        "Read" => "read",
        "Bash" => "bash",
        "Glob" => "glob",
        "Grep" => "grep",
        "LS" => "list",
        "TodoWrite" => "todowrite",
        "WebFetch" => "webfetch",
        "WebSearch" => "websearch",
        "Task" | "Agent" => "task",
        "AskUserQuestion" => "question",
        "BashOutput" => "bash_output",
        "KillShell" | "KillBash" => "bash_kill",
        _ => return None,
    })
}

/// Keys whose Tandem name is not just the camel-cased one.
fn renamed(tool: &str, key: &str) -> Option<&'static str> {
    Some(match (tool, key) {
        ("grep", "glob") => "include",
        ("task", "subagent_type") => "subagent_type",
        ("bash_output" | "bash_kill", "bash_id" | "shell_id") => "id",
        _ => return None,
    })
}

fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.extend(c.to_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// Claude Code's call of `name` with `input` as Tandem's: its name and input.
pub fn from_claude_code(name: &str, input: &Value) -> (String, Value) {
    let Some(tandem) = claude_code(name) else {
        return (name.to_owned(), input.clone());
    };
    let Some(fields) = input.as_object() else {
        return (tandem.to_owned(), input.clone());
    };
    let keys: Map<String, Value> = fields
        .iter()
        .map(|(key, value)| {
            let key = renamed(tandem, key).map_or_else(|| camel(key), str::to_owned);
            (key, value.clone())
        })
        .collect();
    (tandem.to_owned(), Value::Object(keys))
}

/// Codex's call of `name` with `input` (its JSON arguments, or a custom tool's text) as
/// Tandem's: its commands are `bash`, its patches `apply_patch`.
pub fn from_codex(name: &str, input: &Value) -> (String, Value) {
    let command = match (name, input) {
        ("exec_command", _) => input["cmd"].as_str().map(str::to_owned),
        ("shell_command", _) => input["command"].as_str().map(str::to_owned),
        ("shell" | "container.exec", _) => input["command"].as_array().map(|words| {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [_, flag, script] if flag.starts_with('-') && flag.ends_with('c') => {
                    (*script).to_owned()
                }
                _ => words.join(" "),
            }
        }),
        _ => None,
    };
    if let Some(command) = command {
        let mut bash = serde_json::json!({"command": command});
        if let Some(dir) = input["workdir"].as_str() {
            bash["workdir"] = dir.into();
        }
        return ("bash".into(), bash);
    }
    match (name, input) {
        ("apply_patch", Value::String(patch)) => (
            "apply_patch".into(),
            serde_json::json!({"patchText": patch}),
        ),
        _ => (name.to_owned(), input.clone()),
    }
}

/// Gemini CLI's call of `name` with `input` as Tandem's: its file, shell and search tools as
/// Tandem's, with their keys (`file_path` → `filePath`, `dir_path` → `path`).
pub fn from_gemini(name: &str, input: &Value) -> (String, Value) {
    let tandem = match name {
        "write_file" => "write",
        "replace" => "edit",
        "read_file" => "read",
        "run_shell_command" => "bash",
        "list_directory" => "list",
        "glob" => "glob",
        "search_file_content" | "grep_search" => "grep",
        "google_web_search" => "websearch",
        _ => return (name.to_owned(), input.clone()),
    };
    let Some(fields) = input.as_object() else {
        return (tandem.to_owned(), input.clone());
    };
    let mut keys = Map::new();
    for (key, value) in fields {
        let key = match (tandem, key.as_str()) {
            ("edit", "instruction") => continue,
            ("edit", "expected_replacements") => {
                keys.insert(
                    "replaceAll".into(),
                    (value.as_u64().unwrap_or(1) > 1).into(),
                );
                continue;
            }
            ("bash", "dir_path" | "directory") => "workdir".to_owned(),
            (_, "dir_path" | "absolute_path" | "path") if tandem != "read" => "path".to_owned(),
            ("read", "absolute_path") => "filePath".to_owned(),
            _ => camel(key),
        };
        keys.insert(key, value.clone());
    }
    (tandem.to_owned(), Value::Object(keys))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claude_codes_edit_is_tandems_with_its_keys_and_an_unknown_tool_keeps_its_own() {
        let (name, input) = from_claude_code(
            "Edit",
            &json!({"file_path": "/p/a", "old_string": "x", "new_string": "y", "replace_all": false}),
        );
        assert_eq!(name, "edit");
        assert_eq!(
            input,
            json!({"filePath": "/p/a", "oldString": "x", "newString": "y", "replaceAll": false})
        );
        let (name, input) = from_claude_code("Grep", &json!({"pattern": "a", "glob": "*.rs"}));
        assert_eq!(
            (name.as_str(), input),
            ("grep", json!({"pattern": "a", "include": "*.rs"}))
        );
        let (name, input) = from_claude_code("mcp__db__query", &json!({"sql_text": "1"}));
        assert_eq!(
            (name.as_str(), input),
            ("mcp__db__query", json!({"sql_text": "1"}))
        );
    }

    #[test]
    fn gemini_clis_replace_is_tandems_edit_and_its_shell_keeps_its_folder() {
        let (name, input) = from_gemini(
            "replace",
            &json!({"file_path": "/p/a", "old_string": "x", "new_string": "y", "instruction": "i", "expected_replacements": 2}),
        );
        assert_eq!(name, "edit");
        assert_eq!(
            input,
            json!({"filePath": "/p/a", "oldString": "x", "newString": "y", "replaceAll": true})
        );
        let (name, input) = from_gemini(
            "run_shell_command",
            &json!({"command": "ls", "dir_path": "src"}),
        );
        assert_eq!(
            (name.as_str(), input),
            ("bash", json!({"command": "ls", "workdir": "src"}))
        );
        let (name, _) = from_gemini("save_memory", &json!({"fact": "f"}));
        assert_eq!(name, "save_memory");
    }
}
