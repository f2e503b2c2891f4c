//! The ACP registry manifest (`editors/registry/agent.json`) stays in step with Cargo.toml and
//! with the archive `scripts/release` builds; `tandem acp` is what each platform runs.

use std::path::PathBuf;

use serde_json::{Value, json};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(root().join("editors/registry/agent.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn the_manifest_says_what_cargo_toml_says() {
    let manifest = manifest();
    assert_eq!(manifest["id"], "tandem");
    assert_eq!(manifest["name"], "Tandem");
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(manifest["description"], env!("CARGO_PKG_DESCRIPTION"));
    assert_eq!(manifest["license"], env!("CARGO_PKG_LICENSE"));
    assert_eq!(manifest["repository"], env!("CARGO_PKG_REPOSITORY"));
    let authors: Vec<&str> = env!("CARGO_PKG_AUTHORS").split(':').collect();
    assert_eq!(manifest["authors"], json!(authors));
    // Only the registry format's fields.
    let keys: Vec<&str> = manifest
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for key in &keys {
        assert!(
            [
                "id",
                "name",
                "version",
                "description",
                "repository",
                "website",
                "authors",
                "license",
                "icon",
                "distribution"
            ]
            .contains(key),
            "{key} is not a registry field"
        );
    }
}

#[test]
fn each_platform_downloads_the_release_archive_and_runs_tandem_acp() {
    let manifest = manifest();
    let version = env!("CARGO_PKG_VERSION");
    let binary = manifest["distribution"]["binary"].as_object().unwrap();
    let platforms: Vec<&str> = binary.keys().map(String::as_str).collect();
    // Only what is built and tested: the sandbox and process handling are Linux's.
    assert_eq!(platforms, ["linux-x86_64"]);
    for (platform, entry) in binary {
        assert_eq!(
            entry["archive"],
            format!(
                "{}/releases/download/v{version}/tandem-{version}-{platform}.tar.gz",
                env!("CARGO_PKG_REPOSITORY")
            )
        );
        assert_eq!(entry["cmd"], "./tandem");
        assert_eq!(entry["args"], json!(["acp"]));
    }
}

#[test]
fn the_release_script_names_the_archive_the_manifest_points_at_for_this_platform() {
    let output = std::process::Command::new("bash")
        .arg(root().join("scripts/release"))
        .arg("--name")
        .output()
        .unwrap();
    assert!(output.status.success());
    let name = String::from_utf8(output.stdout).unwrap().trim().to_owned();
    let platform = name
        .strip_prefix(&format!("tandem-{}-", env!("CARGO_PKG_VERSION")))
        .and_then(|rest| rest.strip_suffix(".tar.gz"))
        .unwrap_or_else(|| panic!("unexpected archive name {name}"));
    let entry = &manifest()["distribution"]["binary"][platform];
    assert!(
        entry["archive"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/{name}")),
        "{entry}"
    );
}
