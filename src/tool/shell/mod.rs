//! `bash` and what stands around it: the checks a line must pass (`checks`), the sandbox it
//! runs in (`sandbox`) and background jobs (`jobs`). Starting the processes themselves is
//! `crate::process`'s.

pub(in crate::tool) mod bash;
pub mod checks;
pub mod jobs;
pub(in crate::tool) mod sandbox;

/// A shell that did not start, as the model reads it.
pub(in crate::tool) fn cannot_start(error: std::io::Error) -> crate::tool::ToolError {
    crate::tool::ToolError::failed(format!(
        "Cannot start {}: {error}",
        crate::process::shell::shell()
    ))
}
