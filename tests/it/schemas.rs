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

/// Every ```jsonc block in `text`: the README writes tandem.json examples (or a fragment of
/// one, such as `"permission": {…}`) in jsonc blocks and nothing else.
fn jsonc_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start()) {
            (None, fence) if fence.starts_with("```jsonc") => current = Some(String::new()),
            (Some(_), "```") => blocks.push(current.take().unwrap()),
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            _ => {}
        }
    }
    blocks
}

/// A validator for the checked-in config schema.
fn config_validator() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/tandem.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).expect("the config schema compiles")
}

#[test]
fn every_config_example_in_the_docs_is_valid_against_the_config_schema() {
    use std::io::Read as _;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let validator = config_validator();
    let mut docs = vec![root.join("README.md")];
    for dir in ["docs", "editors"] {
        docs.extend(
            walk(&root.join(dir))
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "md")),
        );
    }
    let mut checked = 0;
    for doc in docs {
        let text = std::fs::read_to_string(&doc).unwrap();
        for block in jsonc_blocks(&text) {
            let mut plain = String::new();
            json_comments::StripComments::new(block.as_bytes())
                .read_to_string(&mut plain)
                .unwrap();
            let plain = plain.trim();
            let plain = if plain.starts_with('"') {
                format!("{{{plain}}}")
            } else {
                plain.to_owned()
            };
            let value: serde_json::Value = serde_json::from_str(&plain).unwrap_or_else(|e| {
                panic!(
                    "{}: a jsonc block is not JSON ({e}):\n{block}",
                    doc.display()
                )
            });
            let errors: Vec<String> = validator
                .iter_errors(&value)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            assert!(
                errors.is_empty(),
                "{}: an example config breaks the schema: {errors:?}\n{block}",
                doc.display()
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 4,
        "the README's config examples were found ({checked})"
    );
}

#[test]
fn the_schema_rejects_what_the_loader_rejects() {
    let validator = config_validator();
    for bad in [
        serde_json::json!({"provider": {"local": {"api": "grpc"}}}),
        serde_json::json!({"model": 4}),
        serde_json::json!({"permission": {"bash": "sometimes"}}),
    ] {
        assert!(!validator.is_valid(&bad), "{bad} passed the schema");
    }
}
