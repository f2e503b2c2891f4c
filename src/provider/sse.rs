//! Turns an HTTP response of server-sent events into a stream of model events, driven by a
//! wire-format parser. Poll-driven: dropping the stream closes the connection at once.

use std::collections::VecDeque;

use eventsource_stream::{Event, Eventsource};
use futures::StreamExt;
use reqwest::Response;

use super::{EventStream, ProviderError, StreamEvent};

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
    events: futures::stream::BoxStream<
        'static,
        Result<Event, eventsource_stream::EventStreamError<reqwest::Error>>,
    >,
    parser: P,
    queue: VecDeque<StreamEvent>,
    finished: bool,
}

pub fn stream<P: SseParser>(response: Response, parser: P) -> EventStream {
    let state = State {
        events: response.bytes_stream().eventsource().boxed(),
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
            match state.events.next().await {
                Some(Ok(event)) => match state.parser.on_event(&event, &mut state.queue) {
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
                    return Some((Err(ProviderError::Stream { provider, detail }), state));
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
