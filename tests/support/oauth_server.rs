//! An MCP server on 127.0.0.1 that wants OAuth, and its authorization server, in one: the MCP
//! endpoint `/mcp` (an `echo` tool, through rmcp's server side) answers 401 with
//! `resource_metadata` unless a live access token comes; the authorization server publishes
//! its metadata, registers clients (RFC 7591), authorizes with PKCE (S256, checked) by
//! redirecting at once (or refusing, when told to), and issues short-lived access tokens and
//! refresh tokens. It records what it was asked.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{RawQuery, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

/// What the authorization server knows and was asked.
#[derive(Default)]
pub struct Books {
    /// Refuse every authorization (redirect with `error=access_denied`).
    pub refuse: bool,
    /// code → (code_challenge, redirect_uri)
    codes: HashMap<String, (String, String)>,
    pub access: HashSet<String>,
    refresh: HashSet<String>,
    issued: u32,
    /// Refresh grants honoured.
    pub refreshes: u32,
    /// Redirect URIs clients registered.
    pub registered: Vec<String>,
    /// Requests the MCP endpoint refused for want of a token.
    pub refused: u32,
    /// Calls of the `echo` tool that ran.
    pub echoes: u32,
}

#[derive(Clone)]
pub struct OAuthServer {
    pub base: String,
    pub books: Arc<Mutex<Books>>,
}

impl OAuthServer {
    pub fn mcp_url(&self) -> String {
        format!("{}/mcp", self.base)
    }

    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let server = OAuthServer {
            base: base.clone(),
            books: Arc::default(),
        };
        let mcp = rmcp::transport::StreamableHttpService::new(
            {
                let books = server.books.clone();
                move || Ok(Echo(books.clone()))
            },
            rmcp::transport::streamable_http_server::session::local::LocalSessionManager::default()
                .into(),
            rmcp::transport::StreamableHttpServerConfig::default(),
        );
        let guarded = Router::new()
            .nest_service("/mcp", mcp)
            .layer(axum::middleware::from_fn_with_state(server.clone(), guard));
        let app = Router::new()
            .route("/.well-known/oauth-protected-resource/mcp", get(resource))
            .route("/.well-known/oauth-protected-resource", get(resource))
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/register", post(register))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .with_state(server.clone())
            .merge(guarded);
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        server
    }
}

/// The MCP endpoint lets through only a live access token.
async fn guard(State(server): State<OAuthServer>, request: Request, next: Next) -> Response {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let live = token.is_some_and(|t| server.books.lock().unwrap().access.contains(&t));
    if !live {
        server.books.lock().unwrap().refused += 1;
        let challenge = format!(
            "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\", scope=\"tools\"",
            server.base
        );
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, challenge)],
        )
            .into_response();
    }
    next.run(request).await
}

/// A JSON answer.
fn reply(status: StatusCode, body: Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

async fn resource(State(server): State<OAuthServer>) -> Response {
    reply(
        StatusCode::OK,
        json!({"resource": server.mcp_url(), "authorization_servers": [server.base],
                      "scopes_supported": ["tools"], "bearer_methods_supported": ["header"]}),
    )
}

async fn metadata(State(server): State<OAuthServer>) -> Response {
    let base = &server.base;
    reply(
        StatusCode::OK,
        json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "registration_endpoint": format!("{base}/register"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "scopes_supported": ["tools"]
        }),
    )
}

async fn register(State(server): State<OAuthServer>, body: String) -> Response {
    let body: Value = serde_json::from_str(&body).unwrap_or_default();
    let uris: Vec<String> = body["redirect_uris"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|u| u.as_str().map(str::to_owned))
        .collect();
    server.books.lock().unwrap().registered.extend(uris.clone());
    let answer = json!({"client_id": "tandem-client", "redirect_uris": uris,
        "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"], "client_name": body["client_name"]});
    reply(StatusCode::CREATED, answer)
}

async fn authorize(State(server): State<OAuthServer>, RawQuery(query): RawQuery) -> Response {
    let query: HashMap<String, String> =
        serde_urlencoded::from_str(&query.unwrap_or_default()).unwrap();
    let redirect = query["redirect_uri"].clone();
    let state = query.get("state").cloned().unwrap_or_default();
    let mut books = server.books.lock().unwrap();
    let to = if books.refuse {
        format!("{redirect}?error=access_denied&error_description=no&state={state}")
    } else {
        assert_eq!(query["code_challenge_method"], "S256");
        books.issued += 1;
        let code = format!("code-{}", books.issued);
        books.codes.insert(
            code.clone(),
            (query["code_challenge"].clone(), redirect.clone()),
        );
        let iss = urlencode(&server.base);
        format!("{redirect}?code={code}&state={state}&iss={iss}")
    };
    (StatusCode::FOUND, [(header::LOCATION, to)]).into_response()
}

fn urlencode(text: &str) -> String {
    serde_urlencoded::to_string([("x", text)]).unwrap()[2..].to_owned()
}

async fn token(State(server): State<OAuthServer>, _headers: HeaderMap, body: String) -> Response {
    let form: HashMap<String, String> = serde_urlencoded::from_str(&body).unwrap();
    let mut books = server.books.lock().unwrap();
    let grant = form.get("grant_type").map(String::as_str);
    let ok = match grant {
        Some("authorization_code") => {
            let Some((challenge, redirect)) = books.codes.remove(&form["code"]) else {
                return bad("invalid_grant");
            };
            let digest =
                ring::digest::digest(&ring::digest::SHA256, form["code_verifier"].as_bytes());
            let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest.as_ref());
            computed == challenge && form.get("redirect_uri") == Some(&redirect)
        }
        Some("refresh_token") => {
            let known = books.refresh.remove(&form["refresh_token"]);
            if known {
                books.refreshes += 1;
            }
            known
        }
        _ => false,
    };
    if !ok {
        return bad("invalid_grant");
    }
    books.issued += 1;
    let (access, refresh) = (
        format!("at-{}", books.issued),
        format!("rt-{}", books.issued),
    );
    books.access.insert(access.clone());
    books.refresh.insert(refresh.clone());
    reply(
        StatusCode::OK,
        json!({"access_token": access, "token_type": "Bearer", "expires_in": 3600,
                      "refresh_token": refresh, "scope": "tools"}),
    )
}

fn bad(error: &str) -> Response {
    reply(StatusCode::BAD_REQUEST, json!({"error": error}))
}

/// The MCP server behind the login: one `echo` tool.
#[derive(Clone)]
struct Echo(Arc<Mutex<Books>>);

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default();
        info.capabilities = ServerCapabilities::builder().enable_tools().build();
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "echo",
            "Echoes the text back.",
            Arc::new(schema.as_object().cloned().unwrap()),
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.0.lock().unwrap().echoes += 1;
        let text = request
            .arguments
            .and_then(|a| a.get("text").and_then(|t| t.as_str()).map(str::to_owned))
            .unwrap_or_default();
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("echo: {text}"))]).into())
    }
}
