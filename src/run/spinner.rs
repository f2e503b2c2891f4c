//! The "thinking" spinner of `tandem run` on a terminal: drawn on stderr with the seconds
//! waited, from the moment the model is asked until it starts answering, cleared before output.

use std::io::Write as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::bus::Event;
use crate::message::{PartBody, ToolState};

const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

#[derive(Default)]
struct State {
    /// Since when the model has been waited on; `None` while something is being shown.
    waiting: Option<Instant>,
    /// A frame is on the screen and must be erased before other output.
    drawn: bool,
    /// Stopped for good (the turn ended, or the person is being asked something).
    paused: bool,
}

/// Shared between the renderer (which stops it) and its drawing task.
#[derive(Clone, Default)]
pub struct Spinner {
    state: Arc<Mutex<State>>,
}

impl Spinner {
    /// Starts waiting now and draws every 100 ms until the returned task is aborted.
    pub fn start(&self) -> tokio::task::JoinHandle<()> {
        self.wait();
        let spinner = self.clone();
        tokio::spawn(async move {
            let mut frame = 0;
            loop {
                tokio::time::sleep(Duration::from_millis(100)).await;
                spinner.draw(frame);
                frame = (frame + 1) % FRAMES.len();
            }
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn draw(&self, frame: usize) {
        let mut state = self.lock();
        if let (Some(since), false) = (state.waiting, state.paused) {
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r\x1b[2K{} thinking {:.1}s",
                FRAMES[frame],
                since.elapsed().as_secs_f32()
            );
            let _ = err.flush();
            state.drawn = true;
        }
    }

    /// The model is being waited on again.
    pub fn wait(&self) {
        let mut state = self.lock();
        if state.waiting.is_none() {
            state.waiting = Some(Instant::now());
        }
    }

    /// Erases the frame and stops drawing until `wait`.
    pub fn clear(&self) {
        let mut state = self.lock();
        state.waiting = None;
        if state.drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            state.drawn = false;
        }
    }

    /// Stops drawing while the person answers a question (or for good).
    pub fn pause(&self, paused: bool) {
        if paused {
            self.clear();
        }
        self.lock().paused = paused;
    }

    /// A finished tool call means the model is asked again (output itself clears the
    /// spinner, through `clear`, before it is written).
    pub fn on_event(&self, event: &Event) {
        if let Event::PartUpdated { part, .. } = event
            && let PartBody::Tool(call) = &part.body
            && matches!(
                call.state,
                ToolState::Completed { .. } | ToolState::Error { .. }
            )
        {
            self.wait();
        }
    }
}
