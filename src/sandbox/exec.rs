//! `tandem sandbox-exec`: what the editor's terminal runs for a sandboxed command. It takes the
//! policy on, then becomes the shell, so a command shown live in the editor's terminal is held
//! by the same sandbox as one Tandem runs itself.

use std::os::unix::process::CommandExt;
use std::process::ExitCode;

use super::{Policy, Prepared};

/// The program and arguments the editor's terminal runs for `shell -c command` under `policy`.
pub fn terminal_command(
    policy: &Policy,
    shell: &str,
    command: &str,
) -> Option<(String, Vec<String>)> {
    let tandem = std::env::current_exe().ok()?;
    let policy = serde_json::to_string(policy).ok()?;
    let args = [
        "sandbox-exec",
        "--policy",
        &policy,
        "--",
        shell,
        "-c",
        command,
    ];
    Some((
        tandem.display().to_string(),
        args.iter().map(|a| (*a).to_owned()).collect(),
    ))
}

/// Takes `policy` (JSON) on and execs `command`; returns only when that fails (exit 126, as a
/// shell does for a command it cannot run).
#[allow(clippy::print_stderr)] // Runs in the editor's terminal: stderr is what the person sees.
pub fn run(policy: &str, command: &[String]) -> ExitCode {
    let result = (|| -> Result<std::io::Error, String> {
        let policy: Policy =
            serde_json::from_str(policy).map_err(|e| format!("unreadable sandbox policy: {e}"))?;
        let (program, args) = command.split_first().ok_or("no command to run")?;
        let prepared =
            Prepared::new(&policy).map_err(|e| format!("cannot set up the sandbox: {e}"))?;
        prepared
            .restrict_this_process()
            .map_err(|e| format!("cannot enter the sandbox: {e}"))?;
        Ok(std::process::Command::new(program).args(args).exec())
    })();
    match result {
        Ok(error) => eprintln!(
            "tandem sandbox-exec: cannot run {}: {error}",
            command.join(" ")
        ),
        Err(error) => eprintln!("tandem sandbox-exec: {error}"),
    }
    ExitCode::from(126)
}
