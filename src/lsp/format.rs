//! The project's formatters: the built-ins, each used only when the project shows it uses
//! that tool (rustfmt beside Cargo.toml, prettier in package.json, ruff or black configured
//! in pyproject.toml, gofmt, clang-format beside a .clang-format), the config's `formatter`
//! block over them; the first that applies runs on the changed file, in the bash sandbox.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use indexmap::IndexMap;

use super::locate;
use crate::config::{Config, FormatterConfig, Switchable};
use crate::sandbox::Policy;
use crate::tool::ports::Formatting;

/// The longest a formatter may run on one file.
const FORMAT_WAIT: Duration = Duration::from_secs(10);

/// A formatter that may run.
#[derive(Debug, Clone, PartialEq)]
pub struct FormatterSpec {
    pub name: String,
    pub command: Vec<String>,
    pub extensions: Vec<String>,
    pub environment: IndexMap<String, String>,
    /// Built-ins run only where the project shows it uses them.
    builtin: bool,
}

const RUST: &[&str] = &[".rs"];
const GO: &[&str] = &[".go"];
const PYTHON: &[&str] = &[".py", ".pyi"];
const WEB: &[&str] = &[
    ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".json", ".css", ".scss",
    ".less", ".html", ".vue", ".svelte", ".md", ".yaml", ".yml", ".graphql",
];
const C: &[&str] = &[
    ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".m", ".mm", ".proto",
];

const BUILTINS: &[(&str, &[&str], &[&str])] = &[
    ("rustfmt", &["rustfmt", "$FILE"], RUST),
    ("gofmt", &["gofmt", "-w", "$FILE"], GO),
    ("ruff", &["ruff", "format", "$FILE"], PYTHON),
    ("black", &["black", "--quiet", "$FILE"], PYTHON),
    ("prettier", &["prettier", "--write", "$FILE"], WEB),
    ("clang-format", &["clang-format", "-i", "$FILE"], C),
];

/// The programs the built-in formatters start, by name.
pub fn builtin_programs() -> impl Iterator<Item = &'static str> {
    BUILTINS
        .iter()
        .filter_map(|(_, command, _)| command.first().copied())
}

/// The formatters the config allows, built-ins first; None when `"formatter": false`.
pub fn formatters(config: &Config) -> Option<Vec<FormatterSpec>> {
    let given: IndexMap<&str, &FormatterConfig> = Switchable::entries(config.formatter.as_ref())?
        .into_iter()
        .collect();
    let mut builtins = Vec::new();
    for (name, command, extensions) in BUILTINS {
        let over = given.get(name).copied();
        if over.and_then(|o| o.disabled) == Some(true) {
            continue;
        }
        let mut spec = FormatterSpec {
            name: name.to_string(),
            command: command.iter().map(|s| s.to_string()).collect(),
            extensions: extensions.iter().map(|s| s.to_string()).collect(),
            environment: IndexMap::new(),
            builtin: true,
        };
        if let Some(over) = over {
            apply(&mut spec, over);
        }
        builtins.push(spec);
    }
    // The person's own come first.
    let mut specs = Vec::new();
    for (name, over) in given {
        if BUILTINS.iter().any(|(b, ..)| *b == name) || over.disabled == Some(true) {
            continue;
        }
        let mut spec = FormatterSpec {
            name: name.to_owned(),
            command: Vec::new(),
            extensions: Vec::new(),
            environment: IndexMap::new(),
            builtin: false,
        };
        apply(&mut spec, over);
        if !spec.command.is_empty() && !spec.extensions.is_empty() {
            specs.push(spec);
        }
    }
    specs.extend(builtins);
    Some(specs)
}

fn apply(spec: &mut FormatterSpec, over: &FormatterConfig) {
    if let Some(command) = over.command.as_ref().filter(|c| !c.is_empty()) {
        spec.command = command.clone();
    }
    if let Some(extensions) = &over.extensions {
        spec.extensions = extensions.iter().map(|e| locate::dotted(e)).collect();
    }
    spec.environment.extend(over.environment.clone());
}

/// The formatter for `file` and its program: the first whose extensions include the file's,
/// whose program is found and (for a built-in) that the project shows it uses.
pub fn for_file<'a>(
    specs: &'a [FormatterSpec],
    file: &Path,
    top: &Path,
    standing: &crate::config::Standing,
) -> Option<(&'a FormatterSpec, PathBuf)> {
    let extension = locate::extension(file);
    let from = file.parent().unwrap_or(top);
    specs
        .iter()
        .filter(|s| s.extensions.contains(&extension))
        .filter(|s| !s.builtin || project_uses(&s.name, file, top))
        .find_map(|s| Some((s, locate::program(&s.command[0], from, top, standing)?)))
}

/// Whether `spec` runs on files at the top of the project `top` (for the reports).
pub fn applies_here(spec: &FormatterSpec, top: &Path) -> bool {
    !spec.builtin || project_uses(&spec.name, &top.join("file"), top)
}

/// Whether the project around `file` shows it uses the built-in formatter `name`.
fn project_uses(name: &str, file: &Path, top: &Path) -> bool {
    let nearest = |markers: &[&str]| {
        let markers: Vec<String> = markers.iter().map(|m| m.to_string()).collect();
        locate::root(file, &markers, top).map(|dir| (dir.clone(), markers))
    };
    let mentions = |marker: &str, needle: &str| {
        nearest(&[marker]).is_some_and(|(dir, _)| {
            std::fs::read_to_string(dir.join(marker)).is_ok_and(|text| text.contains(needle))
        })
    };
    match name {
        "rustfmt" => nearest(&["Cargo.toml"]).is_some(),
        "gofmt" => true,
        "ruff" => {
            nearest(&["ruff.toml", ".ruff.toml"]).is_some()
                || mentions("pyproject.toml", "[tool.ruff")
        }
        "black" => mentions("pyproject.toml", "[tool.black"),
        "prettier" => mentions("package.json", "\"prettier\""),
        "clang-format" => nearest(&[".clang-format", "_clang-format"]).is_some(),
        _ => false,
    }
}

/// The edition the crate around `file` is written in (rustfmt alone assumes 2015).
fn rust_edition(file: &Path, top: &Path) -> String {
    let manifest = locate::root(file, &["Cargo.toml".to_owned()], top)
        .and_then(|dir| std::fs::read_to_string(dir.join("Cargo.toml")).ok())
        .unwrap_or_default();
    manifest
        .lines()
        .filter_map(|line| line.trim().strip_prefix("edition"))
        .filter_map(|rest| rest.trim_start().strip_prefix('='))
        .map(|value| value.trim().trim_matches('"').to_owned())
        .find(|value| value.len() == 4 && value.chars().all(|c| c.is_ascii_digit()))
        .unwrap_or_else(|| "2021".into())
}

/// Runs `spec` (its program at `program`) on `file`, in `sandbox`, from `top`; compares the
/// file with `written` to tell what it did.
pub async fn run(
    spec: &FormatterSpec,
    program: &Path,
    file: &Path,
    top: &Path,
    written: &str,
    sandbox: &Policy,
) -> Formatting {
    let failed = |why: String| Formatting::Failed {
        by: spec.name.clone(),
        why,
    };
    let file_arg = file.to_string_lossy();
    let mut command = tokio::process::Command::new(program);
    if spec.builtin && spec.name == "rustfmt" {
        command.args(["--edition", &rust_edition(file, top)]);
    }
    command
        .args(
            spec.command[1..]
                .iter()
                .map(|a| a.replace("$FILE", &file_arg)),
        )
        .envs(&spec.environment);
    let child = match crate::process::program::start(command, top, Stdio::null(), Some(sandbox)) {
        Ok(child) => child,
        Err(why) => return failed(format!("it was not run: {why}")),
    };
    let mut group = crate::process::groups::GroupGuard::new(child.id().map(|p| p as i32));
    let output = match tokio::time::timeout(FORMAT_WAIT, child.wait_with_output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => return failed(format!("it could not be run: {e}")),
        Err(_) => {
            return failed(format!(
                "it ran longer than {} s and was stopped",
                FORMAT_WAIT.as_secs()
            ));
        }
    };
    group.kill();
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last: Vec<&str> = stderr.lines().rev().take(6).collect();
        let said: Vec<&str> = last.into_iter().rev().collect();
        return failed(format!(
            "it exited with {}: {}",
            output.status,
            said.join("\n")
        ));
    }
    match tokio::fs::read_to_string(file).await {
        Ok(text) if text == written => Formatting::Unchanged {
            by: spec.name.clone(),
        },
        Ok(text) => Formatting::Formatted {
            by: spec.name.clone(),
            text,
        },
        Err(e) => failed(format!("the file could not be read back: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_ins_run_only_where_the_project_uses_them() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        let file = top.join("src/app.py");
        assert!(!project_uses("ruff", &file, top));
        std::fs::write(
            top.join("pyproject.toml"),
            "[project]\nname='x'\n[tool.ruff]\n",
        )
        .unwrap();
        assert!(project_uses("ruff", &file, top));
        assert!(!project_uses("black", &file, top));
        assert!(!project_uses("prettier", &top.join("a.ts"), top));
        std::fs::write(
            top.join("package.json"),
            r#"{"devDependencies": {"prettier": "3"}}"#,
        )
        .unwrap();
        assert!(project_uses("prettier", &top.join("a.ts"), top));
        let config: Config = serde_json::from_str(
            r#"{"formatter": {"ruff": {"disabled": true},
            "mine": {"command": ["fmt", "$FILE"], "extensions": ["py"]}}}"#,
        )
        .unwrap();
        let specs = formatters(&config).unwrap();
        assert!(!specs.iter().any(|s| s.name == "ruff"));
        assert_eq!(specs[0].name, "mine", "the person's own come first");
        assert_eq!(specs[0].extensions, [".py"]);
        let off: Config = serde_json::from_str(r#"{"formatter": false}"#).unwrap();
        assert_eq!(formatters(&off), None);
    }
}
