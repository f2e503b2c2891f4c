//! Logging in to an MCP server that answers 401 with OAuth metadata, through the SDK's own
//! support (discovery, client registration, PKCE): a loopback redirect (`callback`), the link
//! for the person, the code exchanged for tokens kept in the data dir (`store`), which the SDK
//! refreshes before they expire; and a kept login used again on the next connect.

pub mod callback;
pub mod store;

use rmcp::transport::auth::{AuthClient, AuthorizationManager, AuthorizationRequest, OAuthState};

use super::spec::Login;
use callback::{Arrival, Callback, Redirected};
pub use store::TokenFile;

/// How Tandem names itself to the authorization server it registers with.
const CLIENT_NAME: &str = "Tandem";

/// An HTTP client that sends the server's tokens (refreshing them as they expire).
pub type Authorized = AuthClient<reqwest::Client>;

/// The client for a kept login to the server `name` at `url`, if one is kept.
pub async fn kept(name: &str, url: &str) -> Option<Authorized> {
    let file = TokenFile::for_server(name, url);
    if !file.has_token() {
        return None;
    }
    let mut manager = manager_for(url).await.ok()?;
    manager.set_credential_store(file);
    match manager.initialize_from_store().await {
        Ok(true) => Some(client(manager)),
        Ok(false) => None,
        Err(error) => {
            tracing::warn!(server = name, %error, "the kept MCP login cannot be used");
            None
        }
    }
}

/// The SDK's manager for the server at `url` (its own HTTP client, which keeps metadata from
/// sending Tandem to addresses of another class than the server's).
async fn manager_for(url: &str) -> Result<AuthorizationManager, rmcp::transport::auth::AuthError> {
    // Tandem's client installs the TLS provider every client (the SDK's too) is built with.
    let _ = crate::provider::http_client();
    AuthorizationManager::new(url).await
}

fn client(manager: AuthorizationManager) -> Authorized {
    AuthClient::new(crate::provider::http_client().clone(), manager)
}

/// A login under way: the link the person opens, and the wait for the redirect it ends in.
pub struct PendingLogin {
    pub link: String,
    state: OAuthState,
    callback: Callback,
    csrf: String,
}

/// Starts the login to the server `name` at `url` that `challenge` (its `WWW-Authenticate`
/// header) asks for: a loopback redirect, discovery, registration, the link.
pub async fn begin(
    name: &str,
    url: &str,
    challenge: Option<&str>,
    login: &Login,
) -> Result<PendingLogin, String> {
    let words = |e: rmcp::transport::auth::AuthError| e.to_string();
    let (callback, expected) = Callback::bind()
        .await
        .map_err(|e| format!("cannot listen for the login's redirect: {e}"))?;
    let mut manager = manager_for(url).await.map_err(words)?;
    manager.set_credential_store(TokenFile::for_server(name, url));
    let mut state = OAuthState::Unauthorized(manager);
    let mut request =
        AuthorizationRequest::new(callback.redirect_uri.clone()).with_client_name(CLIENT_NAME);
    if let Some(challenge) = challenge {
        request = request.with_challenge(challenge);
    }
    if let Login::Client { id, secret, scopes } = login {
        request = request.with_preregistered_client(id.clone());
        if let Some(secret) = secret {
            request = request.with_client_secret(secret.clone());
        }
        if !scopes.is_empty() {
            request = request.with_scopes(scopes.iter().cloned());
        }
    }
    state.start_authorization(request).await.map_err(words)?;
    let link = state.get_authorization_url().await.map_err(words)?;
    let csrf = reqwest::Url::parse(&link)
        .ok()
        .and_then(|u| {
            u.query_pairs()
                .find(|(k, _)| k == "state")
                .map(|(_, v)| v.into_owned())
        })
        .ok_or("the authorization link carries no state")?;
    expected.set(csrf.clone()).await;
    Ok(PendingLogin {
        link,
        state,
        callback,
        csrf,
    })
}

/// Where the browser learns how the login ended (its redirect is held open until then).
pub struct Outcome {
    page: tokio::sync::oneshot::Sender<Result<String, String>>,
    callback: Callback,
}

impl Outcome {
    /// Tells the browser: `Ok(words)` for a login that worked, `Err(why)` for one that did
    /// not; returns once the page is written (or a moment has passed).
    pub async fn tell(self, result: Result<String, String>) {
        let _ = self.page.send(result);
        self.callback.written().await;
    }
}

impl PendingLogin {
    /// Waits for the redirect, exchanges its code for tokens (kept) and returns the client
    /// that sends them, with where to tell the browser how the rest went. A login that failed
    /// gives why, and the browser's page (when it came) still to be told, so the caller can
    /// record the failure first.
    pub async fn finish(mut self) -> Result<(Authorized, Outcome), (String, Option<Outcome>)> {
        let Some(Arrival { redirected, page }) = self.callback.arrival().await else {
            return Err(("the login's redirect never came".into(), None));
        };
        let outcome = Outcome {
            page,
            callback: self.callback,
        };
        let (code, issuer) = match redirected {
            Redirected::Refused(why) => {
                let why = format!("the authorization server refused the login ({why})");
                return Err((why, Some(outcome)));
            }
            Redirected::Code { code, issuer } => (code, issuer),
        };
        let exchanged = self
            .state
            .handle_callback_with_issuer(&code, &self.csrf, issuer.as_deref())
            .await;
        let manager = match exchanged.map(|()| self.state.into_authorization_manager()) {
            Ok(Some(manager)) => manager,
            Ok(None) => return Err(("the login did not complete".into(), Some(outcome))),
            Err(error) => {
                let why = format!("the code could not be exchanged for a token ({error})");
                return Err((why, Some(outcome)));
            }
        };
        Ok((client(manager), outcome))
    }
}

/// Tells the browser's page (if it came) why the login failed.
pub async fn tell_failure(why: &str, page: Option<Outcome>) {
    if let Some(page) = page {
        page.tell(Err(format!("Tandem: {why}."))).await;
    }
}
