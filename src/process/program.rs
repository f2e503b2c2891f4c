//! Starting a program (not a shell line: language servers, formatters, custom tools) as `bash`
//! starts its commands: piped, in a process group of their own that dies with Tandem, and in a
//! sandbox when one is asked for.

use std::path::Path;
use std::process::Stdio;

use crate::sandbox::Policy;

/// Starts `command` (its program, arguments and environment set) in `cwd`, confined by
/// `sandbox` unless that is off; an error says why it did not start.
pub fn start(
    mut command: tokio::process::Command,
    cwd: &Path,
    stdin: Stdio,
    sandbox: Option<&Policy>,
) -> Result<tokio::process::Child, String> {
    command
        .current_dir(cwd)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    super::groups::die_with_parent(&mut command);
    // Kept until the child has started: it takes the ruleset on before it execs.
    let prepared = match sandbox.filter(|policy| !policy.is_off()) {
        Some(policy) => crate::sandbox::prepare(policy)
            .map_err(|why| format!("it cannot be sandboxed: {why}"))?,
        None => None,
    };
    if let Some(prepared) = &prepared {
        prepared.apply(&mut command);
    }
    let program = command
        .as_std()
        .get_program()
        .to_string_lossy()
        .into_owned();
    command
        .spawn()
        .map_err(|e| format!("cannot start `{program}`: {e}"))
}
