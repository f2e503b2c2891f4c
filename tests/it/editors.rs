//! Every setup snippet in `editors/` read by what reads it (JSON; Lua in a real Lua with the
//! plugin's `require` stubbed; Elisp in a real Emacs with agent-shell's functions stubbed;
//! TOML), then the command it names started and asked to `initialize`: it must be `tandem acp`
//! with flags Tandem accepts. Lua and Emacs come from `.ci/install-editors`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::TestEnv;
use serde_json::Value;

fn editors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("editors")
}

fn read_json(path: &str) -> Value {
    let text = std::fs::read_to_string(editors().join(path)).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} is not JSON: {e}"))
}

/// A launch as a snippet describes it.
#[derive(Debug)]
struct Launch {
    command: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

impl Launch {
    fn from_fields(command: &Value, args: &Value, env: Option<&Value>) -> Self {
        Self {
            command: command.as_str().unwrap().to_owned(),
            args: serde_json::from_value(args.clone()).unwrap(),
            env: env
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    fn from_argv(argv: &[String]) -> Self {
        Self {
            command: argv[0].clone(),
            args: argv[1..].to_vec(),
            env: Vec::new(),
        }
    }
}

/// Whether a program is installed; without it the test fails unless interop tests are
/// explicitly skipped.
fn have(program: &str) -> bool {
    let found = Command::new(program).arg("--version").output().is_ok();
    if !found && std::env::var_os("TANDEM_SKIP_INTEROP").is_none() {
        panic!(
            "{program} is not installed: run `bash .ci/install-editors` (or set TANDEM_SKIP_INTEROP=1)"
        );
    }
    found
}

/// Starts what `launch` names, with this binary standing in for `tandem`, and checks it
/// answers `initialize` as Tandem.
async fn starts_tandem(snippet: &str, launch: &Launch) {
    let name = Path::new(&launch.command)
        .file_name()
        .unwrap()
        .to_string_lossy();
    assert_eq!(
        name, "tandem",
        "{snippet}: the command is {:?}",
        launch.command
    );
    assert_eq!(
        launch.args,
        ["acp"],
        "{snippet}: the arguments are {:?}",
        launch.args
    );
    let env = TestEnv::new();
    let args: Vec<&str> = launch.args.iter().map(String::as_str).collect();
    let mut command = env.command(&args);
    for (key, value) in &launch.env {
        // Logs go to this test's own file, wherever the snippet points them.
        let value = if key == "TANDEM_LOG_FILE" {
            env.root.path().join("tandem.log").display().to_string()
        } else {
            value.clone()
        };
        command.env(key, value);
    }
    let mut command = tokio::process::Command::from(command);
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut agent = crate::support::AcpProcess::start_command(command);
    let init = agent.initialize().await;
    assert_eq!(init["result"]["agentInfo"]["name"], "tandem", "{snippet}");
}

#[tokio::test]
async fn json_snippets_start_tandem_acp() {
    let zed = read_json("zed/settings.json");
    let jetbrains = read_json("jetbrains/acp.json");
    let air = read_json("jetbrains-air/acp.json");
    let vscode = read_json("vscode/settings.json");
    for (snippet, entry) in [
        ("zed/settings.json", &zed["agent_servers"]["Tandem"]),
        ("jetbrains/acp.json", &jetbrains["agent_servers"]["Tandem"]),
        ("jetbrains-air/acp.json", &air["agent_servers"]["Tandem"]),
        ("vscode/settings.json", &vscode["acp.agents"]["Tandem"]),
    ] {
        let launch = Launch::from_fields(&entry["command"], &entry["args"], entry.get("env"));
        starts_tandem(snippet, &launch).await;
    }
    let acpx = read_json("acpx/config.json");
    assert_eq!(acpx["defaultAgent"], "tandem");
    let argv: Vec<String> =
        serde_json::from_value(acpx["agents"]["tandem"]["argv"].clone()).unwrap();
    starts_tandem("acpx/config.json", &Launch::from_argv(&argv)).await;
}

#[tokio::test]
async fn acpx_itself_accepts_its_snippet() {
    let acpx =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".ci/cache/npm/node_modules/.bin/acpx");
    if !acpx.exists() {
        assert!(
            std::env::var_os("TANDEM_SKIP_INTEROP").is_some(),
            "acpx is not installed: run `bash .ci/install-acpx`"
        );
        return;
    }
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".acpx")).unwrap();
    std::fs::copy(
        editors().join("acpx/config.json"),
        home.path().join(".acpx/config.json"),
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        acpx.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new(&acpx)
        .args(["config", "show"])
        .env("HOME", home.path())
        .env("PATH", path)
        .current_dir(home.path())
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{shown}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(shown.contains("tandem"), "{shown}");
}

/// Runs a Lua snippet with `require` answering stubs that record what the plugin was given,
/// and prints `command arg…` then `KEY=value` lines.
const LUA_HARNESS: &str = r#"
local captured = {}
package.preload["codecompanion"] = function()
  return { setup = function(opts) captured.codecompanion = opts end }
end
package.preload["codecompanion.adapters"] = function()
  return { extend = function(base, overrides) overrides.__base = base; return overrides end }
end
package.preload["avante"] = function()
  return { setup = function(opts) captured.avante = opts end }
end
dofile(arg[1])
local argv, env
if captured.codecompanion then
  local cfg = captured.codecompanion
  local name = cfg.interactions.chat.adapter
  local adapter = cfg.adapters.acp[name]()
  argv, env = adapter.commands.default, adapter.env
elseif captured.avante then
  local cfg = captured.avante
  local provider = cfg.acp_providers[cfg.provider]
  argv = { provider.command }
  for _, a in ipairs(provider.args) do argv[#argv + 1] = a end
  env = provider.env
end
print(table.concat(argv, " "))
for k, v in pairs(env or {}) do print(k .. "=" .. tostring(v)) end
"#;

fn run_lua(snippet: &str) -> Launch {
    let dir = tempfile::tempdir().unwrap();
    let harness = dir.path().join("harness.lua");
    std::fs::write(&harness, LUA_HARNESS).unwrap();
    let output = Command::new("lua5.4")
        .arg(&harness)
        .arg(editors().join(snippet))
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{snippet} failed in Lua: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut lines = stdout.lines();
    let argv: Vec<String> = lines
        .next()
        .unwrap()
        .split(' ')
        .map(str::to_owned)
        .collect();
    let mut launch = Launch::from_argv(&argv);
    launch.env = lines
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    launch
}

#[tokio::test]
async fn lua_snippets_configure_tandem_acp() {
    if !have("lua5.4") {
        return;
    }
    for snippet in ["neovim/codecompanion.lua", "neovim/avante.lua"] {
        let launch = run_lua(snippet);
        starts_tandem(snippet, &launch).await;
    }
}

/// Stubs for what the Elisp snippet calls in agent-shell; prints the client's command line.
const ELISP_HARNESS: &str = r#"
(defvar agent-shell-agent-configs nil)
(defun agent-shell-make-agent-config (&rest plist) plist)
(defun agent-shell--make-acp-client (&rest plist) plist)
(defun agent-shell--dwim (&rest _) nil)
(provide 'agent-shell)
(load (car command-line-args-left) nil t)
(let* ((config (car (last agent-shell-agent-configs)))
       (client (funcall (plist-get config :client-maker) 'buffer)))
  (unless (eq (plist-get config :identifier) 'tandem) (error "identifier"))
  (unless (fboundp 'tandem-agent-shell) (error "no command"))
  (princ (mapconcat #'identity
                    (cons (plist-get client :command) (plist-get client :command-params))
                    " "))
  (terpri))
"#;

#[tokio::test]
async fn elisp_snippet_configures_tandem_acp() {
    if !have("emacs") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let harness = dir.path().join("harness.el");
    std::fs::write(&harness, ELISP_HARNESS).unwrap();
    let output = Command::new("emacs")
        .args(["--batch", "-Q", "-l"])
        .arg(&harness)
        .arg(editors().join("emacs/tandem-agent-shell.el"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the Elisp snippet failed in Emacs: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let argv: Vec<String> = line.split(' ').map(str::to_owned).collect();
    starts_tandem("emacs/tandem-agent-shell.el", &Launch::from_argv(&argv)).await;
}

#[tokio::test]
async fn toml_snippet_runs_tandem_acp() {
    if !have("python3") {
        return;
    }
    let output = Command::new("python3")
        .args([
            "-c",
            "import sys, tomllib, json; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))",
        ])
        .arg(editors().join("toad/tandem.toml"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let toad: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(toad["protocol"], "acp");
    let argv: Vec<String> = toad["run_command"]["*"]
        .as_str()
        .unwrap()
        .split(' ')
        .map(str::to_owned)
        .collect();
    starts_tandem("toad/tandem.toml", &Launch::from_argv(&argv)).await;
}

#[test]
fn every_editor_has_a_readme_saying_where_the_snippet_goes_the_key_and_the_logs() {
    for dir in [
        "zed",
        "jetbrains",
        "jetbrains-air",
        "neovim",
        "emacs",
        "vscode",
        "acpx",
        "toad",
    ] {
        let readme = std::fs::read_to_string(editors().join(dir).join("README.md"))
            .unwrap_or_else(|_| panic!("editors/{dir} has no README.md"));
        for needle in ["tandem auth login", "TANDEM_LOG_FILE"] {
            assert!(
                readme.contains(needle),
                "editors/{dir}/README.md lacks {needle}"
            );
        }
    }
}
