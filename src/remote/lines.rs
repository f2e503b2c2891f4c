//! The line transport to an agent's process: JSON-RPC lines written to its stdin, read from
//! its stdout, for the SDK's `Lines`.

use agent_client_protocol::Lines;
use futures::{Sink, Stream};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use tokio::process::{ChildStdin, ChildStdout};

/// The SDK transport over the agent's pipes.
pub fn over(
    stdin: ChildStdin,
    stdout: ChildStdout,
) -> Lines<
    impl Sink<String, Error = std::io::Error> + Send + 'static,
    impl Stream<Item = std::io::Result<String>> + Send + 'static,
> {
    let outgoing = futures::sink::unfold(stdin, async |mut stdin, line: String| {
        stdin.write_all(line.as_bytes()).await?;
        stdin.write_all(b"\n").await?;
        stdin.flush().await?;
        Ok::<_, std::io::Error>(stdin)
    });
    let reader = tokio::io::BufReader::new(stdout).lines();
    let incoming =
        futures::stream::unfold(reader, async |mut reader| match reader.next_line().await {
            Ok(Some(line)) => Some((Ok(line), reader)),
            Ok(None) => None,
            Err(error) => Some((Err(error), reader)),
        });
    Lines::new(Box::pin(outgoing), Box::pin(incoming))
}
