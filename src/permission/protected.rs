//! Files whose contents something runs or obeys on its own (git hooks and config, direnv,
//! editor tasks, dev containers, Tandem's and OpenCode's own config): an edit of one always asks.

/// The protected files and folders at a project's root, as the sandbox keeps them read-only
/// (where they exist); `why` recognises these and their like anywhere in the project.
pub const AT_PROJECT_ROOT: &[&str] = &[
    ".git/hooks",
    ".git/config",
    ".husky",
    ".pre-commit-config.yaml",
    "lefthook.yml",
    ".lefthook.yml",
    "tandem.json",
    "tandem.jsonc",
    ".tandem",
    "opencode.json",
    "opencode.jsonc",
    ".opencode",
    ".envrc",
    "mise.toml",
    ".mise.toml",
    ".cargo/config.toml",
    ".cargo/config",
    ".vscode",
    ".zed",
    ".idea",
    ".devcontainer",
];

/// Why writing `path` (relative to the project, or absolute) is more than an edit, if it is.
pub fn why(path: &str) -> Option<&'static str> {
    let lower = path.replace('\\', "/").to_ascii_lowercase();
    let parts: Vec<&str> = lower
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let name = *parts.last()?;
    let within = |dir: &str| parts[..parts.len() - 1].contains(&dir) || name == dir;
    let pair = |dir: &str, file: &str| parts.windows(2).any(|w| w[0] == dir && w[1] == file);
    let hook_managers = matches!(
        name,
        ".pre-commit-config.yaml" | "lefthook.yml" | ".lefthook.yml" | "lefthook.yaml"
    );
    if pair(".git", "hooks") || pair(".git", "config") || within(".husky") || hook_managers {
        return Some("git runs or obeys this file on its own");
    }
    if matches!(
        name,
        "tandem.json" | "tandem.jsonc" | "opencode.json" | "opencode.jsonc"
    ) || within(".tandem")
        || within(".opencode")
    {
        return Some("it changes what Tandem may do in later sessions");
    }
    // Claude Code's settings carry hooks Tandem runs (the person's without asking).
    if pair(".claude", "settings.json") || pair(".claude", "settings.local.json") {
        return Some("Tandem runs the hooks it names");
    }
    if name == ".envrc" || name == ".env.local.sh" || matches!(name, "mise.toml" | ".mise.toml") {
        return Some("your shell runs it when you enter the folder");
    }
    if pair(".cargo", "config.toml") || pair(".cargo", "config") {
        return Some("cargo obeys it (it can name programs to run) when you build");
    }
    if within(".vscode") || within(".zed") || within(".devcontainer") || within(".idea") {
        return Some("your editor or dev container runs what it says");
    }
    None
}

/// Why writing `path` (relative to `project`, or absolute) is more than an edit because a
/// protected name at the project's root is a symlink to it (or to a folder holding it): what
/// runs or obeys that name runs or obeys this.
pub fn linked_to(project: &std::path::Path, path: &str) -> Option<&'static str> {
    let real = |p: &std::path::Path| crate::paths::real_path(p).unwrap_or_else(|_| p.to_path_buf());
    let target = real(&crate::paths::resolve_in(project, path));
    AT_PROJECT_ROOT.iter().find_map(|entry| {
        let link = project.join(entry);
        let points = std::fs::read_link(&link).ok()?;
        let pointed = real(&link.parent().unwrap_or(project).join(points));
        target
            .starts_with(&pointed)
            .then_some("a protected name at the project's root links to it")
    })
}

#[cfg(test)]
mod tests {
    use super::why;

    #[test]
    fn every_root_entry_the_sandbox_keeps_read_only_is_one_the_rules_protect() {
        for path in super::AT_PROJECT_ROOT {
            assert!(why(path).is_some(), "{path}");
        }
    }

    #[test]
    fn files_that_run_or_steer_are_protected_and_ordinary_files_are_not() {
        for path in [
            ".git/hooks/pre-commit",
            "./.git/config",
            "sub/.git/hooks",
            ".husky/pre-push",
            "tandem.json",
            "app/tandem.jsonc",
            ".tandem/agent/build.md",
            "opencode.json",
            ".opencode/agent/x.md",
            ".envrc",
            ".vscode/tasks.json",
            ".zed/tasks.json",
            ".devcontainer/devcontainer.json",
            ".GIT/HOOKS/x",
            ".pre-commit-config.yaml",
            ".cargo/config.toml",
            "mise.toml",
            ".claude/settings.json",
            "/home/me/.claude/settings.local.json",
        ] {
            assert!(why(path).is_some(), "{path}");
        }
        for path in [
            "src/main.rs",
            ".gitignore",
            "docs/git/config.md",
            "a.txt",
            ".github/workflows/ci.yml",
            ".claude/skills/x/SKILL.md",
        ] {
            assert!(why(path).is_none(), "{path}");
        }
    }
}
