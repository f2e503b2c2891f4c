//! The source keeps its shape: imports run down the layers `src/lib.rs` lists (written there
//! once, read here), no module imports another in a circle anywhere in `src/` (a `pub use`
//! across top modules counts as an import of the module that makes it), the turn never
//! imports the actor or the manager, nothing under `session/` names an ACP type, and no file
//! grows past 500 lines nor any function past 80.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's path inside the crate, `""` for the root: `session::turn`.
type Module = String;

struct Source {
    module: Module,
    /// The code without comments and without the unit tests at its end.
    code: String,
    path: String,
}

fn src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn walk(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// Every file of the library crate (not `main.rs`, a crate of its own), with its module path.
fn sources() -> Vec<Source> {
    let root = src();
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    files
        .into_iter()
        .filter(|p| p.file_name().unwrap() != "main.rs")
        // Unit tests in a file of their own are read as the tests at a file's end are: not at all.
        .filter(|p| p.file_name().unwrap() != "tests.rs")
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
                parts.pop();
            }
            let text = std::fs::read_to_string(&p).unwrap();
            Source {
                module: parts.join("::"),
                code: without_comments(text.split("#[cfg(test)]").next().unwrap()),
                path: p.display().to_string(),
            }
        })
        .collect()
}

fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths a use tree starting at `text` names: `a::{b, c::{d, e}}` is `a::b`, `a::c::d`,
/// `a::c::e`. Returns them with the length read.
fn paths_at(text: &str) -> (Vec<Vec<String>>, usize) {
    let mut at = 0;
    let mut segments = Vec::new();
    loop {
        let rest = &text[at..];
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        if let Some(group) = trimmed.strip_prefix('{') {
            at += 1;
            let mut all = Vec::new();
            let mut inner = group;
            loop {
                let (paths, used) = paths_at(inner);
                all.extend(paths.into_iter().map(|p| [segments.clone(), p].concat()));
                at += used;
                let after = &text[at..];
                let skip = after.len() - after.trim_start().len();
                at += skip;
                match text[at..].chars().next() {
                    Some(',') => {
                        at += 1;
                        inner = &text[at..];
                        if inner.trim_start().starts_with('}') {
                            at += inner.len() - inner.trim_start().len() + 1;
                            return (all, at);
                        }
                    }
                    Some('}') => return (all, at + 1),
                    _ => return (all, at),
                }
            }
        }
        let word: String = trimmed.chars().take_while(|c| is_ident(*c)).collect();
        if word.is_empty() {
            return (vec![segments], at);
        }
        at += word.len();
        segments.push(word);
        if text[at..].starts_with("::") {
            at += 2;
        } else {
            return (vec![segments], at);
        }
    }
}

/// The module a relative path is read from: `crate`, `super` (repeated) and `self` resolved.
fn anchor(module: &str, path: &[String]) -> Option<(Vec<String>, usize)> {
    let mut base: Vec<String> = module
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    match path.first().map(String::as_str) {
        Some("crate") => return Some((Vec::new(), 1)),
        Some("self") => return Some((base, 1)),
        Some("super") => {}
        _ => return None,
    }
    let mut used = 0;
    while path.get(used).map(String::as_str) == Some("super") {
        base.pop()?;
        used += 1;
    }
    Some((base, used))
}

struct Crate {
    modules: BTreeSet<Module>,
    /// Per module, the names it re-exports (`pub use x::Name`) and the module they come from.
    reexports: BTreeMap<Module, BTreeMap<String, Vec<String>>>,
}

impl Crate {
    /// The module a full path lands in: its longest module prefix, followed through
    /// re-exports inside one top module only. A re-export across top modules is an import
    /// of the module that makes it, so it can never hide a circle or an upward arrow.
    fn resolve(&self, path: &[String]) -> Module {
        let mut depth = 0;
        for n in 1..=path.len() {
            if self.modules.contains(&path[..n].join("::")) {
                depth = n;
            }
        }
        let module = path[..depth].join("::");
        if let Some(name) = path.get(depth)
            && let Some(target) = self.reexports.get(&module).and_then(|m| m.get(name))
            && target.as_slice() != path
            && target.first().map(String::as_str) == Some(top(&module))
        {
            let mut next = target.clone();
            next.extend_from_slice(&path[depth + 1..]);
            return self.resolve(&next);
        }
        module
    }
}

/// The full paths one module's code names, each from the crate root; `pub use` lines apart.
fn named_paths(
    source: &Source,
    modules: &BTreeSet<Module>,
) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let (mut used, mut exported) = (Vec::new(), Vec::new());
    let code = &source.code;
    let own: Vec<String> = source
        .module
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    let mut at = 0;
    while at < code.len() {
        let rest = &code[at..];
        let starts_word = at == 0 || !code[..at].ends_with(|c: char| is_ident(c) || c == ':');
        let use_line = rest.starts_with("use ")
            && (at == 0
                || code[..at].ends_with(|c: char| c.is_whitespace() || c == ')' || c == ';'));
        if starts_word
            && (use_line
                || ["crate::", "super::", "self::"]
                    .iter()
                    .any(|p| rest.starts_with(p)))
        {
            let before = code[..at].trim_end();
            let export = use_line && (before.ends_with("pub") || before.ends_with(')'));
            let skip = if use_line { 4 } else { 0 };
            let (paths, len) = paths_at(&code[at + skip..]);
            for path in paths {
                let full = match anchor(&source.module, &path) {
                    Some((mut base, n)) => {
                        base.extend_from_slice(&path[n..]);
                        base
                    }
                    None if use_line => {
                        // `use child::X` in a module with children is relative to it.
                        let mut child = own.clone();
                        child.push(path[0].clone());
                        if !modules.contains(&child.join("::")) {
                            continue;
                        }
                        child.extend_from_slice(&path[1..]);
                        child
                    }
                    None => continue,
                };
                if export {
                    exported.push(full)
                } else {
                    used.push(full)
                }
            }
            at += skip + len.max(1);
        } else {
            at += rest.chars().next().unwrap().len_utf8();
        }
    }
    (used, exported)
}

/// Module → the modules its code imports (its own descendants and itself left out).
fn graph() -> BTreeMap<Module, BTreeSet<Module>> {
    let sources = sources();
    let modules: BTreeSet<Module> = sources.iter().map(|s| s.module.clone()).collect();
    let mut krate = Crate {
        modules: modules.clone(),
        reexports: BTreeMap::new(),
    };
    let mut used = BTreeMap::new();
    for source in &sources {
        let (paths, exported) = named_paths(source, &modules);
        let names = exported
            .into_iter()
            .filter_map(|p| Some((p.last()?.clone(), p)))
            .collect();
        krate.reexports.insert(source.module.clone(), names);
        used.insert(source.module.clone(), paths);
    }
    used.into_iter()
        .map(|(module, paths)| {
            let targets = paths
                .iter()
                .map(|p| krate.resolve(p))
                .filter(|t| !t.is_empty() && *t != module && !t.starts_with(&format!("{module}::")))
                .collect();
            (module, targets)
        })
        .collect()
}

fn circle(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<Module, BTreeSet<Module>>,
        path: &mut Vec<Module>,
        done: &mut BTreeSet<Module>,
    ) -> Option<Vec<Module>> {
        if done.contains(node) {
            return None;
        }
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

/// The layers `src/lib.rs` lists in its doc comment, bottom first, each a set of top modules.
fn layers() -> Vec<Vec<String>> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let doc: String = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join(" ");
    let order = doc
        .split_once("Layers, bottom up:")
        .expect("lib.rs lists its layers")
        .1
        .split_once('.')
        .unwrap()
        .0;
    order
        .split('→')
        .map(|layer| {
            layer
                .split(',')
                .map(|m| m.split_whitespace().next().unwrap().to_owned())
                .collect()
        })
        .collect()
}

fn top(module: &str) -> &str {
    module.split("::").next().unwrap()
}

#[test]
fn the_reader_sees_imports() {
    let graph = graph();
    assert!(
        graph["session::turn::step"].contains("session::turn::calls"),
        "{:?}",
        graph["session::turn::step"]
    );
    assert!(graph["acp"].iter().any(|m| m.starts_with("session")));
}

#[test]
fn no_module_imports_another_in_a_circle() {
    let graph = graph();
    if let Some(found) = circle(&graph) {
        panic!("import circle: {}", found.join(" -> "));
    }
}

#[test]
fn imports_run_down_the_layers_lib_rs_lists() {
    let layers = layers();
    let level: BTreeMap<&str, usize> = layers
        .iter()
        .enumerate()
        .flat_map(|(n, l)| l.iter().map(move |m| (m.as_str(), n)))
        .collect();
    let tops: BTreeSet<&str> = sources()
        .iter()
        .map(|s| top(&s.module))
        .filter(|m| !m.is_empty())
        .map(|m| m.to_owned().leak() as &str)
        .collect();
    let listed: BTreeSet<&str> = level.keys().copied().collect();
    assert_eq!(tops, listed, "lib.rs lists every top module once");
    let mut upward = Vec::new();
    let mut between: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, targets) in graph() {
        for target in targets {
            let (from, to) = (top(&module), top(&target));
            if from == to || from.is_empty() {
                continue;
            }
            if level[to] > level[from] {
                upward.push(format!("{module} -> {target}"));
            }
            between
                .entry(from.to_owned())
                .or_default()
                .insert(to.to_owned());
        }
    }
    assert!(
        upward.is_empty(),
        "imports that run upward:\n{}",
        upward.join("\n")
    );
    if let Some(found) = circle(&between) {
        panic!("top modules in a circle: {}", found.join(" -> "));
    }
}

/// The actor and the manager sit on top of `session/`: only the manager starts actors (its
/// `lifecycle` part opens them), and nothing in the session layer reaches back up to the
/// manager but its other parts, grouped by purpose: `lifecycle`, `turns`, `history` and
/// `trust` (the folder's standing before a prompt): one type, five files.
#[test]
fn only_the_manager_imports_the_actor_and_nothing_imports_the_manager() {
    let named = |imported: &BTreeSet<Module>, name: &str| {
        imported
            .iter()
            .any(|m| m.starts_with("session::") && m.ends_with(name))
    };
    for (module, imported) in graph() {
        if !module.starts_with("session::") {
            continue;
        }
        let part_of_manager = ["::lifecycle", "::turns", "::history", "::host::trust"]
            .iter()
            .any(|part| module.ends_with(part));
        let (is_manager, is_surface) = (
            module.ends_with("::manager") || module.ends_with("::host::lifecycle"),
            part_of_manager,
        );
        if !is_manager {
            assert!(!named(&imported, "::actor"), "{module} imports the actor");
        }
        if !is_surface {
            assert!(
                !named(&imported, "::manager"),
                "{module} imports the manager"
            );
        }
    }
}

#[test]
fn nothing_under_session_names_acp() {
    for source in sources() {
        if top(&source.module) == "session" {
            assert!(
                !source.code.contains("agent_client_protocol"),
                "{} names the ACP crate",
                source.path
            );
        }
    }
}

#[test]
fn no_source_file_is_over_500_lines() {
    let mut files = Vec::new();
    walk(&src(), &mut files);
    for path in files {
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert!(lines <= 500, "{} has {lines} lines", path.display());
    }
}

/// Functions, found by their `fn` line and the line that closes them at the same indent (unit
/// tests apart: a table of cases may run long).
#[test]
fn no_function_is_over_80_lines() {
    let mut files = Vec::new();
    walk(&src(), &mut files);
    files.retain(|p| p.file_name().unwrap() != "tests.rs");
    let mut long = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        let lines: Vec<&str> = code.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let body = line.trim_start();
            let indent = line.len() - body.len();
            let is_fn = [
                "fn ",
                "pub fn ",
                "pub(crate) fn ",
                "pub(super) fn ",
                "async fn ",
                "pub async fn ",
                "pub(crate) async fn ",
                "pub(super) async fn ",
            ]
            .iter()
            .any(|p| body.starts_with(p));
            if !is_fn || line.trim_end().ends_with(';') {
                continue;
            }
            let end = lines[n..]
                .iter()
                .position(|l| {
                    l.len() > indent
                        && l[..indent].trim().is_empty()
                        && l[indent..].starts_with('}')
                })
                .map(|e| n + e);
            if let Some(end) = end
                && end - n + 1 > 80
            {
                long.push(format!(
                    "{}:{} ({} lines)",
                    path.display(),
                    n + 1,
                    end - n + 1
                ));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over 80 lines:\n{}",
        long.join("\n")
    );
}

/// System calls live in `sys/`: no `unsafe` elsewhere (unit tests aside), and every `unsafe`
/// there follows a `SAFETY:` comment saying why it is sound.
#[test]
fn unsafe_code_lives_in_sys_and_says_why() {
    let mut outside = Vec::new();
    let mut unexplained = Vec::new();
    for source in sources() {
        let raw = std::fs::read_to_string(&source.path).unwrap();
        let code = raw.split("#[cfg(test)]").next().unwrap();
        let lines: Vec<&str> = code.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let text = line.split("//").next().unwrap();
            if !text.contains("unsafe ") && !text.contains("unsafe{") {
                continue;
            }
            if top(&source.module) != "sys" {
                outside.push(format!("{}:{}", source.path, n + 1));
                continue;
            }
            let said = lines[n.saturating_sub(3)..=n]
                .iter()
                .any(|l| l.contains("SAFETY:"));
            if !said {
                unexplained.push(format!("{}:{}", source.path, n + 1));
            }
        }
    }
    assert!(outside.is_empty(), "unsafe outside sys/: {outside:?}");
    assert!(
        unexplained.is_empty(),
        "unsafe without a SAFETY comment: {unexplained:?}"
    );
}

/// The floors a top module's `mod.rs` lists ("Floors, bottom up: a, b → c → d."): each of
/// its folders imports only from its own floor or those below.
fn check_floors(top_module: &str) {
    let doc: String = std::fs::read_to_string(src().join(top_module).join("mod.rs"))
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join(" ");
    let floors: Vec<Vec<String>> = doc
        .split_once("Floors, bottom up:")
        .unwrap_or_else(|| panic!("{top_module}/mod.rs lists its floors"))
        .1
        .split_once('.')
        .unwrap()
        .0
        .split('→')
        .map(|floor| floor.split(',').map(|m| m.trim().to_owned()).collect())
        .collect();
    let level = |folder: &str| {
        floors
            .iter()
            .position(|f| f.iter().any(|m| m == folder))
            .unwrap_or_else(|| panic!("{top_module}/{folder} is on no floor of its mod.rs"))
    };
    let mut upward = Vec::new();
    for (module, targets) in graph() {
        let from: Vec<&str> = module.split("::").collect();
        if from[0] != top_module || from.len() < 2 {
            continue;
        }
        for target in targets {
            let to: Vec<&str> = target.split("::").collect();
            if to[0] != top_module || to.len() < 2 || to[1] == from[1] {
                continue;
            }
            if level(to[1]) > level(from[1]) {
                upward.push(format!("{module} -> {target}"));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "{top_module} imports that run upward:\n{}",
        upward.join("\n")
    );
}

/// `session/` stands on floors: a shared core below the host and the turn.
#[test]
fn session_folders_import_down_their_floors() {
    check_floors("session");
}

/// `acp/` is split by direction: what the editor calls sits on what Tandem asks of it and
/// what Tandem sends it unasked, and neither of those reaches back into the calls.
#[test]
fn acp_folders_import_down_their_floors() {
    check_floors("acp");
}

/// Permission keys are named once (`permission/keys.rs`): code that raises or checks a
/// built-in key uses its constant, never a string a typo would turn into a rule that never
/// matches.
#[test]
fn built_in_permission_keys_are_never_spelt_out_where_raised_or_checked() {
    let keys: Vec<&str> = tandem::permission::keys::BUILT_IN
        .iter()
        .map(|(k, _)| *k)
        .collect();
    let mut spelt = Vec::new();
    for source in sources() {
        if source.module == "permission::keys" {
            continue;
        }
        let code: String = source.code.split_whitespace().collect::<Vec<_>>().join(" ");
        for call in [
            "Rule::new(",
            "Need::new(",
            "PermissionCheck::new(",
            "verdict(",
            "evaluate(",
            "contexts(",
        ] {
            for key in &keys {
                for form in [format!("{call}\"{key}\""), format!("{call} \"{key}\"")] {
                    if code.contains(&form) {
                        spelt.push(format!("{}: {form}", source.path));
                    }
                }
            }
        }
    }
    assert!(spelt.is_empty(), "keys spelt out:\n{}", spelt.join("\n"));
}

/// `docs/architecture.md`'s folder map names every module under `src/` (each file's or
/// folder's name appears in it), so the map cannot fall behind a move.
#[test]
fn the_architecture_map_names_every_module() {
    let doc = std::fs::read_to_string(src().join("../docs/architecture.md")).unwrap();
    let words: BTreeSet<&str> = doc
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let mut files = Vec::new();
    walk(&src(), &mut files);
    let mut missing = BTreeSet::new();
    for path in files {
        let rel = path.strip_prefix(src()).unwrap();
        for part in rel.with_extension("").components() {
            let name = part.as_os_str().to_string_lossy().into_owned();
            if !["mod", "lib", "main", "tests"].contains(&name.as_str())
                && !words.contains(name.as_str())
            {
                missing.insert(rel.display().to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/architecture.md does not name:\n{}",
        missing.into_iter().collect::<Vec<_>>().join("\n")
    );
}
