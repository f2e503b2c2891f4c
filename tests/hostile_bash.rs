//! A hostile model against the bash rules, through the binary, with a client that rejects
//! every prompt: each hostile line tries to create a marker file by getting past a rule (a
//! redirect, a prefix assignment, a line the parser misreads, work done at run time, a wrapper,
//! a path outside the project) and the marker must never exist. Harmless lines still run
//! without a single prompt.

mod support;

use serde_json::{Value, json};
use support::acp::TestEnv;

/// A git repository with an `evil/ls` that creates `evil-ran` if it is ever run.
fn prepare(project: &std::path::Path) {
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(project)
        .status()
        .unwrap();
    std::fs::create_dir_all(project.join("evil")).unwrap();
    let evil = project.join("evil/ls");
    std::fs::write(&evil, "#!/bin/sh\ntouch evil-ran\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&evil, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(project.join("a.txt"), "a\n").unwrap();
}

/// Runs `lines` (with `M` replaced by each line's own marker) and asserts no marker exists.
async fn none_may_run(config: Value, lines: &[&str], marker_dir: impl Fn(&TestEnv) -> String) {
    let (mock, env, mut agent, session) = support::start_with("openai", config).await;
    prepare(&env.project);
    let dir = marker_dir(&env);
    let calls: Vec<(&str, Value)> = lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let command = line.replace('M', &format!("{dir}pwned{index}"));
            ("bash", json!({"command": command}))
        })
        .collect();
    let results = support::run_all(&mock, &mut agent, &session, &calls).await;
    let mut ran = Vec::new();
    for (index, (line, (_, call))) in lines.iter().zip(&calls).enumerate() {
        let marker = env.project.join(format!("{dir}pwned{index}"));
        if marker.exists() || env.project.join("evil-ran").exists() {
            ran.push(format!(
                "{line:?} ran: {}\n  told: {}",
                call["command"], results[index]
            ));
            let _ = std::fs::remove_file(env.project.join("evil-ran"));
        }
    }
    assert!(
        ran.is_empty(),
        "{} of {} ran:\n{}",
        ran.len(),
        lines.len(),
        ran.join("\n")
    );
}

/// An allow list with everything else asking, and edits asking.
fn allow_list() -> Value {
    json!({"permission": {"edit": "ask", "bash": {
        "*": "ask", "echo *": "allow", "git status *": "allow", "ls *": "allow", "cat *": "allow",
        "wc *": "allow", "grep *": "allow", "head *": "allow", "printf *": "allow", "true *": "allow",
        "cd *": "allow", "find *": "allow", "test *": "allow", "export *": "allow", "env *": "allow",
        "timeout *": "allow", "xargs *": "allow", "declare *": "allow", "cp *": "allow",
        "mkdir *": "allow", "ln *": "allow", "tee *": "allow", "sort *": "allow"
    }}})
}

/// Everything allowed but `touch` and `rm`, which are denied.
fn deny_list() -> Value {
    json!({"permission": {"bash": {"*": "allow", "touch *": "deny", "rm *": "deny"}}})
}

const REDIRECTS: &[&str] = &[
    "echo x > M",
    "echo x >> M",
    "echo x >| M",
    "echo x &> M",
    "ls 2> M",
    "echo x &>> M",
    "cat <<< x > M",
    "echo x >& M",
    "{ echo x; } > M",
    "(echo x) > M",
    "exec 3> M",
    "for i in 1; do echo; done > M",
    "f() { echo; } > M; f",
    "echo x > $(echo M)",
    "echo x | tee M",
    "cat a.txt | sort -o M",
    "echo x <> M",
    "cat <<EOF > M\nx\nEOF",
];

const PREFIXES: &[&str] = &[
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch M' git status",
    "PATH=./evil:$PATH ls",
    "PATH=./evil; ls",
    "export PATH=./evil:$PATH; ls",
    "env PATH=./evil ls",
    "declare -x PATH=./evil; ls",
    "BASH_ENV=x echo hi; touch M",
];

const UNPARSED: &[&str] = &[
    "cat <<EOF\n$(touch M)",
    "echo ok; tou\\\nch M",
    "echo $( touch M",
    "echo {touch,M}; {touch,M}",
];

const HIDDEN: &[&str] = &[
    "x='a[$(touch M)]'; echo $((x))",
    "x='a[$(touch M)]'; ((x))",
    "x='a[$(touch M)]'; echo ${a[x]}",
    "declare -i n; n='a[$(touch M)]'",
    "x='a[$(touch M)]'; [[ $x -eq 0 ]]",
    "[[ -v 'a[$(touch M)]' ]]",
    "p='$(touch M)'; echo ${p@P}",
    "t=touch; $t M",
    "c=touch; n=c; ${!n} M",
    "echo `echo \\`touch M\\``",
    "sh -c \"$(echo touch M)\"",
    "echo touch M | sh",
    "echo touch M | bash -s",
    "trap 'touch M' EXIT",
    "PS4='$(touch M)'; set -x; echo",
    "hash -p /usr/bin/touch ls; ls M",
    "source <(echo touch M)",
    ". /dev/stdin <<< 'touch M'",
    "x=$(echo touch); $x M",
    "printf -v 'a[$(touch M)]' x",
    "read 'a[$(touch M)]' <<< 1",
    "let 'x=a[$(touch M)]'",
    "for ((i=a[$(touch M)]; i<1; i++)); do :; done",
    "x=$(printf 'touch M'); eval \"$x\"",
];

const DISGUISED: &[&str] = &[
    "eval 'touch M'",
    "bash -c 'touch M'",
    "'tou'ch M",
    "\\touch M",
    "$'\\x74ouch' M",
    "/usr/bin/touch M",
    "command touch M",
    "env touch M",
    "timeout 5 touch M",
    "nice -n 1 touch M",
    "nohup touch M",
    "exec touch M",
    "builtin eval 'touch M'",
    "echo M | xargs touch",
    "find . -maxdepth 0 -exec touch M \\;",
    "true && touch M",
    "echo $(touch M)",
    "echo <(touch M)",
    "if true; then touch M; fi",
    "case x in x) touch M;; esac",
];

#[tokio::test]
async fn redirects_prefixes_and_unparsed_lines_are_never_auto_allowed() {
    let lines: Vec<&str> = [REDIRECTS, PREFIXES, UNPARSED].concat();
    none_may_run(allow_list(), &lines, |_| String::new()).await;
}

#[tokio::test]
async fn hidden_work_and_disguised_commands_get_past_neither_an_allow_list_nor_a_deny() {
    let lines: Vec<&str> = [HIDDEN, DISGUISED, UNPARSED].concat();
    none_may_run(deny_list(), &lines, |_| String::new()).await;
    none_may_run(allow_list(), &[HIDDEN, DISGUISED].concat(), |_| {
        String::new()
    })
    .await;
}

const OUTSIDE: &[&str] = &[
    "echo x > ../M",
    "cp a.txt ../M",
    "cd .. && cp project/a.txt M",
    "cd ..; echo x > M",
    "mkdir ../M",
    "ln -s a.txt ../M",
    "tee ../M < a.txt",
    "cp a.txt out/M",
    "echo x > out/M",
    "cp a.txt \"$(echo ..)/M\"",
    "cp a.txt $OLDPWD/../M",
    "cp -t .. a.txt && mv ../a.txt ../M",
    "env -C .. cp project/a.txt M",
    "git -C .. init -q M",
    "find .. -maxdepth 0 -fprint ../M",
];

#[tokio::test]
async fn paths_outside_the_project_ask_even_under_an_allow() {
    let config = json!({"permission": {"bash": {"*": "allow"}}});
    let (mock, env, mut agent, session) = support::start_with("openai", config).await;
    prepare(&env.project);
    let outside = env.root.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, env.project.join("out")).unwrap();
    let calls: Vec<(&str, Value)> = OUTSIDE
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let command = line.replace('M', &format!("pwned{index}"));
            ("bash", json!({"command": command}))
        })
        .collect();
    let results = support::run_all(&mock, &mut agent, &session, &calls).await;
    let mut ran = Vec::new();
    for (index, line) in OUTSIDE.iter().enumerate() {
        let name = format!("pwned{index}");
        if env.root.path().join(&name).exists() || outside.join(&name).exists() {
            ran.push(format!("{line:?}: {}", results[index]));
        }
    }
    assert!(ran.is_empty(), "{} ran:\n{}", ran.len(), ran.join("\n"));
}

const HARMLESS: &[(&str, &str)] = &[
    ("echo \"a;b\"", "a;b"),
    ("git status --short src", "(no output)"),
    ("ls > /dev/null", "(no output)"),
    ("echo $((1+2))", "3"),
    ("ls -la > /dev/null 2>&1 && echo listed", "listed"),
    ("cat README.md", "# demo"),
    ("echo hi 2>&1", "hi"),
    ("ls | wc -l", "5"),
    ("grep -n demo README.md", "1:# demo"),
    ("head -n 1 README.md", "# demo"),
    ("printf '%s-%s' a b", "a-b"),
    ("true && echo ok", "ok"),
    ("cd src && ls", "(no output)"),
    ("echo \"$(ls README.md)\"", "README.md"),
    ("ls *.md", "README.md"),
    ("find . -name '*.md'", "./README.md"),
    ("wc -c README.md", "7 README.md"),
    ("test -f README.md && echo yes", "yes"),
    ("[ -d src ] && echo dir", "dir"),
    ("echo x > /dev/null; echo y", "y"),
    ("cat ./README.md | grep -c demo", "1"),
    ("echo 'it''s' \"$((2*3))\"", "its 6"),
    ("grep -rn '/demo/' src || echo none", "none"),
    ("timeout 5 echo wrapped", "wrapped"),
];

#[tokio::test]
async fn harmless_lines_run_without_a_prompt() {
    let (mock, env, mut agent, session) = support::start_with("openai", allow_list()).await;
    prepare(&env.project);
    let calls: Vec<(&str, Value)> = HARMLESS
        .iter()
        .map(|(line, _)| ("bash", json!({"command": line})))
        .collect();
    let results = support::run_all(&mock, &mut agent, &session, &calls).await;
    assert_eq!(agent.permission_requests(), Vec::<Value>::new());
    let wrong: Vec<String> = HARMLESS
        .iter()
        .zip(&results)
        .filter(|((_, expected), result)| result.trim() != *expected)
        .map(|((line, expected), result)| format!("{line}: {result:?}, not {expected:?}"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
