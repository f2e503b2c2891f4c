//! `tandem doctor`: checks what a session needs (a writable data dir, a sound store, git for
//! snapshots, a readable config, each provider answering with its key) and says what to fix.

pub mod config_check;
mod plugins;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::{LoadedConfig, ProviderConfig};
use crate::provider::resolve::{address, api_of, default_model_name};
use crate::{auth, paths};

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// The project directory (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Seconds to wait for each provider's answer.
    #[arg(long, default_value_t = 5)]
    pub timeout: u64,
}

/// One finding: fine, worth knowing, or in the way of a working session.
enum Finding {
    Ok(String),
    Note(String),
    Problem(String),
}

#[allow(clippy::print_stdout)] // The findings are the command's output.
pub async fn run(args: DoctorArgs) -> anyhow::Result<()> {
    let cwd = match args.cwd {
        Some(dir) => dir,
        None => std::env::current_dir()?,
    };
    let mut findings = vec![data_dir(), store(), git()];
    match crate::trust::load(&cwd) {
        Ok(loaded) => {
            findings.push(Finding::Ok(match loaded.sources.len() {
                0 => "config: no tandem.json (defaults)".to_owned(),
                _ => format!(
                    "config: {}",
                    loaded
                        .sources
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }));
            for warning in &loaded.warnings {
                findings.push(Finding::Note(format!(
                    "{warning} (see `tandem config check`)"
                )));
            }
            let sandbox = crate::sandbox::describe(loaded.config.sandbox.as_ref(), &cwd);
            findings.push(
                match crate::sandbox::warning(&crate::sandbox::Policy::resolve(
                    loaded.config.sandbox.as_ref(),
                    &cwd,
                )) {
                    None => Finding::Ok(format!("sandbox: {sandbox}")),
                    Some(warning) => Finding::Note(format!("sandbox: {warning}")),
                },
            );
            findings.push(Finding::Ok(format!(
                "processes that leave their group (setsid, set -m, double forks): {}",
                crate::process::escapees::how()
            )));
            findings.push(trust_finding(&cwd));
            findings.push(web_search(&loaded));
            findings.push(Finding::Ok(crate::lsp::report(&loaded, &cwd, None)));
            let limit = Duration::from_secs(args.timeout);
            for probed in crate::lsp::probe(&loaded, &cwd, limit).await {
                findings.push(match probed {
                    Ok(line) => Finding::Ok(line),
                    Err(line) => Finding::Note(line),
                });
            }
            findings.extend(providers(&loaded, Duration::from_secs(args.timeout)).await);
        }
        Err(error) => findings.push(Finding::Problem(format!(
            "{error}. Run `tandem config check` for every problem in the config."
        ))),
    }
    let mut problems = 0;
    for finding in &findings {
        let (mark, text) = match finding {
            Finding::Ok(text) => ("✓", text),
            Finding::Note(text) => ("!", text),
            Finding::Problem(text) => {
                problems += 1;
                ("✗", text)
            }
        };
        println!("{mark} {text}");
    }
    if problems > 0 {
        anyhow::bail!(
            "{problems} problem{} found",
            if problems == 1 { "" } else { "s" }
        );
    }
    Ok(())
}

/// Whether the model can search the web (its provider's own search, or the `websearch` tool),
/// and how to turn it on when it cannot.
fn web_search(loaded: &crate::config::LoadedConfig) -> Finding {
    let config = &loaded.config;
    let setting = config.websearch.as_ref();
    if setting.is_none_or(|w| w.enabled != Some(false))
        && let Ok(model) = crate::provider::resolve(loaded, None)
        && crate::provider::hosted_search(&model, setting.and_then(|w| w.hosted))
    {
        return Finding::Ok(format!(
            "web search: {}'s own search (for {}, while `websearch` is allowed without asking)",
            model.provider_id,
            model.full_id()
        ));
    }
    match crate::tool::websearch::configured(config) {
        Ok(search) => Finding::Ok(format!(
            "web search: {} (the `websearch` tool is offered)",
            search.service.name()
        )),
        Err(why) => Finding::Note(format!(
            "web search: off ({why}). To enable it, set BRAVE_API_KEY, EXA_API_KEY or \
             TAVILY_API_KEY, or add \"websearch\": {{\"service\": \"brave\", \"apiKey\": \
             \"{{env:BRAVE_API_KEY}}\"}} (or exa, tavily, or searxng with its \"baseURL\") to \
             tandem.json"
        )),
    }
}

fn data_dir() -> Finding {
    let dir = paths::data_dir();
    let probe = dir.join(format!(".doctor-{}", std::process::id()));
    let written = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&probe, b"probe"));
    let _ = std::fs::remove_file(&probe);
    match written {
        Ok(()) => Finding::Ok(format!("data dir {} is writable", dir.display())),
        Err(e) => Finding::Problem(format!(
            "cannot write the data dir {} ({e}): set TANDEM_DATA_DIR to a writable directory",
            dir.display()
        )),
    }
}

fn store() -> Finding {
    let path = paths::data_dir().join("tandem.db");
    if !path.exists() {
        return Finding::Ok(format!(
            "store {}: not created yet (the first session creates it)",
            path.display()
        ));
    }
    match check_store(&path) {
        Ok(sessions) => Finding::Ok(format!(
            "store {}: sound, {sessions} session{}",
            path.display(),
            if sessions == 1 { "" } else { "s" }
        )),
        Err(e) => Finding::Problem(format!(
            "store {} failed its check ({e}): stop every `tandem` process, move the file \
             aside and start again (a new store is created)",
            path.display()
        )),
    }
}

/// SQLite's own consistency check on a read-only connection, then the session count.
fn check_store(path: &Path) -> Result<i64, String> {
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| e.to_string())?;
    let verdict: String = conn
        .query_row("PRAGMA quick_check", [], |row| row.get(0))
        .map_err(|e| e.to_string())?;
    if verdict != "ok" {
        return Err(verdict);
    }
    conn.query_row("SELECT count(*) FROM session", [], |row| row.get(0))
        .map_err(|e| e.to_string())
}

fn git() -> Finding {
    match std::process::Command::new("git").arg("--version").output() {
        Ok(out) if out.status.success() => Finding::Ok(format!(
            "{} (snapshots, diff and /undo)",
            String::from_utf8_lossy(&out.stdout).trim()
        )),
        _ => Finding::Note(
            "git not found: snapshots, diff and /undo are off until it is installed".to_owned(),
        ),
    }
}

/// The providers worth checking: every configured one, every hosted one with a key, and the
/// default model's.
/// Whether the folder is trusted, and what an untrusted one leaves off.
fn trust_finding(cwd: &std::path::Path) -> Finding {
    let assessment = crate::trust::assess(cwd);
    match (assessment.inventory.is_empty(), assessment.answer) {
        (true, _) => Finding::Ok("this folder brings nothing that needs trust".into()),
        (false, Some(true)) => Finding::Ok("this folder is trusted as it is".into()),
        (false, _) => Finding::Note(format!(
            "this folder is not trusted, so Tandem leaves off: {}. `tandem trust` trusts it \
             as it is.",
            assessment.inventory.lines().join("; ")
        )),
    }
}

async fn providers(loaded: &LoadedConfig, timeout: Duration) -> Vec<Finding> {
    let mut findings = Vec::new();
    let default = default_model_name(loaded);
    let catalog = crate::provider::catalog::catalog();
    findings.push(Finding::Ok(format!(
        "model catalog of {} ({})",
        catalog.generated, catalog.source
    )));
    match &default {
        Some(model) if loaded.config.model.is_none() => {
            let chosen = crate::provider::choose::by_key();
            let small = chosen
                .as_ref()
                .and_then(|c| c.small.as_deref())
                .map(|s| format!(", small model {s} (titles, compaction)"))
                .unwrap_or_default();
            findings.push(Finding::Ok(format!(
                "default model {model}{small}: the {} key's pick by the catalog's rule, {}",
                chosen.map_or("found", |c| c.provider),
                crate::provider::catalog::defaults::RULE
            )))
        }
        Some(model) => findings.push(Finding::Ok(format!("default model {model} (the config's)"))),
        None => findings.push(Finding::Note(format!(
            "no model configured and no key found: the offline scripted demo answers. To use a \
             real model, {}",
            auth::how_to_give_a_key()
        ))),
    }
    let mut ids: Vec<String> = loaded.config.provider.keys().cloned().collect();
    for hosted in auth::HOSTED {
        if auth::find_key(hosted.id).is_some() && !ids.iter().any(|i| i == hosted.id) {
            ids.push(hosted.id.to_owned());
        }
    }
    if let Some((provider, _)) = default.as_deref().and_then(|m| m.split_once('/'))
        && !ids.iter().any(|i| i == provider)
    {
        ids.push(provider.to_owned());
    }
    for id in ids {
        let provider = loaded.config.provider.get(&id).cloned().unwrap_or_default();
        findings.push(check_provider(&id, &provider, timeout).await);
    }
    findings
}

/// One bounded request to the provider's model listing, which costs nothing.
async fn check_provider(id: &str, provider: &ProviderConfig, timeout: Duration) -> Finding {
    let Some(wire) = crate::provider::wire::spec(api_of(id, provider)) else {
        return Finding::Ok(format!("provider {id}: scripted, offline"));
    };
    let address = address(id, provider);
    if address.api_key.is_none()
        && let Some(hosted) = auth::hosted(id)
    {
        return Finding::Problem(format!(
            "provider {id}: no key. Set {}, or run `tandem auth login {id}`",
            hosted.env_key
        ));
    }
    let url = format!(
        "{}{}",
        address.base_url.trim_end_matches('/'),
        wire.models_path
    );
    let mut request = crate::provider::http_client().get(&url).timeout(timeout);
    for (name, value) in &provider.options.headers {
        request = request.header(name, value);
    }
    // The wire's own auth: Anthropic's key and version headers, a bearer token elsewhere.
    request = (wire.authorise)(request, address.api_key.as_deref());
    match request.send().await {
        Ok(response) => {
            let status = response.status();
            let models = response
                .json::<serde_json::Value>()
                .await
                .ok()
                .and_then(|body| body["data"].as_array().map(Vec::len));
            match status.as_u16() {
                200..=299 => Finding::Ok(format!(
                    "provider {id}: {} answered{}",
                    address.base_url,
                    models.map(|n| format!(" ({n} models)")).unwrap_or_default()
                )),
                401 | 403 => Finding::Problem(format!(
                    "provider {id}: {} refused the key (HTTP {}). Replace it: `tandem auth \
                     login {id}`, or fix the environment variable or options.apiKey",
                    address.base_url,
                    status.as_u16()
                )),
                404 | 405 => Finding::Note(format!(
                    "provider {id}: {} answered but lists no models (HTTP {}); prompts may \
                     still work",
                    address.base_url,
                    status.as_u16()
                )),
                code => Finding::Problem(format!(
                    "provider {id}: {url} answered HTTP {code}; check options.baseURL"
                )),
            }
        }
        Err(e) if e.is_timeout() => Finding::Problem(format!(
            "provider {id}: {url} did not answer within {} s",
            timeout.as_secs()
        )),
        Err(e) => Finding::Problem(format!(
            "provider {id}: cannot reach {} ({}); is the server running and options.baseURL \
             right?",
            address.base_url,
            root_cause(&e)
        )),
    }
}

fn root_cause(error: &dyn std::error::Error) -> String {
    let mut cause = error;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}
