//! Where an MCP server's login is kept: one file per server URL in Tandem's data dir
//! (`mcp-auth/`), readable by the person alone, written whole; the SDK reads, refreshes and
//! clears it through `CredentialStore`.

use std::path::PathBuf;

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};

/// The login kept for the server at one URL.
#[derive(Debug, Clone)]
pub struct TokenFile {
    path: PathBuf,
}

impl TokenFile {
    /// The file of the server at `url` (named by the server's name, for the person reading
    /// the folder, and a hash of its URL, which is what the login is for).
    pub fn for_server(name: &str, url: &str) -> Self {
        let digest = ring::digest::digest(&ring::digest::SHA256, url.as_bytes());
        let hash: String = digest.as_ref()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let clean: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
        Self {
            path: crate::paths::data_dir()
                .join("mcp-auth")
                .join(format!("{clean}-{hash}.json")),
        }
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Whether a login with a token is kept.
    pub fn has_token(&self) -> bool {
        self.read().is_some_and(|c| c.token_response.is_some())
    }

    fn read(&self) -> Option<StoredCredentials> {
        let text = std::fs::read_to_string(&self.path).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Forgets the login; true if there was one.
    pub fn forget(&self) -> bool {
        std::fs::remove_file(&self.path).is_ok()
    }
}

fn failed(error: impl std::fmt::Display) -> AuthError {
    AuthError::InternalError(format!("cannot keep the MCP login: {error}"))
}

#[async_trait::async_trait]
impl CredentialStore for TokenFile {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self.read())
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let bytes = serde_json::to_vec_pretty(&credentials).map_err(failed)?;
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(failed)?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
            }
        }
        crate::secret::write_private(&self.path, &bytes).map_err(failed)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.forget();
        Ok(())
    }
}
