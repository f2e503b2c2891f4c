//! API keys: which environment variable feeds which hosted provider, and the keys a person
//! stored with `tandem auth login`, kept in `<data dir>/auth.json` with mode 0600.

pub mod cli;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

use crate::paths;

/// The hosted providers Tandem knows by name without any config (models.dev's ids), each
/// with the variable its key is read from and the address its API answers at. All but
/// Anthropic speak OpenAI's Chat Completions there.
pub const HOSTED: &[Hosted] = &[
    hosted_at(
        "openai",
        "OPENAI_API_KEY",
        Some("OPENAI_BASE_URL"),
        "https://api.openai.com/v1",
    ),
    hosted_at(
        "anthropic",
        "ANTHROPIC_API_KEY",
        Some("ANTHROPIC_BASE_URL"),
        "https://api.anthropic.com/v1",
    ),
    hosted_at(
        "openrouter",
        "OPENROUTER_API_KEY",
        None,
        "https://openrouter.ai/api/v1",
    ),
    hosted_at(
        "google",
        "GEMINI_API_KEY",
        None,
        "https://generativelanguage.googleapis.com/v1beta/openai",
    ),
    hosted_at(
        "deepseek",
        "DEEPSEEK_API_KEY",
        None,
        "https://api.deepseek.com/v1",
    ),
    hosted_at(
        "groq",
        "GROQ_API_KEY",
        None,
        "https://api.groq.com/openai/v1",
    ),
    hosted_at(
        "mistral",
        "MISTRAL_API_KEY",
        None,
        "https://api.mistral.ai/v1",
    ),
    hosted_at("xai", "XAI_API_KEY", None, "https://api.x.ai/v1"),
    hosted_at(
        "togetherai",
        "TOGETHER_API_KEY",
        None,
        "https://api.together.xyz/v1",
    ),
    hosted_at(
        "fireworks-ai",
        "FIREWORKS_API_KEY",
        None,
        "https://api.fireworks.ai/inference/v1",
    ),
    hosted_at(
        "cerebras",
        "CEREBRAS_API_KEY",
        None,
        "https://api.cerebras.ai/v1",
    ),
    // Its address is the person's resource: `AZURE_RESOURCE_NAME`, or `AZURE_BASE_URL`.
    hosted_at("azure", "AZURE_API_KEY", Some("AZURE_BASE_URL"), ""),
];

const fn hosted_at(
    id: &'static str,
    env_key: &'static str,
    env_url: Option<&'static str>,
    base_url: &'static str,
) -> Hosted {
    Hosted {
        id,
        env_key,
        env_url,
        base_url,
    }
}

/// Model servers on this machine Tandem knows by name: no key needed, each at its usual port
/// (`<ID>_BASE_URL` moves it, e.g. `OLLAMA_BASE_URL`).
pub const LOCAL: &[(&str, &str)] = &[
    ("ollama", "http://127.0.0.1:11434/v1"),
    ("llamacpp", "http://127.0.0.1:8080/v1"),
    ("vllm", "http://127.0.0.1:8000/v1"),
    ("lmstudio", "http://127.0.0.1:1234/v1"),
];

/// One built-in hosted provider.
#[derive(Debug, Clone, Copy)]
pub struct Hosted {
    pub id: &'static str,
    pub env_key: &'static str,
    pub env_url: Option<&'static str>,
    /// Its public API address.
    pub base_url: &'static str,
}

/// Azure OpenAI's address for the resource named in `AZURE_RESOURCE_NAME`.
pub fn azure_resource_url() -> Option<String> {
    env("AZURE_RESOURCE_NAME").map(|name| format!("https://{name}.openai.azure.com/openai"))
}

/// The address of the local server called `id`, if Tandem knows it.
pub fn local(id: &str) -> Option<String> {
    let (_, url) = LOCAL.iter().find(|(name, _)| *name == id)?;
    let var = format!("{}_BASE_URL", id.to_ascii_uppercase());
    Some(env(&var).unwrap_or_else(|| (*url).to_owned()))
}

/// The built-in hosted provider called `id`.
pub fn hosted(id: &str) -> Option<Hosted> {
    HOSTED.iter().copied().find(|h| h.id == id)
}

/// The ACP auth method for keys in the editor's environment (`authenticate` checks them).
pub const ENV_METHOD: &str = "env";
/// The ACP terminal auth method: the editor runs `tandem acp --login` in a terminal.
pub const LOGIN_METHOD: &str = "login";

/// A non-empty environment variable.
pub fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Where a usable key for a provider comes from; never the key itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    Environment(&'static str),
    Stored,
}

impl std::fmt::Display for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::Environment(var) => write!(f, "${var}"),
            KeySource::Stored => f.write_str("tandem auth login"),
        }
    }
}

/// One stored credential, in the shape OpenCode's `auth.json` uses for API keys.
#[derive(Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Credential {
    Api { key: String },
}

/// The stored keys, by provider id.
pub struct Credentials {
    path: PathBuf,
    keys: BTreeMap<String, Credential>,
}

impl Credentials {
    /// The file under the data dir (`TANDEM_DATA_DIR` or XDG).
    pub fn path() -> PathBuf {
        paths::data_dir().join("auth.json")
    }

    /// Reads the stored keys; a missing file is no keys. A file others can read is refused,
    /// since a key there may already have leaked and should be replaced.
    pub fn load() -> anyhow::Result<Self> {
        Self::load_from(&Self::path())
    }

    fn load_from(path: &Path) -> anyhow::Result<Self> {
        let keys = match std::fs::read(path) {
            Ok(bytes) => {
                let mode = std::fs::metadata(path)?.permissions().mode();
                if mode & 0o077 != 0 {
                    anyhow::bail!(
                        "{} can be read by other users (mode {:o}); run `chmod 600 {0}`",
                        path.display(),
                        mode & 0o777
                    );
                }
                serde_json::from_slice(&bytes)
                    .with_context(|| format!("{} is not valid JSON", path.display()))?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        Ok(Self {
            path: path.to_owned(),
            keys,
        })
    }

    /// The stored key for `provider`.
    pub fn key(&self, provider: &str) -> Option<&str> {
        self.keys.get(provider).map(|c| match c {
            Credential::Api { key } => key.as_str(),
        })
    }

    /// The providers with a stored key.
    pub fn providers(&self) -> impl Iterator<Item = &str> {
        self.keys.keys().map(String::as_str)
    }

    pub fn set(&mut self, provider: &str, key: String) -> anyhow::Result<()> {
        self.keys
            .insert(provider.to_owned(), Credential::Api { key });
        self.save()
    }

    /// Forgets every stored key; the providers whose keys they were.
    pub fn forget_all(&mut self) -> anyhow::Result<Vec<String>> {
        let forgotten: Vec<String> = self.keys.keys().cloned().collect();
        if !forgotten.is_empty() {
            self.keys.clear();
            self.save()?;
        }
        Ok(forgotten)
    }

    /// Forgets `provider`'s key; false when none was stored.
    pub fn remove(&mut self, provider: &str) -> anyhow::Result<bool> {
        let removed = self.keys.remove(provider).is_some();
        if removed {
            self.save()?;
        }
        Ok(removed)
    }

    /// Writes a new file (mode 0600 from its creation, never wider) and renames it over the
    /// old one, so a crash leaves either the old keys or the new ones.
    fn save(&self) -> anyhow::Result<()> {
        crate::secret::write_private(&self.path, &serde_json::to_vec_pretty(&self.keys)?)
    }
}

/// The key for `provider` from the environment or the stored keys, and where it came from.
/// A stored file that cannot be read counts as no stored key (and is logged).
pub fn find_key(provider: &str) -> Option<(String, KeySource)> {
    if let Some(hosted) = hosted(provider)
        && let Some(key) = env(hosted.env_key)
    {
        return Some((key, KeySource::Environment(hosted.env_key)));
    }
    match Credentials::load() {
        Ok(stored) => stored
            .key(provider)
            .map(|k| (k.to_owned(), KeySource::Stored)),
        Err(error) => {
            tracing::warn!("stored keys ignored: {error:#}");
            None
        }
    }
}

/// The hosted providers a key is found for (the environment, then the stored keys, read once).
pub fn providers_with_keys() -> Vec<&'static Hosted> {
    let stored = Credentials::load().ok();
    HOSTED
        .iter()
        .filter(|h| {
            env(h.env_key).is_some() || stored.as_ref().is_some_and(|s| s.key(h.id).is_some())
        })
        .collect()
}

/// Every way a key can reach Tandem, for a person reading an error or an auth method.
pub fn how_to_give_a_key() -> String {
    let vars: Vec<&str> = HOSTED.iter().map(|h| h.env_key).collect();
    format!(
        "set {} in the environment the editor starts Tandem with, run `tandem auth login` in a \
         terminal, or set a provider's options.apiKey in tandem.json",
        vars.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_keys_round_trip_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("auth.json");
        let mut stored = Credentials::load_from(&path).unwrap();
        stored.set("openai", "sk-one".into()).unwrap();
        stored.set("anthropic", "sk-two".into()).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let again = Credentials::load_from(&path).unwrap();
        assert_eq!(again.key("openai"), Some("sk-one"));
        assert_eq!(
            again.providers().collect::<Vec<_>>(),
            ["anthropic", "openai"]
        );
        let mut again = again;
        assert!(again.remove("openai").unwrap());
        assert!(!again.remove("openai").unwrap());
        assert_eq!(Credentials::load_from(&path).unwrap().key("openai"), None);
    }

    #[test]
    fn a_file_others_can_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("auth.json");
        std::fs::write(&path, r#"{"openai":{"type":"api","key":"k"}}"#).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let error = Credentials::load_from(&path).err().unwrap().to_string();
        assert!(error.contains("chmod 600"), "{error}");
    }
}
