//! ACP auth: the methods `initialize` offers (a key in the editor's environment, and a
//! terminal login when the client can run one), `authenticate`, which checks for a key, and
//! `logout`, which forgets the keys Tandem stored.

use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    AuthMethod, AuthMethodAgent, AuthMethodTerminal, AuthenticateRequest, AuthenticateResponse,
    ClientCapabilities, LogoutRequest, LogoutResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};

use crate::acp::AcpState;
use crate::auth::{self, ENV_METHOD, HOSTED, LOGIN_METHOD};

/// The methods for a client with `capabilities`: the terminal login only where it can run it.
pub fn methods(capabilities: &ClientCapabilities) -> Vec<AuthMethod> {
    let vars: Vec<&str> = HOSTED.iter().map(|h| h.env_key).collect();
    let mut methods = vec![AuthMethod::Agent(
        AuthMethodAgent::new(ENV_METHOD, "API key in the environment").description(format!(
            "Set {} in the environment the editor starts `tandem acp` with (or a provider's \
             options.apiKey in tandem.json), then restart the agent.",
            vars.join(", ")
        )),
    )];
    if capabilities.auth.terminal {
        methods.push(AuthMethod::Terminal(
            AuthMethodTerminal::new(LOGIN_METHOD, "Log in with an API key")
                .description("Asks for a provider and its key in a terminal and stores the key readable by you alone.")
                .args(vec!["--login".to_owned()]),
        ));
    }
    methods
}

/// `authenticate`: succeeds when a key is now available the way the method gives one.
pub async fn on_authenticate(
    _state: Arc<AcpState>,
    request: AuthenticateRequest,
    responder: Responder<AuthenticateResponse>,
    _cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let method = request.method_id.0.as_ref();
    let ready = match method {
        ENV_METHOD => HOSTED.iter().any(|h| auth::env(h.env_key).is_some()),
        LOGIN_METHOD => auth::Credentials::load().is_ok_and(|c| c.providers().next().is_some()),
        other => {
            return responder.respond_with_error(Error::new(
                -32602,
                format!("unknown auth method `{other}`; offered: {ENV_METHOD}, {LOGIN_METHOD}"),
            ));
        }
    };
    if ready {
        responder.respond(AuthenticateResponse::new())
    } else {
        responder.respond_with_error(crate::acp::error::auth_required(format!(
            "No API key found: {}.",
            auth::how_to_give_a_key()
        )))
    }
}

/// `logout`: forgets every key Tandem stored (`tandem auth login`, the terminal login); a key in
/// the editor's environment is the editor's to remove. New sessions then need a key again.
pub async fn on_logout(
    _state: Arc<AcpState>,
    _request: LogoutRequest,
    responder: Responder<LogoutResponse>,
    _cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let forgotten = auth::Credentials::load().and_then(|mut stored| stored.forget_all());
    match forgotten {
        Ok(providers) => {
            tracing::info!(?providers, "logout: the stored keys are forgotten");
            responder.respond(LogoutResponse::new())
        }
        Err(error) => responder.respond_with_error(Error::new(
            -32603,
            format!("the stored keys could not be forgotten: {error}"),
        )),
    }
}
