//! The terminal as `tandem run` asks on it: one prompt on the screen at a time (a permission
//! or one of the agent's questions), the spinner paused while the person answers.

use super::spinner::Spinner;

/// Runs `ask` (which reads the terminal) with the screen to itself: one question at a time,
/// the spinner paused meanwhile. None if it panicked.
pub async fn at_terminal<T: Send + 'static>(
    spinner: Option<&Spinner>,
    asking: &tokio::sync::Mutex<()>,
    ask: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let _turn = asking.lock().await;
    if let Some(spinner) = spinner {
        spinner.pause(true);
    }
    let answer = tokio::task::spawn_blocking(ask).await.ok();
    if let Some(spinner) = spinner {
        spinner.pause(false);
        spinner.wait();
    }
    answer
}
