//! `tandem run`: one prompt, headless, for people and scripts. Opens (or continues) a session
//! in the store as an editor would, runs the turn, renders what the editor would see, asks
//! permission at the terminal or by policy, and cancels cleanly on Ctrl-C (exit 130).

mod ask;
mod question;
mod render;
mod spinner;
mod terminal;

use std::io::{IsTerminal as _, Read as _};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;

use crate::bus::Bus;
use crate::id::SessionId;
use crate::message::PartBody;
use crate::provider::resolve::default_model_name;
use crate::session::{SessionManager, StopReason};
use crate::store::Store;
use crate::tool::PermissionDecision;
use crate::{paths, provider};

use ask::{Answerer, RunPort};
use spinner::Spinner;

/// The exit status of a turn cancelled by Ctrl-C, as shells report SIGINT.
pub const EXIT_INTERRUPTED: u8 = 130;

/// How `tandem run` shows the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Readable text.
    Text,
    /// The exact `session/update` JSON-RPC lines an editor would receive.
    Json,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The project directory (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Another folder of the workspace, a root like the project (repeat for more); with a
    /// continued session, these replace the roots it had.
    #[arg(long = "add-dir", value_name = "DIR")]
    pub add_dir: Vec<PathBuf>,
    /// The model, `provider/model`. Without one and without any key, the scripted demo runs.
    #[arg(long, short)]
    pub model: Option<String>,
    /// The primary agent (mode) for the turn, e.g. build or plan.
    #[arg(long)]
    pub agent: Option<String>,
    /// How hard the model thinks: one of its variants (e.g. low, medium, high), or default.
    #[arg(long)]
    pub variant: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Continue this stored session instead of starting a new one.
    #[arg(long, short, conflicts_with = "continue_last")]
    pub session: Option<String>,
    /// Continue the most recent session of this project.
    #[arg(long = "continue", short = 'c')]
    pub continue_last: bool,
    /// Without a value (or `--approve=all`): allow every permission request without asking (for
    /// scripts). `--approve=edits`, `=full` or `=read-only` set the session's approval level
    /// instead (accept edits, full access, read-only); what that level leaves is still asked.
    #[arg(
        long,
        alias = "allow-all",
        conflicts_with = "deny",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "all",
        value_enum,
        value_name = "LEVEL"
    )]
    pub approve: Option<RunApproval>,
    /// Refuse every permission request without asking (the default without a terminal).
    #[arg(long)]
    pub deny: bool,
    /// Trust the folder as it is for this run: the programs its files bring may run (without
    /// it, an untrusted folder is asked about at the terminal, or left off).
    #[arg(long)]
    pub trust: bool,
    /// How the agent's questions are answered without asking: `first` picks each question's
    /// first option, `decline` declines them (the default without a terminal).
    #[arg(long, value_enum)]
    pub answer: Option<question::AnswerRule>,
    /// The most this session may spend (`limits.session_cost`), e.g. 0.50.
    #[arg(long, value_name = "AMOUNT")]
    pub max_cost: Option<f64>,
    /// A model tried when the chosen one keeps failing (`fallback`); repeat for a chain, tried
    /// in order.
    #[arg(long, value_name = "PROVIDER/MODEL")]
    pub fallback: Vec<String>,
    /// The prompt; without one (or with `-`) it is read from stdin.
    #[arg(trailing_var_arg = true)]
    pub prompt: Vec<String>,
}

/// What `--approve` lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RunApproval {
    /// Every permission request, without asking.
    All,
    /// The accept-edits level.
    Edits,
    /// The full-access level.
    Full,
    /// The read-only level.
    ReadOnly,
}

impl RunApproval {
    /// The session's approval level this sets, if any (`all` answers every request instead).
    fn level(self) -> Option<crate::permission::approval::Approval> {
        use crate::permission::approval::Approval;
        match self {
            RunApproval::All => None,
            RunApproval::Edits => Some(Approval::AcceptEdits),
            RunApproval::Full => Some(Approval::FullAccess),
            RunApproval::ReadOnly => Some(Approval::ReadOnly),
        }
    }
}

/// Runs the turn; the exit status is 0, or 130 when Ctrl-C cancelled it.
pub async fn run(args: RunArgs) -> anyhow::Result<u8> {
    let prompt = prompt_text(&args.prompt)?;
    let cwd = match &args.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let cwd = std::fs::canonicalize(&cwd)
        .with_context(|| format!("cannot open the project directory {}", cwd.display()))?;
    if args.trust {
        crate::trust::record(&crate::trust::assess(&cwd), true, false);
    }
    crate::config::set_command_line(command_line_settings(&args));
    let store = Arc::new(Store::open_in(&paths::data_dir())?);
    let bus = Bus::new();
    let manager = SessionManager::new(store.clone(), bus.clone());
    let (id, model) = open_session(&args, &cwd, &manager, &store)?;
    if let Some(agent) = &args.agent {
        manager.set_mode(&id, agent)?;
    }
    if let Some(variant) = &args.variant {
        manager.choose_variant(&id, variant)?;
    }
    if let Some(level) = args.approve.and_then(RunApproval::level) {
        manager.choose_approval(&id, level.id())?;
    }

    let format = args.format;
    let colour = std::io::stdout().is_terminal();
    let spinner =
        (format == Format::Text && std::io::stderr().is_terminal()).then(Spinner::default);
    let _subscription = bus.subscribe({
        let spinner = spinner.clone();
        move |event| render::render(format, colour, spinner.as_ref(), event)
    });
    let port = run_port(&args, spinner.as_ref());
    eprintln!("tandem: session {id} with {model}");
    let drawing = spinner.as_ref().map(Spinner::start);
    let turn = manager.prompt(
        &id,
        vec![PartBody::Text {
            text: prompt,
            synthetic: false,
        }],
        Arc::new(port),
    );
    tokio::pin!(turn);
    let mut interrupted = false;
    let stop = loop {
        tokio::select! {
            stop = &mut turn => break stop,
            _ = tokio::signal::ctrl_c(), if !interrupted => {
                interrupted = true;
                if let Some(s) = &spinner { s.clear(); }
                eprintln!("\ntandem: cancelling the turn…");
                manager.cancel(&id);
            }
        }
    };
    if let Some(drawing) = drawing {
        drawing.abort();
    }
    if let Some(spinner) = &spinner {
        spinner.pause(true);
    }
    let stop = stop?;
    manager.end().await?;
    render::finish(format, stop);
    Ok(if interrupted || stop == StopReason::Cancelled {
        EXIT_INTERRUPTED
    } else {
        0
    })
}

/// What `--max-cost` and `--fallback` set, in the config's shape.
fn command_line_settings(args: &RunArgs) -> serde_json::Value {
    let mut settings = serde_json::json!({});
    if let Some(cost) = args.max_cost {
        settings["limits"] = serde_json::json!({"session_cost": cost});
    }
    if !args.fallback.is_empty() {
        settings["fallback"] = serde_json::json!(args.fallback);
    }
    settings
}

/// The prompt from the arguments, or from stdin when there are none (or just `-`).
fn prompt_text(words: &[String]) -> anyhow::Result<String> {
    let from_stdin = words.is_empty() || words == ["-"];
    let text = if from_stdin {
        if std::io::stdin().is_terminal() {
            anyhow::bail!("no prompt: give it as arguments, or pipe it on stdin");
        }
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the prompt from stdin")?;
        text
    } else {
        words.join(" ")
    };
    if text.trim().is_empty() {
        anyhow::bail!("the prompt is empty");
    }
    Ok(text)
}

/// Whether a controlling terminal can be asked even though stdin is a pipe.
/// Who answers permission requests and the agent's questions: the terminal, or the flags.
fn run_port(args: &RunArgs, spinner: Option<&Spinner>) -> RunPort {
    let asking = Arc::new(tokio::sync::Mutex::new(()));
    let questions = if args.answer.is_none() && has_tty() {
        question::Questions::Terminal {
            spinner: spinner.cloned(),
            asking: asking.clone(),
        }
    } else {
        question::Questions::Rule(args.answer)
    };
    let answerer = if args.approve == Some(RunApproval::All) {
        Answerer::Policy(PermissionDecision::AllowOnce)
    } else if args.deny || !std::io::stdin().is_terminal() && !has_tty() {
        Answerer::Policy(PermissionDecision::RejectOnce)
    } else {
        Answerer::Terminal {
            spinner: spinner.cloned(),
            asking,
        }
    };
    RunPort {
        answerer,
        questions,
    }
}

fn has_tty() -> bool {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .is_ok()
}

/// The session to run in (new, `--session`, or `--continue`) with its model set.
fn open_session(
    args: &RunArgs,
    cwd: &std::path::Path,
    manager: &SessionManager,
    store: &Store,
) -> anyhow::Result<(SessionId, String)> {
    let config = crate::trust::load(cwd)?;
    let existing = match (&args.session, args.continue_last) {
        (Some(id), _) => Some(SessionId::from(id.as_str())),
        (None, true) => Some(
            store
                .list_sessions(Some(cwd), None, 1)?
                .sessions
                .into_iter()
                .next()
                .map(|s| s.id)
                .ok_or_else(|| anyhow::anyhow!("no session to continue in {}", cwd.display()))?,
        ),
        (None, false) => None,
    };
    let here = std::env::current_dir()?;
    let roots: Vec<PathBuf> = args.add_dir.iter().map(|d| here.join(d)).collect();
    let id = match existing {
        Some(id) => {
            let given = (!roots.is_empty()).then_some(roots.as_slice());
            manager.open(&id, given, Vec::new())?;
            if args.model.is_none()
                && let Some(model) = store.session_choice(&id)?.model
            {
                return Ok((id, model));
            }
            id
        }
        None => manager.create(cwd, &roots, Vec::new())?.id,
    };
    let model = match &args.model {
        Some(model) => model.clone(),
        None => default_model_name(&config).unwrap_or_else(|| {
            eprintln!(
                "tandem: no model configured and no API key set; using the scripted demo model \
                 (no network). Run `tandem auth login`, or see the README to configure a model."
            );
            "scripted/demo".to_owned()
        }),
    };
    let resolved = provider::resolve(&config, Some(&model))?;
    manager.set_model(&id, model.clone())?;
    Ok((id, resolved.display_name))
}
