//! Turns an HTTP response of server-sent events into a stream of model events, driven by a
//! wire-format parser. Poll-driven: dropping the stream closes the connection at once.

use std::collections::VecDeque;

use futures::StreamExt;
use reqwest::Response;
use sse_stream::SseStream;

use super::{EventStream, ProviderError, StreamEvent};

/// One server-sent event as the wire formats read it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Event {
    /// The `event:` field, `message` when the server sent none.
    pub event: String,
    /// The `data:` lines, joined by newlines.
    pub data: String,
}

impl From<sse_stream::Sse> for Event {
    fn from(sse: sse_stream::Sse) -> Self {
        Self {
            event: sse.event.unwrap_or_else(|| "message".to_owned()),
            data: sse.data.unwrap_or_default(),
        }
    }
}

/// Whether the model's stream goes on after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    More,
    /// The wire format's end marker arrived.
    Done,
}

/// A wire format's reading of SSE events.
pub trait SseParser: Send + 'static {
    /// Handles one event, pushing model events to `out`.
    fn on_event(
        &mut self,
        event: &Event,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Flow, ProviderError>;
    /// The body ended (with or without a done marker): flush what is pending.
    fn on_end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError>;
    fn provider(&self) -> &str;
}

struct State<P> {
    idle: std::time::Duration,
    events: futures::stream::BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>,
    parser: P,
    queue: VecDeque<StreamEvent>,
    finished: bool,
}

/// The model's events from `response`; a body silent for `idle` fails the attempt.
pub fn stream<P: SseParser>(
    response: Response,
    parser: P,
    idle: std::time::Duration,
) -> EventStream {
    let bytes = lossy_utf8(response.bytes_stream().boxed());
    let state = State {
        idle,
        events: SseStream::from_bytes_stream(bytes).boxed(),
        parser,
        queue: VecDeque::new(),
        finished: false,
    };
    futures::stream::unfold(state, |mut state| async move {
        loop {
            if let Some(event) = state.queue.pop_front() {
                return Some((Ok(event), state));
            }
            if state.finished {
                return None;
            }
            let next = match tokio::time::timeout(state.idle, state.events.next()).await {
                Ok(next) => next,
                Err(_) => {
                    state.finished = true;
                    let provider = state.parser.provider().to_owned();
                    let detail = format!(
                        "no data for {} s: the stream stalled (chunkTimeout)",
                        state.idle.as_secs_f32()
                    );
                    return Some((Err(ProviderError::Broken { provider, detail }), state));
                }
            };
            match next {
                Some(Ok(sse)) => match state.parser.on_event(&sse.into(), &mut state.queue) {
                    Ok(Flow::More) => {}
                    Ok(Flow::Done) => {
                        state.finished = true;
                        if let Err(e) = state.parser.on_end(&mut state.queue) {
                            return Some((Err(e), state));
                        }
                    }
                    Err(e) => {
                        state.finished = true;
                        state.queue.clear();
                        return Some((Err(e), state));
                    }
                },
                Some(Err(error)) => {
                    state.finished = true;
                    let detail = error.to_string();
                    let provider = state.parser.provider().to_owned();
                    return Some((Err(ProviderError::Broken { provider, detail }), state));
                }
                None => {
                    state.finished = true;
                    if let Err(e) = state.parser.on_end(&mut state.queue) {
                        return Some((Err(e), state));
                    }
                }
            }
        }
    })
    .boxed()
}

/// The body's bytes with invalid UTF-8 replaced by U+FFFD (a character split across chunks
/// is joined first), so one bad byte costs one character instead of the whole answer.
fn lossy_utf8(
    body: futures::stream::BoxStream<'static, reqwest::Result<hyper::body::Bytes>>,
) -> impl futures::Stream<Item = reqwest::Result<hyper::body::Bytes>> + Send + 'static {
    let decoder = crate::utf8::Decoder::default();
    futures::stream::unfold(
        (body, decoder, false),
        |(mut body, mut decoder, ended)| async move {
            if ended {
                return None;
            }
            let text = match body.next().await {
                Some(Ok(chunk)) => decoder.push(&chunk),
                Some(Err(e)) => return Some((Err(e), (body, decoder, false))),
                None => {
                    let rest = decoder.finish();
                    if rest.is_empty() {
                        return None;
                    }
                    return Some((Ok(rest.into()), (body, decoder, true)));
                }
            };
            Some((Ok(text.into()), (body, decoder, false)))
        },
    )
}
