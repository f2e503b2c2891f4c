//! An ACP agent for Tandem's tests of external subagents, built on the ACP SDK's agent side,
//! over stdio. Each prompt runs the steps listed in `ACP_TEST_STEPS` (separated by `;`) and
//! reports what each came to as a line of text:
//! `write:<path>` (`fs/write_text_file`), `own:<path>` (written by the agent itself, as its own
//! tools would), `read:<path>` (`fs/read_text_file`), `ask:<command>`
//! (`session/request_permission` for an `execute` call), `run:<command>` (`terminal/*`, the
//! command's words split on spaces), `plan`, `usage` (a `usage_update` costing $0.25), `crash` (stderr, then exit 3),
//! `hang` (never answers, ignoring `session/cancel`), `mcp` (the names of the MCP servers its
//! session was given), `elicit` (an `elicitation/create` form: a colour to choose and a yes or
//! no, its answer reported as JSON), `heard` (whether the prompt began with the conversation
//! handed over: `heard: history: <the person's lines in it>`, with ` | plan: <its todo lines>`
//! when it has any, or `heard: <the prompt>`),
//! `limit` (the prompt fails as a usage limit does: "429 Too Many Requests"), `chunks:N` (N
//! one-word message chunks, as fast as it can), `settings` (its mode and model). Its sessions
//! offer modes `ask` and `yolo`, a `model` option (`fast`, `smart`) and the commands
//! `/compact` and `/hello`. A prompt holding a line
//! `steps: ...` runs those steps instead (unless `ACP_TEST_ONLY_ENV=1`). `ACP_TEST_MUTE=1` never
//! answers `initialize`.
#![allow(clippy::print_stdout)]

use std::sync::Mutex;
use std::time::Duration;

/// The MCP servers the last `session/new` gave.
static MCP_SERVERS: Mutex<Vec<String>> = Mutex::new(Vec::new());

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, AvailableCommand, AvailableCommandsUpdate, ContentBlock, ContentChunk, Cost,
    CreateTerminalRequest, CurrentModeUpdate, InitializeRequest, InitializeResponse,
    NewSessionRequest, NewSessionResponse, PermissionOption, PermissionOptionKind, Plan, PlanEntry,
    PlanEntryPriority, PlanEntryStatus, PromptRequest, PromptResponse, ReadTextFileRequest,
    ReleaseTerminalRequest, RequestPermissionOutcome, RequestPermissionRequest,
    SessionConfigOption, SessionConfigOptionCategory, SessionConfigSelectOption, SessionId,
    SessionMode, SessionModeState, SessionNotification, SessionUpdate,
    SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, SetSessionModeRequest,
    SetSessionModeResponse, StopReason, TerminalOutputRequest, ToolCall, ToolCallStatus,
    ToolCallUpdate, ToolCallUpdateFields, ToolKind, UsageUpdate, WaitForTerminalExitRequest,
    WriteTextFileRequest,
};
use agent_client_protocol::{Agent, Client, Error, Stdio};

fn say(cx: &ConnectionTo<Client>, session: &SessionId, text: String) -> Result<(), Error> {
    cx.send_notification(SessionNotification::new(
        session.clone(),
        SessionUpdate::AgentMessageChunk(ContentChunk::new(ContentBlock::from(format!(
            "{text}\n"
        )))),
    ))
}

fn update(cx: &ConnectionTo<Client>, session: &SessionId, update: SessionUpdate) {
    let _ = cx.send_notification(SessionNotification::new(session.clone(), update));
}

/// Runs one step; its report.
async fn step(cx: &ConnectionTo<Client>, session: &SessionId, step: &str, prompt: &str) -> String {
    let (verb, arg) = step.split_once(':').unwrap_or((step, ""));
    match verb {
        "heard" if prompt.starts_with("This conversation began before you could see it") => {
            let said: Vec<&str> = prompt
                .lines()
                .filter(|l| l.starts_with("The person: "))
                .collect();
            let plan: Vec<&str> = prompt.lines().filter(|l| l.starts_with("- [")).collect();
            match plan.is_empty() {
                true => format!("heard: history: {}", said.join(" | ")),
                false => format!(
                    "heard: history: {} | plan: {}",
                    said.join(" | "),
                    plan.join(" | ")
                ),
            }
        }
        "heard" => format!("heard: {prompt}"),
        "chunks" => {
            // As fast as it can: `arg` chunks of one word each.
            let n: usize = arg.parse().unwrap_or(1);
            for _ in 0..n {
                update(
                    cx,
                    session,
                    SessionUpdate::AgentMessageChunk(ContentChunk::new(ContentBlock::from(
                        "word ".to_owned(),
                    ))),
                );
            }
            format!("chunks: {n}")
        }
        "write" => match cx
            .send_request(WriteTextFileRequest::new(
                session.clone(),
                arg,
                "written by the test agent\n",
            ))
            .block_task()
            .await
        {
            Ok(_) => format!("write {arg}: done"),
            Err(e) => format!("write {arg}: refused: {}", e.message),
        },
        "own" => match std::fs::write(arg, "written by the agent itself\n") {
            Ok(()) => format!("own {arg}: done"),
            Err(e) => format!("own {arg}: refused: {e}"),
        },
        "read" => match cx
            .send_request(ReadTextFileRequest::new(session.clone(), arg))
            .block_task()
            .await
        {
            Ok(read) => format!("read {arg}: {}", read.content.trim_end()),
            Err(e) => format!("read {arg}: refused: {}", e.message),
        },
        "ask" => ask(cx, session, arg).await,
        "run" => run(cx, session, arg).await,
        "plan" => {
            update(
                cx,
                session,
                SessionUpdate::Plan(Plan::new(vec![
                    PlanEntry::new(
                        "look around",
                        PlanEntryPriority::High,
                        PlanEntryStatus::Completed,
                    ),
                    PlanEntry::new(
                        "report",
                        PlanEntryPriority::Medium,
                        PlanEntryStatus::Pending,
                    ),
                ])),
            );
            "plan: sent".into()
        }
        "usage" => {
            update(
                cx,
                session,
                SessionUpdate::UsageUpdate(
                    UsageUpdate::new(1200, 200_000).cost(Cost::new(0.25, "USD")),
                ),
            );
            "usage: sent".into()
        }
        "crash" => {
            eprintln!("boom: the test agent broke on purpose");
            tokio::time::sleep(Duration::from_millis(100)).await;
            std::process::exit(3);
        }
        "hang" => std::future::pending().await,
        "mcp" => format!("mcp: {}", MCP_SERVERS.lock().unwrap().join(",")),
        "elicit" => elicit(cx, session).await,
        "settings" => format!(
            "settings: mode {}, model {}",
            MODE.lock().unwrap(),
            MODEL.lock().unwrap()
        ),
        other => format!("unknown step {other}"),
    }
}

/// A form with a choice and a flag; the client's answer as JSON.
async fn elicit(cx: &ConnectionTo<Client>, session: &SessionId) -> String {
    use agent_client_protocol::v1::schema::{
        BooleanPropertySchema, CreateElicitationRequest, ElicitationFormMode, ElicitationSchema,
        ElicitationSessionScope, EnumOption, StringPropertySchema,
    };
    let schema = ElicitationSchema::new()
        .property(
            "color",
            StringPropertySchema::new()
                .title("Colour")
                .description("Which colour?")
                .one_of(vec![
                    EnumOption::new("red", "Red"),
                    EnumOption::new("blue", "Blue"),
                ]),
            true,
        )
        .property("sure", BooleanPropertySchema::new().title("Sure"), true);
    let form = CreateElicitationRequest::new(
        ElicitationFormMode::new(ElicitationSessionScope::new(session.clone()), schema),
        "Pick a colour",
    );
    match cx.send_request(form).block_task().await {
        Ok(answer) => format!("elicit: {}", serde_json::to_string(&answer).unwrap()),
        Err(e) => format!("elicit: error {}", e.message),
    }
}

/// A permission question about running `command`, shown as a call first.
async fn ask(cx: &ConnectionTo<Client>, session: &SessionId, command: &str) -> String {
    let raw = serde_json::json!({"command": command});
    update(
        cx,
        session,
        SessionUpdate::ToolCall(
            ToolCall::new("run-1", format!("Run {command}"))
                .kind(ToolKind::Execute)
                .raw_input(raw.clone()),
        ),
    );
    let request = RequestPermissionRequest::new(
        session.clone(),
        ToolCallUpdate::new(
            "run-1",
            ToolCallUpdateFields::new()
                .kind(ToolKind::Execute)
                .title(format!("Run {command}"))
                .raw_input(raw),
        ),
        vec![
            PermissionOption::new("yes", "Allow", PermissionOptionKind::AllowOnce),
            PermissionOption::new("no", "Reject", PermissionOptionKind::RejectOnce),
        ],
    );
    let answer = match cx.send_request(request).block_task().await {
        Ok(response) => match response.outcome {
            RequestPermissionOutcome::Selected(chosen) => chosen.option_id.to_string(),
            _ => "cancelled".into(),
        },
        Err(e) => format!("error {}", e.message),
    };
    let status = if answer == "yes" {
        ToolCallStatus::Completed
    } else {
        ToolCallStatus::Failed
    };
    update(
        cx,
        session,
        SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
            "run-1",
            ToolCallUpdateFields::new().status(status),
        )),
    );
    format!("ask {command}: {answer}")
}

/// Runs `command` in a client terminal; what it printed and how it ended.
async fn run(cx: &ConnectionTo<Client>, session: &SessionId, command: &str) -> String {
    let mut words = command.split(' ').map(str::to_owned);
    let program = words.next().unwrap_or_default();
    let created = cx
        .send_request(CreateTerminalRequest::new(session.clone(), program).args(words.collect()))
        .block_task()
        .await;
    let id = match created {
        Ok(created) => created.terminal_id,
        Err(e) => return format!("run {command}: refused: {}", e.message),
    };
    let exit = cx
        .send_request(WaitForTerminalExitRequest::new(session.clone(), id.clone()))
        .block_task()
        .await;
    let output = cx
        .send_request(TerminalOutputRequest::new(session.clone(), id.clone()))
        .block_task()
        .await;
    let _ = cx
        .send_request(ReleaseTerminalRequest::new(session.clone(), id))
        .block_task()
        .await;
    match (exit, output) {
        (Ok(exit), Ok(output)) => format!(
            "run {command}: exit {:?}, output {:?}",
            exit.exit_status.exit_code,
            output.output.trim_end()
        ),
        (Err(e), _) | (_, Err(e)) => format!("run {command}: failed: {}", e.message),
    }
}

/// The mode and model the session is in (`session/set_mode`, the `model` option).
static MODE: Mutex<String> = Mutex::new(String::new());
static MODEL: Mutex<String> = Mutex::new(String::new());

/// Its modes: `ask` (the default) and `yolo`.
fn offered_modes() -> SessionModeState {
    let mut mode = MODE.lock().unwrap();
    if mode.is_empty() {
        *mode = "ask".into();
    }
    SessionModeState::new(
        mode.clone(),
        vec![
            SessionMode::new("ask", "Ask").description("Asks before it acts".to_owned()),
            SessionMode::new("yolo", "Yolo"),
        ],
    )
}

/// Its one config option: the model, `fast` (the default) or `smart`.
fn offered_options() -> Vec<SessionConfigOption> {
    let mut model = MODEL.lock().unwrap();
    if model.is_empty() {
        *model = "fast".into();
    }
    vec![
        SessionConfigOption::select(
            "model",
            "Model",
            model.clone(),
            vec![
                SessionConfigSelectOption::new("fast", "Fast"),
                SessionConfigSelectOption::new("smart", "Smart"),
            ],
        )
        .category(SessionConfigOptionCategory::Model),
    ]
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    let mute = std::env::var("ACP_TEST_MUTE").is_ok_and(|v| v == "1");
    let steps = std::env::var("ACP_TEST_STEPS").unwrap_or_default();
    let only_env = std::env::var("ACP_TEST_ONLY_ENV").is_ok_and(|v| v == "1");
    eprintln!("the test agent starts");
    Agent
        .v1()
        .name("acp-test-agent")
        .on_receive_request(
            async move |init: InitializeRequest, responder, _cx| {
                if mute {
                    std::future::pending::<()>().await;
                }
                responder.respond(
                    InitializeResponse::new(init.protocol_version)
                        .agent_capabilities(AgentCapabilities::new()),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |new: NewSessionRequest, responder, cx: ConnectionTo<Client>| {
                *MCP_SERVERS.lock().unwrap() = new
                    .mcp_servers
                    .iter()
                    .map(|s| match s {
                        agent_client_protocol::v1::schema::McpServer::Stdio(s) => s.name.clone(),
                        agent_client_protocol::v1::schema::McpServer::Http(s) => s.name.clone(),
                        agent_client_protocol::v1::schema::McpServer::Sse(s) => s.name.clone(),
                        _ => "other".into(),
                    })
                    .collect();
                let offered = NewSessionResponse::new("test-session-1")
                    .modes(offered_modes())
                    .config_options(offered_options());
                responder.respond(offered)?;
                // Its commands follow the answer, as the first-party adapters send them.
                update(
                    &cx,
                    &SessionId::new("test-session-1"),
                    SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(vec![
                        AvailableCommand::new("compact", "The test agent's own compaction"),
                        AvailableCommand::new("hello", "Says hello"),
                    ])),
                );
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |set: SetSessionModeRequest, responder, cx: ConnectionTo<Client>| {
                *MODE.lock().unwrap() = set.mode_id.0.to_string();
                responder.respond(SetSessionModeResponse::new())?;
                update(
                    &cx,
                    &set.session_id,
                    SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(set.mode_id)),
                );
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |set: SetSessionConfigOptionRequest, responder, _cx| {
                if let Some(value) = set.value.as_value_id() {
                    *MODEL.lock().unwrap() = value.0.to_string();
                }
                responder.respond(SetSessionConfigOptionResponse::new(offered_options()))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |prompt: PromptRequest, responder, cx: ConnectionTo<Client>| {
                let text: String = (prompt.prompt.iter())
                    .filter_map(|block| match block {
                        ContentBlock::Text(text) => Some(text.text.clone()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                let steps = (text.lines().rev())
                    .find_map(|line| line.strip_prefix("steps:"))
                    .filter(|_| !only_env)
                    .map(|s| s.trim().to_owned())
                    .unwrap_or_else(|| steps.clone());
                cx.clone().spawn(async move {
                    let session = prompt.session_id;
                    for one in steps.split(';').filter(|s| !s.is_empty()) {
                        if one == "limit" {
                            return responder.respond_with_error(Error::new(
                                -32603,
                                "429 Too Many Requests: you have hit your usage limit; it \
                                 resets in 5 hours",
                            ));
                        }
                        let report = step(&cx, &session, one, &text).await;
                        say(&cx, &session, report)?;
                    }
                    responder.respond(PromptResponse::new(StopReason::EndTurn))
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_to(Stdio::new())
        .await
}
