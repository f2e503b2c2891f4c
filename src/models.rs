//! `tandem models`: the models this project can use (its config's, the catalog's of every
//! provider with a key, the default, the scripted demo), each with its context window, output
//! limit and prices, why one is not usable, and `--refresh` to fetch models.dev's catalog.
#![allow(clippy::print_stdout)] // The listing is the command's output.

use serde_json::json;

use crate::numbers::thousands;
use crate::provider::{self, ProviderError};

#[derive(Debug, clap::Args)]
pub struct ModelsArgs {
    /// Print JSON instead of lines.
    #[arg(long)]
    pub json: bool,
    /// Fetch models.dev's current catalog first (kept in the data dir; the newer of it and the
    /// built-in snapshot is used).
    #[arg(long)]
    pub refresh: bool,
}

/// Fetches models.dev's catalog (or `TANDEM_CATALOG_URL`'s) into the data dir; a failure is
/// said and the built-in catalog stays in use.
fn refresh() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let url = std::env::var("TANDEM_CATALOG_URL")
        .unwrap_or_else(|_| provider::catalog_refresh::MODELS_DEV.to_owned());
    match runtime.block_on(provider::catalog_refresh::fetch_and_store(&url)) {
        Ok(count) => eprintln!("tandem: fetched {count} models from {url}"),
        Err(error) => eprintln!(
            "tandem: could not fetch the catalog from {url} ({error:#}); the built-in one is used"
        ),
    }
    Ok(())
}

pub fn run(args: ModelsArgs) -> anyhow::Result<()> {
    if args.refresh {
        refresh()?;
    }
    let cwd = std::env::current_dir()?;
    let config = crate::trust::load(&cwd)?;
    let default = provider::default_model_name(&config);
    let mut rows = Vec::new();
    for (id, name) in provider::available_models(&config, default.as_deref()) {
        let is_default = default.as_deref() == Some(id.as_str());
        rows.push(match provider::resolve(&config, Some(&id)) {
            Ok(model) => json!({
                "id": id, "name": name, "default": is_default, "usable": true,
                "context": model.limit.context, "output": model.limit.output,
                "cost": model.cost.map(|c| json!({"input": c.input, "output": c.output,
                    "cacheRead": c.cache_read, "cacheWrite": c.cache_write})),
            }),
            Err(error) => json!({
                "id": id, "name": name, "default": is_default, "usable": false,
                "problem": reason(&error),
            }),
        });
    }
    // The providers Tandem knows by name that no key was found for, and how to give one.
    let keyed: Vec<&str> = provider::resolve::keyed_providers(&config)
        .iter()
        .map(|h| h.id)
        .collect();
    for hosted in crate::auth::HOSTED
        .iter()
        .filter(|h| !keyed.contains(&h.id))
    {
        rows.push(json!({
            "id": format!("{}/*", hosted.id), "name": hosted.id, "default": false,
            "usable": false,
            "problem": format!("no key: set {} or run `tandem auth login {}`", hosted.env_key, hosted.id),
        }));
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    let catalog = provider::catalog::catalog();
    println!(
        "Model catalog of {} ({}); `tandem models --refresh` fetches the current one.",
        catalog.generated, catalog.source
    );
    for row in &rows {
        let mark = if row["default"] == true {
            " (default)"
        } else {
            ""
        };
        let id = row["id"].as_str().unwrap_or_default();
        let name = row["name"].as_str().unwrap_or_default();
        if row["usable"] == false {
            println!(
                "{id}{mark}  {name}  not usable: {}",
                row["problem"].as_str().unwrap_or_default()
            );
            continue;
        }
        let tokens = |key: &str| row[key].as_u64().map_or("unknown".to_owned(), thousands);
        let price = match &row["cost"] {
            serde_json::Value::Null => "prices unknown".to_owned(),
            cost => format!(
                "${:.2} in / ${:.2} out per million tokens",
                cost["input"].as_f64().unwrap_or_default(),
                cost["output"].as_f64().unwrap_or_default()
            ),
        };
        println!(
            "{id}{mark}  {name}  context {}, output {}, {price}",
            tokens("context"),
            tokens("output")
        );
    }
    Ok(())
}

fn reason(error: &ProviderError) -> String {
    error
        .to_string()
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}
