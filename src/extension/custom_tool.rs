//! Custom tools: the person's own tools from config (`"tool"`) and each workspace folder's
//! `.tandem/tool/*.json`, each a command that reads the call's arguments as JSON on stdin and
//! answers on stdout, asked under its own name as permission key and run in the session's
//! sandbox, like `bash`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use crate::config::CustomToolConfig;
use crate::tool::{Need, PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput};

/// How long a custom tool may run unless its config says otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// One custom tool.
pub struct CustomTool {
    name: String,
    config: CustomToolConfig,
    /// The workspace folder whose file defined it, where it runs; the session's folder for the
    /// config's tools.
    folder: Option<PathBuf>,
}

/// The custom tools of a session in `cwd` under `config`: the config's, then the files of each
/// trusted workspace folder, the project's first (a file does not replace a tool of the same
/// name); `taken` names are skipped with a warning.
pub fn load(config: &crate::config::LoadedConfig, cwd: &Path, taken: &[&str]) -> Vec<CustomTool> {
    let folders: Vec<&Path> = (config.folders(cwd).into_iter().rev())
        .filter(|(_, standing)| standing.is_trusted())
        .map(|(folder, _)| folder)
        .collect();
    let (tools, problems) = load_with_problems(&config.config, &folders, taken);
    for problem in problems {
        tracing::warn!("{problem}");
    }
    tools
}

/// The names of the custom tools, and what is wrong with those skipped (`config check`).
pub fn report(config: &crate::config::Config, cwd: &Path) -> (Vec<String>, Vec<String>) {
    let (tools, problems) = load_with_problems(config, &[cwd], &[]);
    (tools.into_iter().map(|t| t.name).collect(), problems)
}

/// The project's `.tandem/tool/*.json` files, in name order.
pub fn files(cwd: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(cwd.join(".tandem/tool"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// The config's tools, then those of `folders`' files (the first folder's win).
fn load_with_problems(
    config: &crate::config::Config,
    folders: &[&Path],
    taken: &[&str],
) -> (Vec<CustomTool>, Vec<String>) {
    let mut problems = Vec::new();
    let mut tools: Vec<CustomTool> = config
        .tool
        .iter()
        .map(|(name, config)| CustomTool {
            name: name.clone(),
            config: config.clone(),
            folder: None,
        })
        .collect();
    let files = folders
        .iter()
        .flat_map(|folder| files(folder).into_iter().map(move |file| (*folder, file)));
    for (folder, path) in files {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let parsed = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                serde_json::from_str::<CustomToolConfig>(&text).map_err(|e| e.to_string())
            });
        match parsed {
            Ok(config) if !tools.iter().any(|t| t.name == name) => tools.push(CustomTool {
                name,
                config,
                folder: Some(folder.to_owned()),
            }),
            Ok(_) => {}
            Err(error) => problems.push(format!(
                "custom tool {}: {error}; it is skipped",
                path.display()
            )),
        }
    }
    tools.retain(|tool| {
        let problem = if tool.config.command.is_empty() {
            "it has no command"
        } else if taken.contains(&tool.name.as_str()) {
            "another tool has its name"
        } else {
            return true;
        };
        problems.push(format!(
            "custom tool {}: {problem}; it is skipped",
            tool.name
        ));
        false
    });
    (tools, problems)
}

impl Tool for CustomTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Execute
    }

    fn description(&self) -> &str {
        &self.config.description
    }

    fn parameters(&self) -> Value {
        self.config
            .parameters
            .clone()
            .unwrap_or_else(|| json!({"type": "object", "properties": {}}))
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let arguments = input.to_string();
            ctx.ask(PermissionCheck {
                needs: vec![Need::new(self.name.clone(), vec![arguments.clone()])],
                title: format!(
                    "{} {}",
                    self.name,
                    crate::utf8::one_line(&arguments, 120).unwrap_or_default()
                ),
                ..Default::default()
            })
            .await?;
            ctx.started();
            let output = self.execute(ctx, &arguments).await?;
            Ok(ToolOutput {
                title: self.name.clone(),
                output,
                ..Default::default()
            })
        })
    }
}

impl CustomTool {
    /// Runs the command in the session's sandbox with `arguments` on stdin; its stdout, or an
    /// error with what it said.
    async fn execute(&self, ctx: &ToolContext, arguments: &str) -> Result<String, ToolError> {
        let mut command = tokio::process::Command::new(&self.config.command[0]);
        command
            .args(&self.config.command[1..])
            .envs(&self.config.environment);
        let folder = self.folder.as_deref().unwrap_or(&ctx.cwd);
        let mut child =
            crate::process::program::start(command, folder, Stdio::piped(), Some(&ctx.sandbox))
                .map_err(|why| ToolError::failed(format!("{} was not run: {why}.", self.name)))?;
        let mut group = crate::process::groups::GroupGuard::new(child.id().map(|p| p as i32));
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(arguments.as_bytes()).await;
        }
        let limit = self
            .config
            .timeout
            .map_or(DEFAULT_TIMEOUT, Duration::from_secs);
        let finished = tokio::select! {
            output = tokio::time::timeout(limit, child.wait_with_output()) => output,
            () = ctx.cancel.cancelled() => return Err(ToolError::failed(format!("{} was cancelled.", self.name))),
        };
        group.kill();
        let output = match finished {
            Ok(Ok(output)) => output,
            Ok(Err(e)) => return Err(ToolError::failed(format!("{} failed: {e}", self.name))),
            Err(_) => {
                return Err(ToolError::failed(format!(
                    "{} ran longer than {} s and was stopped.",
                    self.name,
                    limit.as_secs()
                )));
            }
        };
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        if output.status.success() {
            return Ok(stdout);
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(ToolError::failed(format!(
            "{} exited with {}:\n{}{}",
            self.name,
            output.status,
            stderr.trim_end(),
            if stdout.trim().is_empty() {
                String::new()
            } else {
                format!("\n{}", stdout.trim_end())
            }
        )))
    }
}
