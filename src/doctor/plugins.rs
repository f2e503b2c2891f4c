//! `config check`'s Claude Code plugins: each plugin that loads with what it brings (skills,
//! commands, agents, hooks, MCP servers) and whether it is trusted; each skipped with why.

use std::fmt::Write as _;
use std::path::Path;

use crate::config::plugins::{Plugin, Scope};

/// The plugins of a session in `cwd`, for the report.
pub fn report(cwd: &Path) -> String {
    let found = crate::config::plugins::found(&[cwd]);
    let mut text = String::from("\nClaude Code plugins:");
    if found.plugins.is_empty() && found.skipped.is_empty() {
        text.push_str(" none");
    }
    text.push('\n');
    let agents = crate::agent::Agents::load(
        &crate::config::Config::default(),
        &[(cwd, &crate::config::Standing::LISTING)],
    );
    for plugin in &found.plugins {
        text.push_str(&one(plugin, &agents));
    }
    for skipped in &found.skipped {
        let _ = writeln!(text, "  - {}: skipped, {}", skipped.key, skipped.reason);
    }
    text
}

/// One plugin: its name, whose, its trust, then a line per kind of thing it brings.
fn one(plugin: &Plugin, agents: &crate::agent::Agents) -> String {
    let assessment = crate::trust::plugin::assess(plugin);
    let trust = match assessment.answer {
        _ if assessment.inventory.is_empty() => "starts no programs",
        Some(true) => "trusted: its hooks and MCP servers run",
        Some(false) => "refused: its hooks and MCP servers do not run",
        None => "not trusted yet: Tandem asks before its hooks and MCP servers run",
    };
    let whose = match &plugin.scope {
        Scope::User => "yours".to_owned(),
        Scope::Project(folder) => format!("installed for {}", folder.display()),
    };
    let mut text = format!("  {} ({}, {whose}): {trust}\n", plugin.name, plugin.key);
    let mut list = |label: &str, names: Vec<String>| {
        if !names.is_empty() {
            let _ = writeln!(text, "    {label}: {}", names.join(", "));
        }
    };
    list("skills", skills(plugin));
    list(
        "commands",
        names_in(&plugin.command_dirs(), |n| format!("/{}:{n}", plugin.name)),
    );
    let prefix = format!("{}:", plugin.name);
    list(
        "agents",
        (agents.subagents().into_iter())
            .filter(|a| a.name.starts_with(&prefix))
            .map(|a| a.name.clone())
            .collect(),
    );
    for line in assessment.inventory.lines() {
        let _ = writeln!(text, "    {line}");
    }
    let problems = (plugin.hooks().into_iter().filter_map(Result::err))
        .chain(plugin.servers().into_iter().filter_map(Result::err))
        .chain(
            (agents.problems.iter())
                .filter(|p| p.contains(&plugin.root.display().to_string()))
                .cloned(),
        );
    for problem in problems {
        let _ = writeln!(text, "    ! {problem}");
    }
    text
}

/// The skills in the plugin's skill folders (each folder with a `SKILL.md`).
fn skills(plugin: &Plugin) -> Vec<String> {
    let mut names = Vec::new();
    for dir in plugin.skill_dirs() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.path().join("SKILL.md").is_file() {
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
    }
    names.sort();
    names
}

/// The Markdown files of `dirs`, each named by `name`.
fn names_in(dirs: &[std::path::PathBuf], name: impl Fn(&str) -> String) -> Vec<String> {
    (dirs.iter())
        .flat_map(|d| crate::config::markdown::files(d))
        .map(|(stem, _)| name(&stem))
        .collect()
}
