//! Starting a command line as `bash` and background jobs do: the shell, in a process group of
//! its own that dies with Tandem, optionally sandboxed, its output read as it comes.

use std::path::Path;
use std::process::Stdio;

use tokio::io::AsyncReadExt;
use tokio::sync::mpsc;

pub fn shell() -> &'static str {
    if Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "/bin/sh"
    }
}

/// Starts `command` in its own process group, dying with Tandem, in `sandbox` if any.
pub fn start(
    command: &str,
    workdir: &Path,
    sandbox: Option<&crate::sandbox::Prepared>,
) -> std::io::Result<tokio::process::Child> {
    let shell = shell();
    let mut process = tokio::process::Command::new(shell);
    process
        .arg("-c")
        .arg(command)
        .current_dir(workdir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    super::groups::die_with_parent(&mut process);
    if let Some(sandbox) = sandbox {
        sandbox.apply(&mut process);
    }
    process.spawn()
}

/// The child's output and errors as they come, chunk by chunk, in one channel.
pub fn read_pipes(child: &mut tokio::process::Child) -> mpsc::UnboundedReceiver<Vec<u8>> {
    let (tx, rx) = mpsc::unbounded_channel::<Vec<u8>>();
    for mut pipe in [
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn tokio::io::AsyncRead + Unpin + Send>),
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn tokio::io::AsyncRead + Unpin + Send>),
    ]
    .into_iter()
    .flatten()
    {
        let tx = tx.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 8192];
            while let Ok(n) = pipe.read(&mut buf).await {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
    }
    rx
}
