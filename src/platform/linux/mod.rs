//! Linux: what only it offers, behind safe functions: dying with the parent, and the sandbox's
//! kernel side.

pub mod sandbox;

/// Makes a child about to be started die with Tandem, even when Tandem is SIGKILLed.
pub fn die_with_parent(command: &mut tokio::process::Command) {
    // SAFETY: the hook only makes one system call, which is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}
