//! Which sandbox a `bash` call runs in: the session's, or none when the model asked to run
//! outside it and the person agreed (`sandbox_escape`, "always" kept for that command line in
//! this project); where the platform has none, the command runs as before unless the config
//! requires a sandbox.

use crate::permission::keys;
use crate::sandbox::{Policy, Prepared, support};
use crate::tool::ports::Need;
use crate::tool::{PermissionCheck, ToolContext, ToolError};

/// Where one command runs.
pub(in crate::tool) enum Choice {
    /// In the session's sandbox.
    Sandboxed,
    /// Outside it, as the person approved.
    Outside,
    /// The config turned the sandbox off.
    Off,
}

/// Where `command` runs; asks the person first when the model wants it `outside` the sandbox.
pub(in crate::tool) async fn choose(
    ctx: &ToolContext,
    command: &str,
    outside: bool,
) -> Result<Choice, ToolError> {
    if ctx.sandbox.is_off() {
        return Ok(Choice::Off);
    }
    if !outside {
        return Ok(Choice::Sandboxed);
    }
    let command = command.to_owned();
    let check = PermissionCheck {
        needs: vec![
            Need::new(keys::SANDBOX_ESCAPE, vec![command.clone()]).always(vec![command.clone()]),
        ],
        title: format!("Run outside the sandbox: {command}"),
        ..Default::default()
    };
    ctx.ask(check).await?;
    Ok(Choice::Outside)
}

impl Choice {
    /// The ruleset to start the command under, if any; an error when the config requires a
    /// sandbox this platform lacks.
    pub fn prepare(&self, policy: &Policy) -> Result<Option<Prepared>, ToolError> {
        if !matches!(self, Choice::Sandboxed) {
            return Ok(None);
        }
        crate::sandbox::prepare(policy)
            .map_err(|why| ToolError::failed(format!("This command was not run: {why}.")))
    }

    /// What the editor is told the command ran in (`_meta.tandem.sandbox`).
    pub fn label(&self, policy: &Policy) -> String {
        match self {
            Choice::Off => "off".into(),
            Choice::Outside => "outside".into(),
            Choice::Sandboxed if !support().is_available() => "unavailable".into(),
            Choice::Sandboxed => policy.label(),
        }
    }
}
