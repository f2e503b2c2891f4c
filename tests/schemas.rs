//! The checked-in JSON Schemas in `schemas/` are exactly what the code generates (run
//! `tandem schema --write` after changing a config, frontmatter, todo or tool input type), and
//! `tandem schema` prints the config's.

use std::path::Path;

#[test]
fn checked_in_schemas_match_the_types() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    let generated = tandem::schema::all();
    assert!(
        generated.len() >= 16,
        "config, agent, command, todo and every tool"
    );
    for (file, schema) in &generated {
        let on_disk = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
        assert!(
            on_disk == tandem::schema::render(schema),
            "schemas/{file} is out of date: run `cargo run -- schema --write`"
        );
    }
    let mut listed: Vec<String> = walk(&dir)
        .into_iter()
        .map(|p| p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned())
        .collect();
    listed.sort();
    let mut expected: Vec<String> = generated.into_iter().map(|(file, _)| file).collect();
    expected.sort();
    assert_eq!(listed, expected, "no stale schema files");
}

#[test]
fn the_config_schema_describes_the_config_keys() {
    let (_, config) = tandem::schema::all().remove(0);
    let keys = config["properties"].as_object().unwrap();
    for key in [
        "$schema",
        "model",
        "provider",
        "agent",
        "permission",
        "mcp",
        "command",
        "compaction",
        "snapshot",
        "server",
    ] {
        assert!(
            keys.contains_key(key),
            "{key} missing from the config schema"
        );
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tandem"))
        .arg("schema")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        tandem::schema::render(&config)
    );
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}
