//! The source keeps its shape: no module of `session/` imports another in a circle, the modules
//! a turn uses never import the actor or the manager, nothing under `session/` names an ACP
//! type, and no file in `src/` grows past 500 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            files.push((path.display().to_string(), text));
        }
    }
    files
}

/// The sibling modules a `session/` module imports through `super::`.
fn imports(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in text.match_indices("super::") {
        let rest = &text[at + "super::".len()..];
        let names: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => group[..group.find('}').unwrap()]
                .split(',')
                .map(|n| n.trim().split("::").next().unwrap())
                .collect(),
            None => vec![
                rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                    .next()
                    .unwrap(),
            ],
        };
        found.extend(
            names
                .into_iter()
                .filter(|n| modules.contains(*n))
                .map(str::to_owned),
        );
    }
    found
}

fn session_graph() -> BTreeMap<String, BTreeSet<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/session");
    let files: BTreeMap<String, String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    let modules: BTreeSet<String> = files.keys().filter(|n| *n != "mod").cloned().collect();
    files
        .iter()
        .filter(|(name, _)| *name != "mod")
        .map(|(name, text)| {
            // Unit tests may reach anything; the layering is about the code they test.
            let code = text.split("#[cfg(test)]").next().unwrap();
            (name.clone(), imports(code, &modules))
        })
        .collect()
}

#[test]
fn session_modules_import_each_other_without_a_circle() {
    let graph = session_graph();
    assert!(
        graph["step"].contains("calls"),
        "the parser sees imports: {graph:?}"
    );
    // Depth-first search for a back edge.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) {
        if done.contains(node) {
            return;
        }
        if let Some(at) = path.iter().position(|n| n == node) {
            panic!("import circle: {} -> {node}", path[at..].join(" -> "));
        }
        path.push(node.to_owned());
        for next in &graph[node] {
            visit(next, graph, path, done);
        }
        path.pop();
        done.insert(node.to_owned());
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        visit(node, &graph, &mut Vec::new(), &mut done);
    }
}

#[test]
fn only_the_manager_imports_the_actor_and_nothing_imports_the_manager() {
    // `surface` is the manager's second half (revert, diff, fork, status): one type, two files.
    for (module, imported) in session_graph() {
        if module == "surface" {
            assert!(
                !imported.contains("actor"),
                "surface goes through the manager"
            );
            continue;
        }
        if module != "manager" {
            assert!(!imported.contains("actor"), "{module} imports the actor");
        }
        assert!(
            !imported.contains("manager"),
            "{module} imports the manager"
        );
    }
}

#[test]
fn nothing_under_session_names_acp() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/session");
    for (path, text) in sources(&dir) {
        assert!(
            !text.contains("agent_client_protocol"),
            "{path} names the ACP crate"
        );
    }
}

#[test]
fn no_source_file_is_over_500_lines() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (path, text) in sources(&dir) {
        let lines = text.lines().count();
        assert!(lines <= 500, "{path} has {lines} lines");
    }
}
