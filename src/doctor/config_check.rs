//! `tandem config check`: every config file read on its own, each error and unknown key said
//! in plain words, then the merged result with the file each value came from (secrets hidden).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::SandboxConfig;
use crate::config::load::{ConfigError, candidate_files, check, merge, read_file};

#[derive(Debug, clap::Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub command: ConfigCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum ConfigCommand {
    /// Read every config file, explain what is wrong, and show where each value came from.
    Check {
        /// The project directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
}

/// What `config check` found.
pub struct Report {
    pub text: String,
    pub errors: usize,
}

/// Runs the command; the report goes to stdout, and errors make the exit status 1.
#[allow(clippy::print_stdout)] // The report is the command's output.
pub fn run(args: ConfigArgs) -> anyhow::Result<()> {
    let ConfigCommand::Check { cwd } = args.command;
    let cwd = match cwd {
        Some(dir) => dir,
        None => std::env::current_dir()?,
    };
    let report = report(&cwd);
    print!("{}", report.text);
    if report.errors > 0 {
        anyhow::bail!(
            "{} error{} in the config: sessions will not start until {} fixed",
            report.errors,
            if report.errors == 1 { "" } else { "s" },
            if report.errors == 1 {
                "it is"
            } else {
                "they are"
            }
        );
    }
    Ok(())
}

/// Checks every config file that applies in `cwd`.
pub fn report(cwd: &Path) -> Report {
    let explicit = std::env::var_os("TANDEM_CONFIG").map(PathBuf::from);
    let mut text = String::from("Config files, lowest precedence first:\n");
    let mut errors = 0;
    let mut layers: Vec<(PathBuf, Value)> = Vec::new();
    for path in candidate_files(cwd) {
        let must_exist = explicit.as_deref() == Some(path.as_path());
        let value = match read_file(&path, must_exist) {
            Ok(None) => {
                let _ = writeln!(text, "  - {}: not present", path.display());
                continue;
            }
            Ok(Some(value)) => value,
            Err(error) => {
                errors += 1;
                let _ = writeln!(text, "  ✗ {}", explain(&error));
                continue;
            }
        };
        match check(&path, &value) {
            Ok(unknown) => {
                let _ = writeln!(text, "  ✓ {}", path.display());
                for key in unknown {
                    let _ = writeln!(
                        text,
                        "    ! unknown key `{key}` is ignored: Tandem has no such setting (check \
                         the spelling against schemas/tandem.json)"
                    );
                }
                layers.push((path, value));
            }
            Err(error) => {
                errors += 1;
                let _ = writeln!(text, "  ✗ {}", explain(&error));
            }
        }
    }
    let mut merged = Value::Object(Default::default());
    for (_, value) in &layers {
        merge(&mut merged, value.clone());
    }
    let mut leaves = Vec::new();
    collect_leaves(&merged, String::new(), &mut leaves);
    if leaves.is_empty() {
        text.push_str("\nNo settings: Tandem runs on its defaults.\n");
    } else {
        text.push_str("\nResolved settings (value ← file):\n");
        for (key, value) in leaves {
            let source = layers
                .iter()
                .rev()
                .find(|(_, layer)| lookup(layer, &key).is_some())
                .map(|(path, _)| path.display().to_string())
                .unwrap_or_default();
            let shown = if is_secret(&key) {
                "(set, hidden)".to_owned()
            } else {
                value.to_string()
            };
            let _ = writeln!(text, "  {key} = {shown}  ← {source}");
        }
    }
    let sandbox: Option<SandboxConfig> = merged
        .get("sandbox")
        .and_then(|s| serde_json::from_value(s.clone()).ok());
    let _ = writeln!(
        text,
        "\nSandbox for bash commands: {}",
        crate::sandbox::describe(sandbox.as_ref(), cwd)
    );
    text.push_str(&skills(cwd));
    text.push_str(&custom_tools(&merged, cwd));
    text.push_str(&hooks(cwd));
    text.push_str(&super::plugins::report(cwd));
    text.push_str(&external_agents(&merged, cwd));
    Report { text, errors }
}

/// The custom tools of `cwd`'s project, and why any was skipped.
fn custom_tools(merged: &Value, cwd: &Path) -> String {
    let config: crate::config::Config = serde_json::from_value(merged.clone()).unwrap_or_default();
    let (names, problems) = crate::extension::custom_tool::report(&config, cwd);
    let mut text = format!(
        "\nCustom tools: {}\n",
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    );
    for problem in &problems {
        let _ = writeln!(text, "  ! {problem}");
    }
    text
}

/// The agents that are other ACP agents, and whether each one's command is there.
fn external_agents(merged: &Value, cwd: &Path) -> String {
    let config: crate::config::Config = serde_json::from_value(merged.clone()).unwrap_or_default();
    let standing = crate::trust::assess(cwd).standing();
    let agents = crate::agent::Agents::load(&config, &[(cwd, &crate::config::Standing::LISTING)]);
    let external: Vec<_> = agents
        .subagents()
        .into_iter()
        .filter_map(|a| a.acp.as_ref().map(|acp| (&a.name, acp)))
        .collect();
    let mut text = String::from(
        "
Other ACP agents as subagents:",
    );
    if external.is_empty() {
        text.push_str(" none");
    }
    text.push('\n');
    for (name, acp) in external {
        let command = acp.command.join(" ");
        match crate::lsp::locate::program(acp.program(), cwd, cwd, &standing) {
            Some(found) => {
                let _ = writeln!(text, "  {name}: `{command}` ({})", found.display());
            }
            None => {
                let _ = writeln!(
                    text,
                    "  ! {name}: `{}` is not installed or not on PATH (`{command}`)",
                    acp.program()
                );
            }
        }
    }
    text
}

/// The hooks that apply in `cwd`, whose each is, and why any was skipped.
fn hooks(cwd: &Path) -> String {
    // Every hook is listed, the project's too, trusted or not (each says whose it is).
    let every = crate::config::Standing::LISTING;
    let set = crate::extension::hook::HookSet::load(cwd, &[(cwd, &every)], &[]);
    let mut text = String::from("\nHooks:");
    let lines = set.listing(cwd);
    if lines.is_empty() {
        text.push_str(" none");
    }
    text.push('\n');
    for line in lines {
        let _ = writeln!(text, "  {line}");
    }
    if set.project().next().is_some() {
        text.push_str(
            "  (the project's hooks run once the person approves them, in the editor or at a terminal)\n",
        );
    }
    for problem in &set.problems {
        let _ = writeln!(text, "  ! {problem}");
    }
    text
}

/// The skills found for `cwd`, and why any folder was skipped.
fn skills(cwd: &Path) -> String {
    let skills = crate::extension::skill::Skills::load(cwd, &[]);
    let names: Vec<&str> = skills.skills.iter().map(|s| s.name.as_str()).collect();
    let mut text = format!(
        "\nSkills: {}\n",
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    );
    for problem in &skills.problems {
        let _ = writeln!(text, "  ! {problem}");
    }
    text
}

/// The error in plain words: which file, which key, what was expected.
fn explain(error: &ConfigError) -> String {
    match error {
        ConfigError::Read { path, message } => {
            format!("{}: cannot be read ({message})", path.display())
        }
        ConfigError::Syntax { path, message } => format!(
            "{}: is not valid JSON ({message}); comments are allowed, trailing commas are not",
            path.display()
        ),
        ConfigError::Type { path, key, message } => format!(
            "{}: the value of `{key}` is wrong: {message}",
            path.display()
        ),
    }
}

/// `(dotted key, value)` for every non-object value; arrays are single values.
fn collect_leaves(value: &Value, prefix: String, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) if !map.is_empty() || prefix.is_empty() => {
            for (key, child) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                collect_leaves(child, path, out);
            }
        }
        other => out.push((prefix, other.clone())),
    }
}

/// The value at a dotted key, walking objects (keys themselves may hold dots, such as
/// `acp.agents`: the longest matching key wins).
fn lookup<'a>(value: &'a Value, dotted: &str) -> Option<&'a Value> {
    if dotted.is_empty() {
        return Some(value);
    }
    let map = value.as_object()?;
    let mut end = dotted.len();
    loop {
        let head = &dotted[..end];
        if let Some(child) = map.get(head) {
            let rest = dotted[end..].strip_prefix('.').unwrap_or("");
            if let Some(found) = lookup(child, rest) {
                return Some(found);
            }
        }
        match head.rfind('.') {
            Some(dot) => end = dot,
            None => return None,
        }
    }
}

/// Keys whose values are credentials.
fn is_secret(key: &str) -> bool {
    let last = key.rsplit('.').next().unwrap_or(key).to_ascii_lowercase();
    last.contains("key")
        || last.contains("token")
        || last.contains("secret")
        || last.contains("password")
        || last == "authorization"
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lookup_follows_dotted_keys_and_keys_with_dots() {
        let value = json!({"provider": {"a.b": {"x": 1}}, "model": "m"});
        assert_eq!(lookup(&value, "provider.a.b.x"), Some(&json!(1)));
        assert_eq!(lookup(&value, "model"), Some(&json!("m")));
        assert_eq!(lookup(&value, "provider.c"), None);
    }

    #[test]
    fn secrets_are_recognised_by_their_key() {
        assert!(is_secret("provider.x.options.apiKey"));
        assert!(is_secret("server.token"));
        assert!(is_secret("provider.x.options.headers.Authorization"));
        assert!(!is_secret("provider.x.options.baseURL"));
    }
}
