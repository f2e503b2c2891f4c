//! Permission questions in `tandem run`: asked at the terminal (`y`es / `a`lways / `n`o, one
//! question at a time), or answered by the `--approve` / `--deny` policy for scripts.

use std::io::{BufRead as _, Write as _};
use std::sync::Arc;

use futures::future::BoxFuture;

use super::spinner::Spinner;
use crate::tool::question::{QuestionReply, QuestionRequest};
use crate::tool::{ClientPort, PermissionDecision, PermissionRequest, TerminalPort};

/// Who answers: the person at the terminal, or a fixed policy.
pub enum Answerer {
    Terminal {
        spinner: Option<Spinner>,
        /// One question on the screen at a time.
        asking: Arc<tokio::sync::Mutex<()>>,
    },
    Policy(PermissionDecision),
}

pub struct RunPort {
    pub answerer: Answerer,
    pub questions: super::question::Questions,
}

impl TerminalPort for RunPort {}

impl ClientPort for RunPort {
    fn ask_questions(&self, request: QuestionRequest) -> BoxFuture<'_, QuestionReply> {
        Box::pin(self.questions.ask(request.questions))
    }

    fn request_permission(&self, request: PermissionRequest) -> BoxFuture<'_, PermissionDecision> {
        Box::pin(async move {
            match &self.answerer {
                // What a folder brings is trusted by the person only, never by a policy.
                Answerer::Policy(_) if request.permission == crate::trust::WORKSPACE_TRUST => {
                    eprintln!(
                        "tandem: this folder is not trusted, so nothing it brings runs: trust it with `tandem trust` or `tandem run --trust`\n{}",
                        request.title
                    );
                    PermissionDecision::RejectOnce
                }
                Answerer::Policy(decision) => {
                    if !decision.allows() {
                        eprintln!(
                            "tandem: refused {} ({}); pass --approve to allow such requests",
                            request.title, request.permission
                        );
                    }
                    *decision
                }
                Answerer::Terminal { spinner, asking } => {
                    let answer = move || ask(&request);
                    super::terminal::at_terminal(spinner.as_ref(), asking, answer)
                        .await
                        .unwrap_or(PermissionDecision::Cancelled)
                }
            }
        })
    }
}

/// Shows the question on the terminal and reads the answer from it (never from stdin, which
/// may carry the prompt). No terminal, or end of input, is a refusal.
fn ask(request: &PermissionRequest) -> PermissionDecision {
    let Ok(tty) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
    else {
        return PermissionDecision::RejectOnce;
    };
    let mut writer = match tty.try_clone() {
        Ok(w) => w,
        Err(_) => return PermissionDecision::RejectOnce,
    };
    let mut reader = std::io::BufReader::new(tty);
    let _ = writeln!(
        writer,
        "\n? {} wants permission: {}",
        request.tool, request.title
    );
    loop {
        let _ = write!(writer, "  Allow? [y]es / [a]lways / [n]o: ");
        let _ = writer.flush();
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return PermissionDecision::RejectOnce,
            Ok(_) => {}
        }
        match line.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => return PermissionDecision::AllowOnce,
            "a" | "always" => return PermissionDecision::AllowAlways,
            "n" | "no" => return PermissionDecision::RejectOnce,
            _ => {
                let _ = writeln!(writer, "  Please answer y, a or n.");
            }
        }
    }
}
