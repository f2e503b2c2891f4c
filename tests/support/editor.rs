//! A fake editor behind the test driver: it serves `fs/read_text_file`, `fs/write_text_file`
//! and `terminal/*` from the real disk and real processes, as Zed would. Like a real editor it
//! writes only into folders that exist, and its terminal output has PTY line endings (`\r\n`).

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{Value, json};

/// Whether the fake editor answers `method`.
pub fn serves(method: &str) -> bool {
    method.starts_with("fs/") || method.starts_with("terminal/")
}

/// What the fake editor did, for assertions.
#[derive(Default)]
pub struct FakeEditor {
    /// Finished terminals: id → (output, exit code).
    terminals: HashMap<String, (String, i32)>,
    /// Every path written through `fs/write_text_file`, in order.
    pub writes: Vec<PathBuf>,
}

impl FakeEditor {
    pub fn answer(&mut self, method: &str, params: &Value) -> Result<Value, String> {
        let text = |key: &str| params[key].as_str().unwrap_or_default().to_owned();
        match method {
            "fs/read_text_file" => std::fs::read_to_string(text("path"))
                .map(|content| json!({"content": content}))
                .map_err(|e| format!("cannot read {}: {e}", text("path"))),
            "fs/write_text_file" => {
                let path = PathBuf::from(text("path"));
                std::fs::write(&path, text("content"))
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                self.writes.push(path);
                Ok(Value::Null)
            }
            "terminal/create" => {
                let args: Vec<String> = params["args"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                let mut command = std::process::Command::new(text("command"));
                command.args(&args);
                if let Some(cwd) = params["cwd"].as_str() {
                    command.current_dir(cwd);
                }
                let out = command.output().map_err(|e| e.to_string())?;
                let mut output = String::from_utf8_lossy(&out.stdout).into_owned();
                output.push_str(&String::from_utf8_lossy(&out.stderr));
                let id = format!("term-{}", self.terminals.len() + 1);
                let output = output.replace('\n', "\r\n");
                self.terminals
                    .insert(id.clone(), (output, out.status.code().unwrap_or(-1)));
                Ok(json!({"terminalId": id}))
            }
            "terminal/output" => {
                let (output, code) = self.terminal(&text("terminalId"))?;
                Ok(json!({"output": output, "truncated": false,
                          "exitStatus": {"exitCode": code, "signal": null}}))
            }
            "terminal/wait_for_exit" => {
                let (_, code) = self.terminal(&text("terminalId"))?;
                Ok(json!({"exitCode": code, "signal": null}))
            }
            "terminal/kill" | "terminal/release" => Ok(json!({})),
            other => Err(format!("the fake editor does not serve {other}")),
        }
    }

    fn terminal(&self, id: &str) -> Result<(String, i32), String> {
        self.terminals
            .get(id)
            .cloned()
            .ok_or_else(|| format!("no terminal {id}"))
    }
}
