//! Agent definitions from files: Markdown with YAML frontmatter (the body is the prompt) and
//! the `agent` blocks of `opencode.json`. A bad file is reported naming the file and field.

use std::path::Path;

use serde_json::Value;

use crate::config::AgentConfig;

/// `(name, block)` pairs from OpenCode's files in the project: `opencode.json`'s `agent`
/// object, then `.opencode/agent/*.md`; in an untrusted folder, only what narrows.
pub fn opencode_layers(
    cwd: &Path,
    problems: &mut Vec<String>,
    trusted: bool,
) -> Vec<(String, AgentConfig)> {
    let mut layers = Vec::new();
    let path = cwd.join("opencode.json");
    if let Ok(text) = std::fs::read_to_string(&path) {
        let mut stripped = String::new();
        let parsed = std::io::Read::read_to_string(
            &mut json_comments::StripComments::new(text.as_bytes()),
            &mut stripped,
        )
        .ok()
        .and_then(|_| serde_json::from_str::<Value>(&stripped).ok());
        match parsed
            .as_ref()
            .and_then(|v| v.get("agent"))
            .and_then(Value::as_object)
        {
            Some(blocks) => {
                for (name, block) in blocks {
                    let mut block = block.clone();
                    if !trusted {
                        crate::config::restrict::agent_block(name, &mut block, &path);
                    }
                    match parse_block(block) {
                        Ok(config) => layers.push((name.clone(), config)),
                        Err((field, message)) => problems.push(format!(
                            "agent `{name}` in {}: field `{field}`: {message}",
                            path.display()
                        )),
                    }
                }
            }
            None if parsed.is_none() => problems.push(format!(
                "{} is not valid JSON; its agents are skipped",
                path.display()
            )),
            None => {}
        }
    }
    layers.extend(markdown_dir(
        &cwd.join(".opencode/agent"),
        problems,
        trusted,
    ));
    layers
}

/// Every `*.md` agent in `dir` (name = file stem), in name order; only what narrows unless
/// `trusted` (the person's own folder, or a trusted project's).
pub fn markdown_dir(
    dir: &Path,
    problems: &mut Vec<String>,
    trusted: bool,
) -> Vec<(String, AgentConfig)> {
    let mut agents = Vec::new();
    for (name, path) in crate::config::markdown::files(dir) {
        match std::fs::read_to_string(&path)
            .map_err(|e| ("(file)".to_owned(), e.to_string()))
            .and_then(|t| parse_markdown(&t, (!trusted).then_some((name.as_str(), path.as_path()))))
        {
            Ok(config) => agents.push((name, config)),
            Err((field, message)) => problems.push(format!(
                "agent file {}: field `{field}`: {message}; the file is skipped",
                path.display()
            )),
        }
    }
    agents
}

/// A Markdown agent: optional `---` YAML frontmatter, then the prompt. `untrusted` (its name
/// and file) keeps only what narrows.
fn parse_markdown(
    text: &str,
    untrusted: Option<(&str, &Path)>,
) -> Result<AgentConfig, (String, String)> {
    let (mut value, body) = crate::config::markdown::split(text)?;
    if let Some((name, path)) = untrusted {
        crate::config::restrict::agent_block(name, &mut value, path);
    }
    let mut config = parse_block(value)?;
    if !body.trim().is_empty() {
        config.prompt = Some(body.trim().to_owned());
    }
    Ok(config)
}

/// Type-checks one block, naming the field that is wrong.
fn parse_block(value: Value) -> Result<AgentConfig, (String, String)> {
    crate::config::markdown::typed(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_and_body() {
        let config = parse_markdown("---\ndescription: Reviews code\nmode: subagent\ntemperature: 0.1\nsteps: 5\npermission:\n  edit: deny\n---\nYou review code.\n", None).unwrap();
        assert_eq!(config.description.as_deref(), Some("Reviews code"));
        assert_eq!(config.mode, Some(crate::config::AgentMode::Subagent));
        assert_eq!(config.temperature, Some(0.1));
        assert_eq!(config.steps, Some(5));
        assert_eq!(config.prompt.as_deref(), Some("You review code."));
        assert!(config.permission.is_some());
    }

    #[test]
    fn bad_fields_are_named() {
        let (field, message) = parse_markdown("---\nsteps: many\n---\nx", None).unwrap_err();
        assert_eq!(field, "steps");
        assert!(message.contains("expected u32"), "{message}");
        let (field, _) = parse_markdown("---\nmode: boss\n---\n", None).unwrap_err();
        assert_eq!(field, "mode");
    }
}
