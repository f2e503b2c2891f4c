//! `tandem import`: lists the other agents' sessions of the project here (`--list`, also with
//! no arguments), imports those not imported yet (`--all`), or imports the files named.
#![allow(clippy::print_stdout)] // What the person at the terminal reads.

use std::path::PathBuf;

use super::{Found, Imported};
use crate::store::Store;

#[derive(clap::Args)]
pub struct ImportArgs {
    /// List what can be imported for this project (the default).
    #[arg(long)]
    list: bool,
    /// Import every session of this project not imported yet.
    #[arg(long)]
    all: bool,
    /// Session files to import (whatever agent wrote them).
    files: Vec<PathBuf>,
}

pub fn run(args: ImportArgs) -> anyhow::Result<()> {
    let project = std::env::current_dir()?;
    let store = Store::open_in(&crate::paths::data_dir())?;
    if !args.files.is_empty() {
        let mut failed = 0;
        for path in &args.files {
            match super::identify(path, &project) {
                Ok(found) => {
                    for session in &found {
                        failed += usize::from(!import_one(&store, session, &project));
                    }
                }
                Err(why) => {
                    println!("Skipped {}: {why}.", path.display());
                    failed += 1;
                }
            }
        }
        store.flush()?;
        anyhow::ensure!(
            failed == 0,
            "{failed} of {} files were not imported",
            args.files.len()
        );
        return Ok(());
    }
    let found = super::find(&project);
    if args.all {
        for session in &found {
            import_one(&store, session, &project);
        }
        if found.is_empty() {
            println!(
                "No other agent's sessions were found for {}.",
                project.display()
            );
        }
        store.flush()?;
        return Ok(());
    }
    if found.is_empty() {
        println!(
            "No other agent's sessions were found for {}.",
            project.display()
        );
    }
    for session in &found {
        let imported = store.imported_as(session.agent.id(), &session.source_id)?;
        println!(
            "{:<12} {}  {}{}",
            session.agent.id(),
            crate::id::iso8601(session.updated_at)
                .get(..16)
                .unwrap_or_default(),
            session.title.as_deref().unwrap_or("(untitled)"),
            match (imported, session.too_new()) {
                (Some(id), _) => format!("  [imported as {id}]"),
                (None, Some(why)) => format!("  [not importable: {why}]"),
                (None, None) => String::new(),
            }
        );
    }
    Ok(())
}

/// Imports one session and says how it went; false if it failed.
fn import_one(store: &Store, found: &Found, project: &std::path::Path) -> bool {
    let title = found.title.as_deref().unwrap_or("(untitled)");
    let from = format!("{} {}", found.agent.name(), found.path.display());
    match super::import(store, found, project) {
        Ok(Imported::New(id, converted)) => {
            let skipped = match converted.skipped_lines {
                0 => String::new(),
                n => format!(" ({n} unreadable lines skipped)"),
            };
            println!("Imported \"{title}\" from {from} as {id}{skipped}.");
            true
        }
        Ok(Imported::Already(id)) => {
            println!("Already imported: \"{title}\" ({from}) is {id}.");
            true
        }
        Err(why) => {
            println!("Skipped {from}: {why}.");
            false
        }
    }
}
