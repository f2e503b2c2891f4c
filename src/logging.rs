//! Logging through `tracing`: to stderr (stdout is the protocol) and optionally a file, at
//! the level `TANDEM_LOG` or `RUST_LOG` asks for (default `warn`).

use std::io::IsTerminal as _;
use std::path::Path;
use std::sync::Mutex;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Installs the global subscriber. A log file that cannot be opened is reported on stderr.
pub fn init(log_file: Option<&Path>) {
    let filter = std::env::var("TANDEM_LOG")
        .or_else(|_| std::env::var("RUST_LOG"))
        .ok()
        .and_then(|spec| EnvFilter::try_new(spec).ok())
        .unwrap_or_else(|| EnvFilter::new("warn"));
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        // Colour only for a person at a terminal: editors' log views show escape codes raw.
        .with_ansi(std::io::stderr().is_terminal());
    let file = log_file.and_then(|path| {
        match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            Ok(file) => Some(
                tracing_subscriber::fmt::layer()
                    .with_writer(Mutex::new(file))
                    .with_ansi(false),
            ),
            Err(error) => {
                eprintln!("tandem: cannot open log file {}: {error}", path.display());
                None
            }
        }
    });
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(stderr)
        .with(file)
        .try_init();
}
