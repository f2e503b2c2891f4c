//! The line transport: JSON-RPC lines in from stdin, out to stdout through one writer thread
//! that writes every line already queued before it flushes, so a burst of updates costs a few
//! system calls instead of one wake-up and one write per line, and a lone line goes out at once.

use std::io::Write as _;
use std::sync::mpsc;

use agent_client_protocol::Lines;
use futures::io::BufReader;
use futures::{AsyncBufReadExt as _, Sink, Stream, StreamExt as _};

use crate::acp::upstream::Tickets;
use crate::acp::upstream::params::{Verdict, check_params};

/// Signals that every queued line has been written (the writer thread has ended).
pub struct Drained(mpsc::Receiver<()>);

impl Drained {
    /// Waits (at most `limit`) for the last lines to reach stdout before the process exits.
    pub fn wait(self, limit: std::time::Duration) {
        let _ = self.0.recv_timeout(limit);
    }
}

/// Lines for the SDK: `output` via the batching writer (which swaps update tickets for the
/// updates handed over in `tickets`), `input` read line by line.
#[allow(clippy::type_complexity)]
pub fn over(
    input: impl futures::AsyncRead + Unpin + Send + 'static,
    output: impl std::io::Write + Send + 'static,
    mut tickets: Tickets,
) -> (
    Lines<
        impl Sink<String, Error = std::io::Error> + Send + 'static,
        impl Stream<Item = std::io::Result<String>> + Send + 'static,
    >,
    Drained,
) {
    let (lines, queue) = mpsc::channel::<String>();
    let (done, drained) = mpsc::channel();
    std::thread::Builder::new()
        .name("tandem-stdout".into())
        .spawn(move || {
            write_lines(queue, output, &mut tickets);
            let _ = done.send(());
        })
        .expect("the stdout writer thread starts");
    let rejects = lines.clone();
    let outgoing = futures::sink::unfold(lines, async |lines, line: String| {
        lines
            .send(line)
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout is closed"))?;
        Ok::<_, std::io::Error>(lines)
    });
    let incoming = BufReader::new(input).lines().filter_map(move |line| {
        let verdict = match &line {
            Ok(text) => check_params(text),
            Err(_) => Verdict::Pass,
        };
        let passed = match verdict {
            Verdict::Pass => Some(line),
            Verdict::Drop => None,
            Verdict::Answer(answer) => {
                let _ = rejects.send(answer);
                None
            }
        };
        std::future::ready(passed)
    });
    (
        Lines::new(Box::pin(outgoing), Box::pin(incoming)),
        Drained(drained),
    )
}

/// Writes each queued line; flushes only when the queue is empty. Ends when the sender goes
/// or stdout is closed.
fn write_lines(queue: mpsc::Receiver<String>, output: impl std::io::Write, tickets: &mut Tickets) {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, output);
    while let Ok(line) = queue.recv() {
        let mut next = Some(line);
        while let Some(line) = next {
            // A pre-serialised update (see `update`) goes out in its ticket's place.
            let line = tickets.unwrap(&line).unwrap_or(line);
            if out
                .write_all(line.as_bytes())
                .and_then(|_| out.write_all(b"\n"))
                .is_err()
            {
                return;
            }
            next = queue.try_recv().ok();
        }
        if out.flush().is_err() {
            return;
        }
    }
}
