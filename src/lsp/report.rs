//! What `/diagnostics` and `tandem doctor` say about a project's language servers and
//! formatters: which were found (and where), which are running and in what state.

use std::path::Path;

use super::hub::Lsp;
use super::{catalog, format, locate};
use crate::config::LoadedConfig;

/// The report for a project in `cwd` under `config`; `hub` adds what runs in this process.
pub fn report(loaded: &LoadedConfig, cwd: &Path, hub: Option<&Lsp>) -> String {
    let (config, standing) = (&loaded.config, &loaded.standing);
    let top = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_owned());
    let mut lines = vec!["Language servers:".to_owned()];
    match catalog::servers(config) {
        None => lines.push("  off (\"lsp\": false)".into()),
        Some(specs) => {
            let mut missing = Vec::new();
            for spec in specs.iter() {
                match locate::program(&spec.command[0], &top, &top, standing) {
                    Some(program) => lines.push(format!(
                        "  {}: {} ({})",
                        spec.name,
                        program.display(),
                        spec.extensions.join(" ")
                    )),
                    None => missing.push(spec.name.as_str()),
                }
            }
            if !missing.is_empty() {
                lines.push(format!("  not installed: {}", missing.join(", ")));
            }
        }
    }
    if let Some(hub) = hub {
        let running = hub.status();
        if running.is_empty() {
            lines.push("  none started yet (a server starts when a file of its language is read or changed)".into());
        }
        for status in running {
            lines.push(format!(
                "  {} in {}: {}",
                status.name,
                crate::paths::relative_to(&top, &status.root),
                status.state
            ));
        }
    }
    lines.push("Formatters:".into());
    match format::formatters(config) {
        None => lines.push("  off (\"formatter\": false)".into()),
        Some(specs) => {
            let used: Vec<String> = specs
                .iter()
                .filter_map(|spec| {
                    let program = locate::program(&spec.command[0], &top, &top, standing)?;
                    let applies = format::applies_here(spec, &top);
                    Some(format!(
                        "  {}: {}{}",
                        spec.name,
                        program.display(),
                        if applies {
                            ""
                        } else {
                            " (installed; this project does not use it)"
                        }
                    ))
                })
                .collect();
            if used.is_empty() {
                lines.push("  none installed".into());
            }
            lines.extend(used);
        }
    }
    lines.join("\n")
}

/// `tandem doctor`'s check: each installed server is started in `cwd` and must answer
/// `initialize` within `limit`; a line per server with how long it took or why it failed.
pub async fn probe(
    loaded: &LoadedConfig,
    cwd: &Path,
    limit: std::time::Duration,
) -> Vec<Result<String, String>> {
    let (config, standing) = (&loaded.config, &loaded.standing);
    let top = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_owned());
    let Some(specs) = catalog::servers(config) else {
        return Vec::new();
    };
    let hub = Lsp::default();
    let policy = std::sync::Arc::new(crate::sandbox::Policy::resolve(
        config.sandbox.as_ref(),
        &top,
    ));
    let mut lines = Vec::new();
    for spec in specs.iter() {
        let Some(program) = locate::program(&spec.command[0], &top, &top, standing) else {
            continue;
        };
        if spec.needs_root && locate::root(&top.join("file"), &spec.roots, &top).is_none() {
            continue;
        }
        let started = std::time::Instant::now();
        let root = top.clone();
        // A program in the project may be a model's from an earlier session: sandboxed.
        let sandbox = program.starts_with(&top).then(|| policy.clone());
        match hub
            .server(
                (spec, &program, sandbox.as_ref()),
                (&root, &[]),
                started + limit,
            )
            .await
        {
            Ok(_) => lines.push(Ok(format!(
                "language server {}: answers in {} ms ({})",
                spec.name,
                started.elapsed().as_millis(),
                program.display()
            ))),
            Err(why) => lines.push(Err(format!(
                "language server {} ({}) {}",
                spec.name,
                program.display(),
                match why {
                    super::hub::Unavailable::Starting =>
                        format!("did not answer within {} s", limit.as_secs()),
                    super::hub::Unavailable::Off(why) => format!("fails: {why}"),
                }
            ))),
        }
    }
    hub.shutdown(std::time::Duration::from_millis(500)).await;
    lines
}
