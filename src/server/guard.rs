//! Who may talk to `tandem serve`: every request carries the token (generated on first use and
//! kept readable by the user alone), names this server as its `Host` (no DNS rebinding), and
//! comes from no web page unless its origin is listed in the config.

use std::net::SocketAddr;
use std::path::PathBuf;

/// Where the generated token is kept.
pub fn token_file() -> PathBuf {
    crate::paths::data_dir().join("server-token")
}

/// Where the token came from: an explicit one may open the server beyond loopback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// `TANDEM_SERVER_TOKEN` or `server.token`.
    Given(String),
    /// Generated on first use and kept in the data dir.
    Generated(String),
}

impl Token {
    pub fn secret(&self) -> &str {
        match self {
            Self::Given(t) | Self::Generated(t) => t,
        }
    }
}

/// The token: `TANDEM_SERVER_TOKEN`, else the config's `server.token`, else the one kept in
/// the data dir (made now if there is none).
pub fn token(configured: Option<String>) -> anyhow::Result<Token> {
    if let Some(token) = std::env::var("TANDEM_SERVER_TOKEN")
        .ok()
        .filter(|t| !t.is_empty())
        .or(configured.filter(|t| !t.is_empty()))
    {
        return Ok(Token::Given(token));
    }
    crate::secret::kept(&token_file()).map(Token::Generated)
}

/// Why a request is refused, if it is: (status, message).
pub fn refusal<B>(
    request: &hyper::Request<B>,
    token: &str,
    listening: SocketAddr,
    origins: &[String],
) -> Option<(hyper::StatusCode, &'static str)> {
    use hyper::StatusCode;
    if !host_is_ours(request, listening) {
        return Some((
            StatusCode::FORBIDDEN,
            "the Host header does not name this server",
        ));
    }
    if let Some(origin) = request.headers().get(hyper::header::ORIGIN) {
        let listed = origin
            .to_str()
            .is_ok_and(|o| origins.iter().any(|allowed| allowed == o));
        if !listed {
            return Some((
                StatusCode::FORBIDDEN,
                "requests from web pages are refused unless their origin is in server.origins",
            ));
        }
    }
    if !carries(request, token) {
        return Some((StatusCode::UNAUTHORIZED, "missing or wrong bearer token"));
    }
    None
}

/// `Host` is the address listened on, or `localhost`, with the port listened on.
fn host_is_ours<B>(request: &hyper::Request<B>, listening: SocketAddr) -> bool {
    let host = request
        .headers()
        .get(hyper::header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()));
    let Some(host) = host else {
        return false;
    };
    let port = listening.port();
    let ip = listening.ip();
    let mut names = vec![format!("localhost:{port}"), format!("{listening}")];
    if ip.is_loopback() {
        names.push(format!("127.0.0.1:{port}"));
        names.push(format!("[::1]:{port}"));
    }
    names.iter().any(|n| n.eq_ignore_ascii_case(host))
}

/// The token as `Authorization: Bearer …`, or (for a WebSocket upgrade, which browsers cannot
/// give headers) as the `token` query parameter; compared in constant time.
fn carries<B>(request: &hyper::Request<B>, token: &str) -> bool {
    let bearer = request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let query = jsonrpsee::server::ws::is_upgrade_request(request)
        .then(|| request.uri().query())
        .flatten()
        .and_then(|q| {
            serde_urlencoded::from_str::<Vec<(String, String)>>(q)
                .ok()?
                .into_iter()
                .find(|(k, _)| k == "token")
                .map(|(_, v)| v)
        });
    bearer
        .map(str::to_owned)
        .or(query)
        .is_some_and(|given| constant_time_eq(given.as_bytes(), token.as_bytes()))
}

/// Compares without stopping at the first difference, so timing tells nothing of the token.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(host: &str, origin: Option<&str>, auth: Option<&str>) -> hyper::Request<()> {
        let mut builder = hyper::Request::get("/session").header("host", host);
        if let Some(origin) = origin {
            builder = builder.header("origin", origin);
        }
        if let Some(auth) = auth {
            builder = builder.header("authorization", format!("Bearer {auth}"));
        }
        builder.body(()).unwrap()
    }

    #[test]
    fn host_origin_and_token_are_each_required() {
        let at: SocketAddr = "127.0.0.1:4096".parse().unwrap();
        let ok = |r: &hyper::Request<()>| refusal(r, "t0ken", at, &[]).is_none();
        assert!(ok(&request("127.0.0.1:4096", None, Some("t0ken"))));
        assert!(ok(&request("localhost:4096", None, Some("t0ken"))));
        assert!(!ok(&request("evil.example:4096", None, Some("t0ken"))));
        assert!(!ok(&request("127.0.0.1:4097", None, Some("t0ken"))));
        assert!(!ok(&request("127.0.0.1:4096", None, Some("t0keN"))));
        assert!(!ok(&request("127.0.0.1:4096", None, None)));
        let page = request(
            "127.0.0.1:4096",
            Some("https://evil.example"),
            Some("t0ken"),
        );
        assert!(!ok(&page));
        let listed = ["https://tool.example".to_owned()];
        let tool = request(
            "127.0.0.1:4096",
            Some("https://tool.example"),
            Some("t0ken"),
        );
        assert!(refusal(&tool, "t0ken", at, &listed).is_none());
    }
}
