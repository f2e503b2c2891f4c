//! Which language servers a project may use: the built-in definitions (each used only when
//! its program is found, never downloaded), with the config's `lsp` block overriding them by
//! name, adding its own, or turning them off; and which apply to a file.

use std::path::Path;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value;

use super::locate;
use crate::config::{Config, LspServerConfig, Switchable};

/// A server Tandem may start.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// Extensions with their dot, lowercase.
    pub extensions: Vec<String>,
    /// Marker files of its root.
    pub roots: Vec<String>,
    pub env: IndexMap<String, String>,
    pub initialization: Option<Value>,
    /// Built-ins of one language stand in for each other: the first found serves it.
    pub language: Option<&'static str>,
    /// Serves only files under one of its root markers (rust-analyzer has nothing to do
    /// without a Cargo.toml).
    pub needs_root: bool,
}

struct Builtin {
    name: &'static str,
    command: &'static [&'static str],
    extensions: &'static [&'static str],
    roots: &'static [&'static str],
    language: &'static str,
    needs_root: bool,
}

const PYTHON_ROOTS: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "Pipfile",
    "pyrightconfig.json",
];
const JS_ROOTS: &[&str] = &["tsconfig.json", "jsconfig.json", "package.json"];
const JS_EXTENSIONS: &[&str] = &[".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"];
const C_EXTENSIONS: &[&str] = &[
    ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".m", ".mm",
];

/// In order of preference within a language.
const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "rust-analyzer",
        command: &["rust-analyzer"],
        extensions: &[".rs"],
        roots: &["Cargo.toml", "rust-project.json"],
        language: "rust",
        needs_root: true,
    },
    Builtin {
        name: "typescript",
        command: &["typescript-language-server", "--stdio"],
        extensions: JS_EXTENSIONS,
        roots: JS_ROOTS,
        language: "javascript",
        needs_root: false,
    },
    Builtin {
        name: "basedpyright",
        command: &["basedpyright-langserver", "--stdio"],
        extensions: &[".py", ".pyi"],
        roots: PYTHON_ROOTS,
        language: "python",
        needs_root: false,
    },
    Builtin {
        name: "pyright",
        command: &["pyright-langserver", "--stdio"],
        extensions: &[".py", ".pyi"],
        roots: PYTHON_ROOTS,
        language: "python",
        needs_root: false,
    },
    Builtin {
        name: "pylsp",
        command: &["pylsp"],
        extensions: &[".py", ".pyi"],
        roots: PYTHON_ROOTS,
        language: "python",
        needs_root: false,
    },
    Builtin {
        name: "gopls",
        command: &["gopls"],
        extensions: &[".go"],
        roots: &["go.work", "go.mod"],
        language: "go",
        needs_root: false,
    },
    Builtin {
        name: "clangd",
        command: &["clangd"],
        extensions: C_EXTENSIONS,
        roots: &[
            "compile_commands.json",
            "compile_flags.txt",
            ".clangd",
            "CMakeLists.txt",
            "Makefile",
        ],
        language: "c",
        needs_root: false,
    },
    Builtin {
        name: "bash",
        command: &["bash-language-server", "start"],
        extensions: &[".sh", ".bash"],
        roots: &[],
        language: "bash",
        needs_root: false,
    },
    Builtin {
        name: "ruby-lsp",
        command: &["ruby-lsp"],
        extensions: &[".rb", ".rake", ".gemspec"],
        roots: &["Gemfile"],
        language: "ruby",
        needs_root: false,
    },
    Builtin {
        name: "zls",
        command: &["zls"],
        extensions: &[".zig", ".zon"],
        roots: &["build.zig"],
        language: "zig",
        needs_root: false,
    },
    Builtin {
        name: "lua-language-server",
        command: &["lua-language-server"],
        extensions: &[".lua"],
        roots: &[".luarc.json", ".luarc.jsonc"],
        language: "lua",
        needs_root: false,
    },
];

/// Every server the config allows, built-ins first (in preference order), then its own;
/// None when `"lsp": false`.
pub fn servers(config: &Config) -> Option<Arc<[ServerSpec]>> {
    let entries = Switchable::entries(config.lsp.as_ref())?;
    let given: IndexMap<&str, &LspServerConfig> = entries.into_iter().collect();
    let mut specs: Vec<ServerSpec> = Vec::new();
    for builtin in BUILTINS {
        let over = given.get(builtin.name).copied();
        if over.and_then(|o| o.disabled) == Some(true) {
            continue;
        }
        let mut spec = ServerSpec {
            name: builtin.name.to_owned(),
            command: builtin.command.iter().map(|s| s.to_string()).collect(),
            extensions: builtin.extensions.iter().map(|s| s.to_string()).collect(),
            roots: builtin.roots.iter().map(|s| s.to_string()).collect(),
            env: IndexMap::new(),
            initialization: None,
            language: Some(builtin.language),
            needs_root: builtin.needs_root,
        };
        if let Some(over) = over {
            apply(&mut spec, over);
        }
        specs.push(spec);
    }
    for (name, over) in given {
        let builtin = BUILTINS.iter().any(|b| b.name == name);
        if builtin || over.disabled == Some(true) {
            continue;
        }
        let mut spec = ServerSpec {
            name: name.to_owned(),
            command: Vec::new(),
            extensions: Vec::new(),
            roots: Vec::new(),
            env: IndexMap::new(),
            initialization: None,
            language: None,
            needs_root: false,
        };
        apply(&mut spec, over);
        if spec.command.is_empty() || spec.extensions.is_empty() {
            tracing::warn!(
                server = name,
                "an lsp entry needs a command and extensions; skipped"
            );
            continue;
        }
        specs.push(spec);
    }
    Some(specs.into())
}

fn apply(spec: &mut ServerSpec, over: &LspServerConfig) {
    if let Some(command) = over.command.as_ref().filter(|c| !c.is_empty()) {
        spec.command = command.clone();
    }
    if let Some(extensions) = &over.extensions {
        spec.extensions = extensions.iter().map(|e| locate::dotted(e)).collect();
    }
    if let Some(roots) = &over.roots {
        spec.roots = roots.clone();
    }
    spec.env.extend(over.env.clone());
    if over.initialization.is_some() {
        spec.initialization = over.initialization.clone();
    }
}

/// The servers that serve `file` and whose program is found: of the built-ins, the first
/// found for the file's language; every configured one.
pub fn for_file<'a>(
    specs: &'a [ServerSpec],
    file: &Path,
    top: &Path,
    standing: &crate::config::Standing,
) -> Vec<(&'a ServerSpec, std::path::PathBuf)> {
    let extension = locate::extension(file);
    let mut languages: Vec<&str> = Vec::new();
    let mut chosen = Vec::new();
    for spec in specs.iter().filter(|s| s.extensions.contains(&extension)) {
        if spec.language.is_some_and(|l| languages.contains(&l)) {
            continue;
        }
        let from = file.parent().unwrap_or(top);
        if let Some(program) = locate::program(&spec.command[0], from, top, standing) {
            languages.extend(spec.language);
            chosen.push((spec, program));
        }
    }
    chosen
}

/// The programs the built-in servers start, by name (looked up on `PATH`).
pub fn builtin_programs() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().filter_map(|b| b.command.first().copied())
}

/// The built-in servers' names, for the docs and `tandem doctor`.
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().map(|b| b.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(json: &str) -> Config {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn the_config_overrides_adds_and_turns_off() {
        let specs = servers(&config(
            r#"{"lsp": {"pylsp": {"command": ["/opt/pylsp", "-v"]},
            "pyright": {"disabled": true}, "mine": {"command": ["m"], "extensions": ["foo"]},
            "broken": {"command": ["b"]}}}"#,
        ))
        .unwrap();
        let pylsp = specs.iter().find(|s| s.name == "pylsp").unwrap();
        assert_eq!(pylsp.command, ["/opt/pylsp", "-v"]);
        assert_eq!(pylsp.extensions, [".py", ".pyi"]);
        assert!(
            !specs
                .iter()
                .any(|s| s.name == "pyright" || s.name == "broken")
        );
        let mine = specs.last().unwrap();
        assert_eq!(
            (mine.name.as_str(), mine.extensions.clone()),
            ("mine", vec![".foo".to_owned()])
        );
        assert_eq!(servers(&config(r#"{"lsp": false}"#)), None);
        assert_eq!(servers(&Config::default()).unwrap().len(), BUILTINS.len());
    }
}
