//! Logging through `tracing`: to stderr (stdout is the protocol) and optionally a file, at
//! the level `TANDEM_LOG` or `RUST_LOG` asks for (default `warn`). While serving ACP, editors
//! show stderr as errors, so it carries errors only and the rest goes to the log file.

use std::io::IsTerminal as _;
use std::path::Path;
use std::sync::Mutex;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The log file a session served over ACP writes when none is set.
pub fn default_acp_log() -> std::path::PathBuf {
    crate::paths::data_dir().join("tandem.log")
}

/// A default log file is started afresh once it grows past this.
const MAX_DEFAULT_LOG: u64 = 8 << 20;

/// Installs the global subscriber. A log file that cannot be opened is reported on stderr.
/// `serving_acp`: stderr gets errors only, and without a log file set, the rest goes to
/// `default_acp_log()`.
pub fn init(log_file: Option<&Path>, serving_acp: bool) {
    let level = || {
        std::env::var("TANDEM_LOG")
            .or_else(|_| std::env::var("RUST_LOG"))
            .ok()
            .and_then(|spec| EnvFilter::try_new(spec).ok())
            .unwrap_or_else(|| EnvFilter::new("warn"))
    };
    let stderr_filter = if serving_acp {
        EnvFilter::new("error")
    } else {
        level()
    };
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        // Colour only for a person at a terminal: editors' log views show escape codes raw.
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(stderr_filter);
    let default_log = (serving_acp && log_file.is_none()).then(default_acp_log);
    let path = log_file.map(Path::to_path_buf).or(default_log.clone());
    let file = path.and_then(|path| {
        if default_log.is_some() {
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_DEFAULT_LOG) {
                let _ = std::fs::remove_file(&path);
            }
        }
        match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
        {
            Ok(file) => Some(
                tracing_subscriber::fmt::layer()
                    .with_writer(Mutex::new(file))
                    .with_ansi(false)
                    .with_filter(level()),
            ),
            // The default file is a convenience: a read-only data dir is not worth an error.
            Err(_) if default_log.is_some() => None,
            Err(error) => {
                eprintln!("tandem: cannot open log file {}: {error}", path.display());
                None
            }
        }
    });
    let _ = tracing_subscriber::registry()
        .with(stderr)
        .with(file)
        .try_init();
}
