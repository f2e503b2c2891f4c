//! Commands in the background through the binary: a real `python3 -m http.server` the turn
//! talks to while it runs, `bash_output` and `bash_kill`; a job that ends by itself and the
//! reminder the model gets (mid-turn and with the next prompt); `/jobs`; no process left after
//! the session closes, after stdin closes, and after a SIGKILL of Tandem; the job limit; and a
//! background command still refused by a deny rule and held by the sandbox.

use std::time::Duration;

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::{AcpProcess, MockLlm, TestEnv};
use serde_json::json;

fn bash(command: &str, background: bool) -> String {
    json!({"command": command, "description": "test", "run_in_background": background}).to_string()
}

/// Queues one tool call per step, then "done".
fn script(mock: &MockLlm, calls: &[(&str, String)]) {
    for (n, (tool, args)) in calls.iter().enumerate() {
        mock.push(openai_tool_call(&format!("call_{n}"), tool, &[args]));
    }
    mock.push(openai_text(&["done"], "stop"));
}

/// What the model was told of each call, in order (each step's request ends with it).
fn results(mock: &MockLlm, from: usize, count: usize) -> Vec<String> {
    (0..count)
        .map(|n| {
            let messages = mock.requests()[from + n + 1].body["messages"].clone();
            let last = messages.as_array().unwrap().last().unwrap().clone();
            last["content"].as_str().unwrap_or_default().to_owned()
        })
        .collect()
}

/// Whether a process whose command line contains `marker` is alive.
fn alive(marker: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .map(|raw| {
                String::from_utf8_lossy(&raw)
                    .replace('\0', " ")
                    .contains(marker)
            })
            .unwrap_or(false)
    })
}

/// Waits up to 5 s for every process with `marker` to be gone.
async fn gone(marker: &str) -> bool {
    for _ in 0..100 {
        if !alive(marker) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn a_server_runs_in_the_background_while_the_turn_talks_to_it() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    let port = free_port();
    let fetch = format!(
        "python3 -c \"import time, urllib.request\nfor _ in range(100):\n    try:\n        \
         print('status', urllib.request.urlopen('http://127.0.0.1:{port}/').status); break\n    \
         except OSError: time.sleep(0.05)\""
    );
    script(
        &mock,
        &[
            (
                "bash",
                bash(
                    &format!("exec python3 -m http.server {port} --bind 127.0.0.1"),
                    true,
                ),
            ),
            ("bash", bash(&fetch, false)),
            ("bash_output", json!({"id": "bg1"}).to_string()),
            ("bash_kill", json!({"id": "bg1"}).to_string()),
            ("bash_output", json!({"id": "BG1 "}).to_string()),
        ],
    );
    let response = agent.prompt(&session, "serve it").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let told = results(&mock, 0, 5);
    let command = format!("exec python3 -m http.server {port} --bind 127.0.0.1");
    assert!(
        told[0].starts_with(&format!(
            "Started background job bg1: read what it prints with bash_output, end it with \
             bash_kill; you will be told when it ends.\n\nJob bg1 (`{command}`) is still running"
        )),
        "{}",
        told[0]
    );
    assert!(told[1].contains("status 200"), "{}", told[1]);
    assert!(told[2].contains("is still running"), "{}", told[2]);
    assert!(told[2].contains("\"GET / HTTP/1.1\" 200"), "{}", told[2]);
    assert_eq!(
        told[3],
        format!("Job bg1 (`{command}`) was killed.\n\n(no new output)")
    );
    assert_eq!(
        told[4], told[3],
        "ids are matched loosely; nothing new after the kill"
    );
    assert!(gone(&format!("http.server {port}")).await);
    // The editor saw the job start as a completed call with its first lines.
    let first = crate::support::call_updates(&agent, "call_0");
    let last = first.last().unwrap();
    assert_eq!(last["status"], "completed");
    assert_eq!(last["rawOutput"]["metadata"]["jobId"], "bg1");
    assert_eq!(last["rawOutput"]["metadata"]["running"], true);
}

#[tokio::test]
async fn a_job_that_ends_is_reported_at_the_next_step_and_with_the_next_prompt() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    // The job says who it is; the next step waits until it is gone (an event, not a clock),
    // and one more step follows.
    let job = "echo $$ > job.pid; echo started; sleep 0.3; echo finished-job; exit 3";
    script(
        &mock,
        &[
            ("bash", bash(job, true)),
            (
                "bash",
                bash(
                    "while [ -e /proc/$(cat job.pid) ]; do sleep 0.02; done",
                    false,
                ),
            ),
            ("bash", bash("true", false)),
        ],
    );
    agent.prompt(&session, "go").await;
    let last = mock.requests()[3].body["messages"].to_string();
    let reminder = format!(
        "<system-reminder>\\nBackground job bg1 (`{job}`) exited with code 3.\\nRead what it \
         printed with bash_output.\\n</system-reminder>"
    );
    assert!(last.contains(&reminder), "{last}");
    // Told once: the history holds it once.
    assert_eq!(last.matches("exited with code 3").count(), 1);

    // A job ending while no turn runs rides on the next prompt.
    script(&mock, &[("bash", bash("echo go; sleep 0.4; exit 0", true))]);
    agent.prompt(&session, "again").await;
    // Wait for its end as the person would see it: `/jobs`, which never reaches the model.
    for _ in 0..250 {
        agent.prompt(&session, "/jobs").await;
        if agent.agent_text().contains("bg2  exited with code 0") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "and now?").await;
    let next = mock.requests().last().unwrap().body["messages"].to_string();
    assert!(
        next.contains("Background job bg2 (`echo go; sleep 0.4; exit 0`) exited with code 0."),
        "{next}"
    );
    // `/jobs` lists both, answered without the model.
    let before = mock.requests().len();
    agent.prompt(&session, "/jobs").await;
    assert_eq!(mock.requests().len(), before);
    let text = agent.agent_text();
    assert!(
        text.contains(
            "bg1  exited with code 3  `echo $$ > job.pid; echo started; sleep 0.3; echo finished-job; exit 3`"
        ),
        "{text}"
    );
    assert!(
        text.contains("bg2  exited with code 0  `echo go; sleep 0.4; exit 0`"),
        "{text}"
    );
}

/// A session with a job `sleep <secs>` running (the number marks its process).
async fn with_sleeping_job(secs: u32) -> (MockLlm, TestEnv, AcpProcess, String) {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    script(
        &mock,
        &[("bash", bash(&format!("exec sleep {secs}"), true))],
    );
    agent.prompt(&session, "start it").await;
    assert!(alive(&format!("sleep {secs}")), "the job runs");
    (mock, env, agent, session)
}

#[tokio::test]
async fn jobs_end_with_the_session_with_stdin_and_with_a_sigkill() {
    let (_mock, _env, mut agent, session) = with_sleeping_job(3101).await;
    agent
        .request("session/close", json!({"sessionId": session}))
        .await;
    assert!(
        gone("sleep 3101").await,
        "closing the session ended its job"
    );

    let (_mock, _env, agent, _session) = with_sleeping_job(3102).await;
    agent.shutdown().await;
    assert!(gone("sleep 3102").await, "closing stdin ended the job");

    let (_mock, _env, mut agent, _session) = with_sleeping_job(3103).await;
    agent.child.start_kill().unwrap();
    let _ = agent.child.wait().await;
    assert!(
        gone("sleep 3103").await,
        "the watchdog ended the job after SIGKILL"
    );
}

#[tokio::test]
async fn a_cancelled_turn_leaves_jobs_running_and_says_so_and_jobs_kill_ends_one() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_tool_call(
        "c1",
        "bash",
        &[&bash("exec sleep 3104", true)],
    ));
    mock.push(openai_tool_call("c2", "bash", &[&bash("sleep 30", false)]));
    let prompt = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}),
        )
        .await;
    agent
        .wait_for_update(|u| {
            u["update"]["toolCallId"] == "c2" && u["update"]["status"] == "in_progress"
        })
        .await;
    agent
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    let response = agent.response(prompt).await;
    assert_eq!(response["result"]["stopReason"], "cancelled");
    assert!(
        agent
            .agent_text()
            .contains("Still running in the background: bg1 `exec sleep 3104`."),
        "{}",
        agent.agent_text()
    );
    assert!(alive("sleep 3104"));
    agent.prompt(&session, "/jobs kill bg1").await;
    assert!(
        agent
            .agent_text()
            .contains("Ended job bg1 (`exec sleep 3104`).")
    );
    assert!(gone("sleep 3104").await);
}

#[tokio::test]
async fn the_job_limit_is_kept_and_the_rules_and_sandbox_still_hold() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let outside = env.root.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["background_jobs"] = json!(2);
    // Only the sandbox stands between the job and a folder outside the project.
    config["permission"] = json!({"bash": {"*": "allow", "rm *": "deny"},
                                  "external_directory": "allow"});
    env.write_project_config(&config);
    // The temp dir the sandbox lets commands write is this test's own, not all of /tmp.
    let tmp = env.root.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut agent = env.spawn_with(&[("TMPDIR", tmp.to_str().unwrap())]);
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let escape = format!("echo hi > {}/bg.txt", outside.display());
    script(
        &mock,
        &[
            ("bash", bash("exec sleep 3105", true)),
            ("bash", bash("exec sleep 3106", true)),
            ("bash", bash("exec sleep 3107", true)),
            ("bash", bash("rm -rf src", true)),
        ],
    );
    agent.prompt(&session, "go").await;
    let told = results(&mock, 0, 4);
    assert!(
        told[2].contains("This session already runs 2 background jobs, its limit."),
        "{}",
        told[2]
    );
    assert!(!alive("sleep 3107"));
    assert!(told[3].contains("deny"), "{}", told[3]);

    agent.prompt(&session, "/jobs kill bg1").await;
    let before = mock.requests().len();
    script(
        &mock,
        &[
            ("bash", bash(&escape, true)),
            ("bash", bash("sleep 0.5", false)),
            ("bash_output", json!({"id": "bg3"}).to_string()),
        ],
    );
    agent.prompt(&session, "escape").await;
    let told = results(&mock, before, 3);
    assert!(told[2].contains("has exited with code 1"), "{}", told[2]);
    assert!(
        !outside.join("bg.txt").exists(),
        "the sandbox held the background job"
    );
    agent.shutdown().await;
    assert!(gone("sleep 3106").await);
}

#[tokio::test]
async fn in_an_editor_with_terminals_the_job_runs_in_one_attached_to_the_call() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let mut agent = env.spawn();
    agent.editor = Some(Default::default());
    agent.initialize_with(json!({"terminal": true})).await;
    let session = agent.new_session(&env.project).await;
    script(
        &mock,
        &[
            ("bash", bash("echo from-terminal; exit 4", true)),
            ("bash_output", json!({"id": "bg1"}).to_string()),
        ],
    );
    agent.prompt(&session, "go").await;
    let started = crate::support::call_updates(&agent, "call_0");
    assert!(
        started
            .iter()
            .any(|u| u["content"][0] == json!({"type": "terminal", "terminalId": "term-1"})),
        "{started:?}"
    );
    let told = results(&mock, 0, 2);
    assert!(told[1].contains("from-terminal"), "{}", told[1]);
    assert!(told[1].contains("has exited with code 4"), "{}", told[1]);
}

#[tokio::test]
async fn a_subagents_jobs_end_with_its_task() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_tool_call(
        "call_task",
        "task",
        &[
            &json!({"description": "Serve", "prompt": "Start the server",
                  "subagent_type": "general"})
            .to_string(),
        ],
    ));
    mock.push_for(
        "Start the server",
        openai_tool_call("c_bg", "bash", &[&bash("exec sleep 3108", true)]),
    );
    mock.push(openai_text(&["Started it."], "stop"));
    mock.push(openai_text(&["done"], "stop"));
    let response = agent.prompt(&session, "delegate").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    assert!(
        gone("sleep 3108").await,
        "the child's job ended with its task"
    );
    let messages = mock.requests()[3].body["messages"].clone();
    let result = messages.as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        result.contains(
            "(The subagent's background jobs ended with its task: bg1 `exec sleep 3108`.)"
        ),
        "{result}"
    );
}

#[tokio::test]
async fn processes_that_leave_their_group_end_with_the_session_with_stdin_and_with_a_sigkill() {
    for (n, ending) in ["close", "stdin", "sigkill"].into_iter().enumerate() {
        let (a, b) = (3201 + 2 * n, 3202 + 2 * n);
        let (mock, _env, mut agent, session) =
            crate::support::start_with("openai", json!({"permission": {"bash": "allow"}})).await;
        // One leaves its session (setsid), one its group (job control); the command ends.
        let line = format!(
            "setsid sleep {a} </dev/null >/dev/null 2>&1 & set -m; sleep {b} </dev/null >/dev/null 2>&1 & echo started"
        );
        script(&mock, &[("bash", bash(&line, false))]);
        agent.prompt(&session, "start them").await;
        let (a, b) = (format!("sleep {a}"), format!("sleep {b}"));
        assert!(
            alive(&a) && alive(&b),
            "both outlived their command's group"
        );
        // Found by the sweep (once a second), and told to the watchdog.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        match ending {
            "close" => {
                agent
                    .request("session/close", json!({"sessionId": session}))
                    .await;
            }
            "stdin" => {
                agent.shutdown().await;
            }
            _ => {
                agent.child.start_kill().unwrap();
                let _ = agent.child.wait().await;
            }
        }
        assert!(gone(&a).await, "{ending}: `{a}` outlived it");
        assert!(gone(&b).await, "{ending}: `{b}` outlived it");
    }
}
