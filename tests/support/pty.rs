//! Runs a command in a real pseudo-terminal (its controlling terminal, so `/dev/tty` works)
//! and lets a test type into it and read what a person would see.

use std::io::{Read as _, Write as _};
use std::os::fd::{FromRawFd as _, OwnedFd};
use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Pty {
    master: std::fs::File,
    child: Child,
    seen: Arc<Mutex<Vec<u8>>>,
}

impl Pty {
    /// Starts `command` with the terminal as its stdin, stdout and stderr.
    pub fn spawn(mut command: Command) -> Self {
        let (mut master, mut slave) = (0, 0);
        // SAFETY: openpty writes two descriptors into the given ints; the other arguments may
        // be null.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(rc, 0, "openpty failed");
        // SAFETY: both descriptors were just opened and are owned here alone.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        command
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave.try_clone().unwrap()));
        // SAFETY: setsid and ioctl are async-signal-safe; they make the pty the child's
        // controlling terminal.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("start the command in a pty");
        drop(slave);
        let master = std::fs::File::from(master);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut reader = master.try_clone().unwrap();
        let sink = seen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // EIO once the child's side closes.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Self {
            master,
            child,
            seen,
        }
    }

    /// Everything the terminal showed so far.
    pub fn output(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().unwrap()).into_owned()
    }

    /// Waits until the terminal has shown `text`.
    pub fn expect(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.output().contains(text) {
            assert!(
                Instant::now() < deadline,
                "the terminal never showed {text:?}; it showed:\n{}",
                self.output()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Types `text` (use `\r` for Enter).
    pub fn type_text(&mut self, text: &str) {
        self.master.write_all(text.as_bytes()).unwrap();
        self.master.flush().unwrap();
    }

    /// Sends a signal to the child.
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill on our own child's pid.
        unsafe { libc::kill(self.child.id() as i32, signal) };
    }

    /// Waits for the command to end (at most 30 s), then for its output to drain.
    pub fn wait(&mut self) -> ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(100));
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the command did not end; it showed:\n{}", self.output());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
