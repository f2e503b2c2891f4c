//! The sandbox under the rules, through the binary on a kernel with Landlock: with every rule
//! allowing, a `bash` command still cannot write outside the project (by any route), writes
//! inside and in the temp dir work, the network obeys `network`, `read-only` means read-only,
//! the person can let one command out, an MCP server started sandboxed is held too, and where
//! there is no sandbox Tandem says so once and runs (or, when required, refuses).

use std::path::{Path, PathBuf};

use crate::support::{AcpProcess, MockLlm, TestEnv};
use serde_json::{Value, json};

/// Everything allowed, so only the sandbox stands in the way.
fn allow_all() -> Value {
    json!({"bash": "allow", "external_directory": "allow", "edit": "allow", "read": "allow"})
}

struct Sandboxed {
    mock: MockLlm,
    env: TestEnv,
    agent: AcpProcess,
    session: String,
    /// A directory outside the project and the temp dir.
    outside: PathBuf,
    /// The temp dir Tandem's commands get (`TMPDIR`).
    tmp: PathBuf,
}

async fn start(sandbox: Option<Value>, permission: Value, extra_env: &[(&str, &str)]) -> Sandboxed {
    launch(sandbox, permission, extra_env, false).await
}

/// `start`, with an editor that runs commands in its own terminal when `terminal` is set.
async fn launch(
    sandbox: Option<Value>,
    permission: Value,
    extra_env: &[(&str, &str)],
    terminal: bool,
) -> Sandboxed {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let outside = env.root.path().join("outside");
    let tmp = env.root.path().join("tmp");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["permission"] = permission;
    if let Some(sandbox) = sandbox {
        config["sandbox"] = sandbox;
    }
    env.write_project_config(&config);
    let tmp_text = tmp.display().to_string();
    let mut vars = vec![("TMPDIR", tmp_text.as_str())];
    vars.extend_from_slice(extra_env);
    let mut agent = env.spawn_with(&vars);
    if terminal {
        agent.editor = Some(Default::default());
        agent.initialize_with(json!({"terminal": true})).await;
    } else {
        agent.initialize().await;
    }
    let session = agent.new_session(&env.project).await;
    Sandboxed {
        mock,
        env,
        agent,
        session,
        outside,
        tmp,
    }
}

impl Sandboxed {
    /// Runs `command` through the bash tool; what the model was told.
    async fn bash(&mut self, command: &str) -> String {
        self.bash_with(json!({"command": command})).await
    }

    async fn bash_with(&mut self, input: Value) -> String {
        let (response, result) =
            crate::support::call_tool(&self.mock, &mut self.agent, &self.session, "bash", input)
                .await;
        assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
        result["content"].as_str().unwrap_or_default().to_owned()
    }
}

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

#[tokio::test]
async fn no_route_writes_outside_the_project_while_inside_and_temp_work() {
    let mut s = start(None, allow_all(), &[]).await;
    let out = s.outside.display().to_string();
    std::fs::write(s.env.project.join("mine.txt"), "mine\n").unwrap();
    std::fs::write(s.outside.join("victim"), "theirs\n").unwrap();
    std::fs::write(
        s.env.project.join("escape.sh"),
        format!("#!/bin/sh\necho hi > {out}/script\n"),
    )
    .unwrap();
    let attempts = [
        (format!("echo x > {out}/redirect"), "redirect"),
        (format!("touch {out}/touch"), "touch"),
        (format!("cp mine.txt {out}/cp"), "cp"),
        (format!("mv mine.txt {out}/mv"), "mv"),
        (format!("ln -s /etc/passwd {out}/symlink"), "symlink"),
        (format!("ln mine.txt {out}/hardlink"), "hardlink"),
        (
            format!("python3 -c \"open('{out}/python', 'w').write('x')\""),
            "python",
        ),
        (format!("sh -c 'echo x > {out}/sh'"), "sh"),
        ("sh escape.sh".to_owned(), "script"),
        ("cd ../outside && touch cd".to_owned(), "cd"),
        // Through a link the command makes inside the project.
        (
            "ln -sfn ../outside link && echo x > link/through-link".to_owned(),
            "through-link",
        ),
    ];
    for (command, name) in attempts {
        let told = s.bash(&command).await;
        assert!(
            !exists(&s.outside.join(name)),
            "{command}: wrote outside the project\n{told}"
        );
        let why = format!(
            "Blocked by the sandbox: writing {} is outside the project",
            s.outside.join(name).display()
        );
        assert!(
            told.contains(&why),
            "{command}: the model is not told why\n{told}"
        );
    }
    // A file outside cannot be pulled in by a hard link and written there.
    let told = s
        .bash("ln ../outside/victim pulled && echo x >> pulled")
        .await;
    assert_eq!(
        std::fs::read_to_string(s.outside.join("victim")).unwrap(),
        "theirs\n",
        "{told}"
    );
    assert!(told.contains("Blocked by the sandbox: writing"), "{told}");
    // The file that was not allowed to move is still in the project.
    assert_eq!(
        std::fs::read_to_string(s.env.project.join("mine.txt")).unwrap(),
        "mine\n"
    );
    let told = s
        .bash("echo in > inside.txt && mkdir -p sub && echo t > \"$TMPDIR/t.txt\" && echo ok")
        .await;
    assert!(told.starts_with("ok"), "{told}");
    assert_eq!(
        std::fs::read_to_string(s.env.project.join("inside.txt")).unwrap(),
        "in\n"
    );
    assert!(s.tmp.join("t.txt").exists());
    // The editor sees which sandbox each command ran in.
    let updates = s.agent.updates_of("tool_call_update");
    let shown: Vec<&Value> = updates
        .iter()
        .filter_map(|u| u["_meta"]["tandem"].get("sandbox"))
        .collect();
    assert_eq!(shown.len(), 13, "{shown:?}");
    assert!(shown.iter().all(|s| *s == "workspace-write"), "{shown:?}");
}

/// The Landlock ABI this kernel enforces, asked of the kernel directly (0: none).
fn kernel_abi() -> i64 {
    // SAFETY: with a null attribute and flag 1 the call only returns the ABI version.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    };
    abi.max(0)
}

/// A Unix socket server at `path` that counts the connections it accepts.
fn unix_daemon(path: &Path) -> std::sync::Arc<std::sync::atomic::AtomicUsize> {
    let server = std::os::unix::net::UnixListener::bind(path).unwrap();
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for _ in server.incoming() {
            seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    });
    count
}

#[tokio::test]
async fn a_daemons_unix_socket_is_refused_unless_the_config_names_it() {
    let mut s = start(None, allow_all(), &[]).await;
    // A daemon's socket outside the project (like Docker's), and one in the temp dir (like
    // tmux's): neither is reachable from a sandboxed command.
    let daemon = s.outside.join("daemon.sock");
    let in_tmp = s.tmp.join("tmux.sock");
    let (outside_count, tmp_count) = (unix_daemon(&daemon), unix_daemon(&in_tmp));
    let connect = |path: &Path| {
        format!(
            "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{}'); \
             print('connected')\"",
            path.display()
        )
    };
    for path in [&daemon, &in_tmp] {
        let told = s.bash(&connect(path)).await;
        assert!(!told.contains("connected"), "{told}");
        assert!(
            told.contains(
                "Blocked by the sandbox: connecting to a Unix socket outside the project"
            ),
            "{told}"
        );
    }
    assert_eq!(outside_count.load(std::sync::atomic::Ordering::SeqCst), 0);
    assert_eq!(tmp_count.load(std::sync::atomic::Ordering::SeqCst), 0);
    // A socketpair (a process talking to its own children) still works.
    let told = s
        .bash("python3 -c \"import socket; socket.socketpair(); print('pair ok')\"")
        .await;
    assert!(told.starts_with("pair ok"), "{told}");
    // The call says which Landlock ABI held it, as the kernel reports it.
    let updates = s.agent.updates_of("tool_call_update");
    let meta = updates
        .iter()
        .rev()
        .find_map(|u| u["_meta"]["tandem"].get("sandboxAbi"))
        .unwrap();
    assert_eq!(meta, &json!(kernel_abi()));

    // Named in the config, the daemon's socket is reachable.
    let config = json!({"unix_sockets": [s.outside.display().to_string()]});
    let mut allowed = start(Some(config), allow_all(), &[]).await;
    let told = allowed.bash(&connect(&daemon)).await;
    assert!(told.starts_with("connected"), "{told}");
    assert_eq!(outside_count.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_editor_that_takes_notices_is_told_what_the_sandbox_holds_when_the_session_opens() {
    let env = TestEnv::new();
    let mut agent = env.spawn();
    agent
        .initialize_with(json!({"session": {"notices": {}}}))
        .await;
    let response = agent
        .request("session/new", json!({"cwd": env.project, "mcpServers": []}))
        .await;
    let session = response["result"]["sessionId"].as_str().unwrap().to_owned();
    // Nothing for the session before its answer; the notice follows it.
    assert!(agent.updates.is_empty(), "{:?}", agent.updates);
    let notice = agent
        .wait_for_update(|u| u["update"]["sessionUpdate"] == "notice")
        .await;
    assert_eq!(notice["sessionId"], session.as_str());
    assert_eq!(notice["update"]["severity"], "info");
    let description = notice["update"]["description"].as_str().unwrap();
    assert!(
        description.starts_with(&format!("workspace-write: Landlock ABI {}.", kernel_abi())),
        "{description}"
    );
    assert!(description.contains("Protected: writes outside the writable places"));
}

#[tokio::test]
async fn doctor_reports_the_abi_the_kernel_enforces_and_what_it_leaves_open() {
    let env = TestEnv::new();
    let out = env.command(&["doctor"]).output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let abi = kernel_abi();
    assert!(abi > 0, "these tests need a kernel with Landlock");
    assert!(text.contains(&format!("Landlock ABI {abi})")), "{text}");
    assert!(
        text.contains("Protected: writes outside the writable places (Landlock)"),
        "{text}"
    );
    if abi < 9 {
        assert!(
            text.contains("Unix sockets: all refused, socketpair excepted (seccomp"),
            "{text}"
        );
    }
}

/// A TCP server on 127.0.0.1 that accepts connections; its port.
fn listener() -> u16 {
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    std::thread::spawn(move || for _ in server.incoming() {});
    port
}

#[tokio::test]
async fn the_network_is_off_only_when_the_config_says_so() {
    let port = listener();
    let connect = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port})); \
         print('connected')\""
    );
    let mut off = start(Some(json!({"network": false})), allow_all(), &[]).await;
    let told = off.bash(&connect).await;
    assert!(!told.contains("connected"), "{told}");
    assert!(
        told.contains("Blocked by the sandbox: network access is off"),
        "{told}"
    );
    // UDP, which Landlock has no rule for, is refused too (a seccomp filter).
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(std::time::Duration::from_millis(500)))
        .unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    let send = format!(
        "python3 -c \"import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); \
         s.sendto(b'ping', ('127.0.0.1', {udp_port})); print('sent')\""
    );
    let told = off.bash(&send).await;
    assert!(!told.contains("sent"), "{told}");
    assert!(
        told.contains("Blocked by the sandbox: network access is off"),
        "{told}"
    );
    let mut buf = [0u8; 8];
    assert!(udp.recv_from(&mut buf).is_err(), "a datagram got out");
    // Unix sockets still work with the network off (many tools talk to local daemons).
    let told = off
        .bash("python3 -c \"import socket; socket.socketpair(); print('unix ok')\"")
        .await;
    assert!(told.starts_with("unix ok"), "{told}");

    let mut on = start(None, allow_all(), &[]).await;
    let told = on.bash(&connect).await;
    assert!(told.starts_with("connected"), "{told}");
    let told = on.bash(&send).await;
    assert!(told.starts_with("sent"), "{told}");
    let (n, _) = udp.recv_from(&mut buf).expect("the datagram arrives");
    assert_eq!(&buf[..n], b"ping");
}

#[tokio::test]
async fn read_only_refuses_writes_inside_the_project_too() {
    let mut s = start(Some(json!({"mode": "read-only"})), allow_all(), &[]).await;
    let told = s
        .bash("echo x > inside.txt; cat /etc/hostname > /dev/null && echo read")
        .await;
    assert!(!s.env.project.join("inside.txt").exists());
    assert!(told.contains("read"), "{told}");
    assert!(
        told.contains("this session's sandbox is read-only"),
        "{told}"
    );
}

#[tokio::test]
async fn a_command_let_out_by_the_person_runs_unsandboxed_and_a_refusal_keeps_it_in() {
    let mut permission = allow_all();
    permission["sandbox_escape"] = json!("ask");
    let mut s = start(None, permission, &[]).await;
    let target = s.outside.join("escaped");
    let command = format!("touch {}", target.display());
    s.agent.permission_choice = Some("reject_once".into());
    let told = s
        .bash_with(json!({"command": command, "outside_sandbox": true}))
        .await;
    assert!(!exists(&target), "{told}");
    let asked = s.agent.permission_requests();
    assert_eq!(asked.len(), 1);
    let title = asked[0]["params"]["toolCall"]["title"]
        .as_str()
        .unwrap_or_default();
    assert!(
        title.starts_with("Run outside the sandbox: touch"),
        "{}",
        asked[0]
    );

    s.agent.permission_choice = Some("allow_once".into());
    s.bash_with(json!({"command": command, "outside_sandbox": true}))
        .await;
    assert!(
        exists(&target),
        "approved, the command ran outside the sandbox"
    );
    let updates = s.agent.updates_of("tool_call_update");
    let done = updates
        .iter()
        .rev()
        .find(|u| u["_meta"]["tandem"]["sandbox"].is_string())
        .unwrap();
    assert_eq!(done["_meta"]["tandem"]["sandbox"], "outside");
}

#[tokio::test]
async fn an_mcp_server_started_sandboxed_cannot_write_outside() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let outside = env.root.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let marker = |name: &str| outside.join(name).display().to_string();
    // Each server tries to write outside, then says it started (in the project, where both
    // may write), then serves.
    let project = env.project.clone();
    let server = |name: &str| {
        let started = project
            .join(format!("{name}-started"))
            .display()
            .to_string();
        json!({"type": "local", "sandbox": name == "held",
               "command": ["sh", "-c", format!("touch {} ; touch {started} ; exec cat", marker(name))]})
    };
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["mcp"] = json!({"held": server("held"), "free": server("free")});
    env.write_project_config(&config);
    let tmp = env.root.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut agent = env.spawn_with(&[("TMPDIR", tmp.to_str().unwrap())]);
    agent.initialize().await;
    agent.new_session(&env.project).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let both_started = || {
        ["held", "free"]
            .iter()
            .all(|n| project.join(format!("{n}-started")).exists())
    };
    while !both_started() && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(both_started(), "both servers started");
    assert!(
        outside.join("free").exists(),
        "the unsandboxed server wrote"
    );
    // The held server's attempt came before it said it started: it was refused.
    assert!(
        !outside.join("held").exists(),
        "the sandboxed server wrote outside"
    );
}

#[tokio::test]
async fn without_a_sandbox_tandem_warns_once_and_runs_or_refuses_when_required() {
    let mut s = start(None, allow_all(), &[("TANDEM_SANDBOX_UNSUPPORTED", "1")]).await;
    s.agent
        .wait_for_update(|u| u["update"]["sessionUpdate"] == "agent_message_chunk")
        .await;
    let warnings: Vec<String> = s
        .agent
        .updates_of("agent_message_chunk")
        .iter()
        .filter_map(|u| u["content"]["text"].as_str().map(str::to_owned))
        .filter(|t| t.contains("No sandbox is available here"))
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let target = s.outside.join("unsandboxed");
    s.bash(&format!("touch {}", target.display())).await;
    assert!(
        exists(&target),
        "without a sandbox the command runs as before"
    );

    let mut required = start(
        Some(json!({"required": true})),
        allow_all(),
        &[("TANDEM_SANDBOX_UNSUPPORTED", "1")],
    )
    .await;
    let target = required.outside.join("refused");
    let told = required.bash(&format!("touch {}", target.display())).await;
    assert!(!exists(&target));
    assert!(
        told.contains("This command was not run: no sandbox is available"),
        "{told}"
    );
}

#[tokio::test]
async fn an_agents_sandbox_keys_override_the_configs_and_always_is_kept_per_command() {
    let mut permission = allow_all();
    permission["sandbox_escape"] = json!("ask");
    let mut s = start(Some(json!({"mode": "workspace-write"})), permission, &[]).await;
    // The project's `build` agent is read-only; its keys win over the config's.
    let config_path = s.env.project.join("tandem.json");
    let mut config: Value =
        serde_json::from_str(&std::fs::read_to_string(&config_path).unwrap()).unwrap();
    config["agent"] = json!({"build": {"sandbox": {"mode": "read-only"}}});
    std::fs::write(&config_path, config.to_string()).unwrap();
    let tmp = s.tmp.display().to_string();
    let mut agent = s.env.spawn_with(&[("TMPDIR", tmp.as_str())]);
    agent.initialize().await;
    s.session = agent.new_session(&s.env.project).await;
    s.agent = agent;
    let told = s.bash("echo x > inside.txt").await;
    assert!(!s.env.project.join("inside.txt").exists(), "{told}");
    assert!(told.contains("read-only"), "{told}");

    // "Always" for one command line: asked once, then that line runs outside unasked, and a
    // different line is still asked.
    let target = s.outside.join("always");
    let command = format!("touch {}", target.display());
    s.agent.permission_choice = Some("allow_always".into());
    s.bash_with(json!({"command": command, "outside_sandbox": true}))
        .await;
    assert!(exists(&target));
    std::fs::remove_file(&target).unwrap();
    s.agent.permission_choice = None;
    s.bash_with(json!({"command": command, "outside_sandbox": true}))
        .await;
    assert!(
        exists(&target),
        "the remembered line ran outside without asking"
    );
    assert_eq!(s.agent.permission_requests().len(), 1);
    let other = s.outside.join("other");
    s.bash_with(json!({"command": format!("touch {}", other.display()), "outside_sandbox": true}))
        .await;
    assert!(
        !exists(&other),
        "a different line is asked (and here refused)"
    );
    assert_eq!(s.agent.permission_requests().len(), 2);
}

#[tokio::test]
async fn a_command_run_in_the_editors_terminal_is_sandboxed_too() {
    let mut s = launch(None, allow_all(), &[], true).await;
    let target = s.outside.join("from-terminal");
    let told = s
        .bash(&format!(
            "touch {} ; echo in > inside.txt",
            target.display()
        ))
        .await;
    let created = s
        .agent
        .received
        .iter()
        .find(|m| m["method"] == "terminal/create")
        .expect("the command ran in the editor's terminal");
    assert_eq!(created["params"]["args"][0], "sandbox-exec", "{created}");
    assert!(!exists(&target), "{told}");
    assert!(s.env.project.join("inside.txt").exists(), "{told}");
    assert!(told.contains("Blocked by the sandbox: writing"), "{told}");
}

#[tokio::test]
async fn what_git_and_tandem_obey_stays_read_only_beneath_writable_places() {
    let mut s = start(None, allow_all(), &[]).await;
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&s.env.project)
        .status()
        .unwrap();
    assert!(git.success());
    let config_before = std::fs::read(s.env.project.join(".git/config")).unwrap();
    let tandem_before = std::fs::read(s.env.project.join("tandem.json")).unwrap();
    // Every rule allows; only the sandbox stands between the command and these files.
    let told = s
        .bash(
            "python3 -c \"open('.git/hooks/pre-commit', 'w').write('touch pwned')\"; \
             python3 -c \"open('.git/config', 'a').write('[core]\\n\\tpager = touch pwned\\n')\"; \
             python3 -c \"open('tandem.json', 'w').write('{}')\"; \
             python3 -c \"import os; os.makedirs('.tandem/agent', exist_ok=True)\"; \
             echo ok > inside.txt && echo wrote",
        )
        .await;
    assert!(told.contains("wrote"), "{told}");
    assert!(
        !s.env.project.join(".git/hooks/pre-commit").exists(),
        "{told}"
    );
    assert_eq!(
        std::fs::read(s.env.project.join(".git/config")).unwrap(),
        config_before
    );
    assert_eq!(
        std::fs::read(s.env.project.join("tandem.json")).unwrap(),
        tandem_before
    );
    assert!(s.env.project.join("inside.txt").exists());

    // Tandem's own data, under a folder the config makes writable (the tests' home holds the
    // data dir): still read-only.
    let broad = json!({"writable": ["~/"]});
    let mut wide = start(Some(broad), allow_all(), &[]).await;
    let data = wide.env.data.clone();
    let root = wide.env.root.path().to_path_buf();
    let told = wide
        .bash(&format!(
            "touch {}/planted; touch {}/beside && echo beside",
            data.display(),
            root.display()
        ))
        .await;
    assert!(!data.join("planted").exists(), "{told}");
    assert!(root.join("beside").exists(), "{told}");
    // Listed itself, the person allows it.
    let listed = json!({"writable": [".git/hooks"]});
    let mut allowed = start(Some(listed), allow_all(), &[]).await;
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&allowed.env.project)
        .status()
        .unwrap();
    // (The rules still ask about the hook: the person says yes.)
    allowed.agent.permission_choice = Some("allow_once".into());
    allowed.bash("touch .git/hooks/mine").await;
    assert!(allowed.env.project.join(".git/hooks/mine").exists());
}
