//! A server that asks for a login, from its 401 to connected: the login started (its link
//! shown as `State::Login` until the person opens it), the redirect awaited (ten minutes at
//! most, or until the person declines), then the server connected with the new tokens, or
//! reported by name with why not.

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::connect::{self, Failure, State};
use super::oauth;
use super::spec::{Login, McpServerSpec, McpTransport};

/// How long a login may wait for the person.
const LOGIN_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// Logs in to `spec`, which answered with `challenge`; the state it ends in.
pub(super) async fn log_in(
    spec: &McpServerSpec,
    challenge: String,
    state: &watch::Sender<State>,
    declined: &CancellationToken,
) -> State {
    let McpTransport::Http { url, headers } = &spec.transport else {
        return State::Failed("it asks for a login, which only remote servers can do".into());
    };
    if connect::has_authorization(headers) {
        return State::Failed(format!(
            "it refused the Authorization header its entry sends (it answered: {challenge})"
        ));
    }
    if spec.login == Login::Off {
        return State::Failed("it asks for a login, and its entry says `\"oauth\": false`".into());
    }
    let pending = match oauth::begin(&spec.name, url, Some(&challenge), &spec.login).await {
        Ok(pending) => pending,
        Err(why) => {
            return State::Failed(format!("it asks for a login, which cannot start: {why}"));
        }
    };
    let _ = state.send(State::Login(pending.link.clone()));
    let finished = tokio::select! {
        finished = tokio::time::timeout(LOGIN_WAIT, pending.finish()) => finished,
        _ = declined.cancelled() => return State::Failed("you declined to log in".into()),
    };
    let (client, outcome) = match finished {
        Ok(Ok(done)) => done,
        Ok(Err((why, page))) => {
            // Recorded before the browser is told, so the session's next prompt says so.
            let failed = State::Failed(format!("the login failed: {why}"));
            let _ = state.send(failed.clone());
            oauth::tell_failure(&why, page).await;
            return failed;
        }
        Err(_) => return State::Failed("nobody logged in within 10 minutes".into()),
    };
    let _ = state.send(State::Connecting);
    let connected = tokio::time::timeout(
        spec.timeout,
        connect::connect_http(url, headers, Some(client)),
    )
    .await;
    let failure = match connected {
        Ok(Ok(connection)) => {
            outcome
                .tell(Ok(format!(
                    "Tandem is logged in to the MCP server {}. You can close this tab.",
                    spec.name
                )))
                .await;
            return State::Ready(std::sync::Arc::new(connection));
        }
        Ok(Err(Failure::Login(challenge))) => {
            format!("it still refused after the login (it answered: {challenge})")
        }
        Ok(Err(Failure::Other(reason))) => reason,
        Err(_) => format!(
            "it did not connect within {} s after the login",
            spec.timeout.as_secs_f64()
        ),
    };
    outcome
        .tell(Err(format!(
            "Tandem logged in, but the MCP server {} is not available: {failure}.",
            spec.name
        )))
        .await;
    State::Failed(failure)
}
