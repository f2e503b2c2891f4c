//! Slash commands invoked: `/name args` expands the command's template; a `subtask` command
//! (or one for a subagent) runs as a delegation at once; an unknown `/name` is plain text.

use crate::agent::Agents;
use crate::command::Commands;
use crate::message::PartBody;

/// A command the person invoked, expanded.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::session) struct Invocation {
    pub name: String,
    /// The template with its arguments filled in.
    pub text: String,
    pub description: Option<String>,
    pub agent: Option<String>,
    pub model: Option<String>,
    /// Runs as a delegation to `agent` instead of a model turn.
    pub subtask: bool,
}

/// The command in `content` (a first text part starting with `/name`), if it is configured.
pub(in crate::session) fn parse(
    content: &[PartBody],
    commands: &Commands,
    agents: &Agents,
) -> Option<Invocation> {
    let text = content.iter().find_map(|part| match part {
        PartBody::Text {
            text,
            synthetic: false,
        } => Some(text.trim()),
        _ => None,
    })?;
    let rest = text.strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let command = &commands.get(name)?.config;
    let args = args.trim();
    let mut expanded = command.template.replace("$ARGUMENTS", args);
    for (index, word) in args.split_whitespace().enumerate().take(9) {
        expanded = expanded.replace(&format!("${}", index + 1), word);
    }
    if !command.template.contains("$ARGUMENTS")
        && !command.template.contains("$1")
        && !args.is_empty()
    {
        expanded = format!("{expanded}\n\n{args}");
    }
    let for_subagent = command
        .agent
        .as_deref()
        .and_then(|a| agents.get(a))
        .is_some_and(|a| a.is_subagent() && !a.is_primary());
    Some(Invocation {
        name: name.to_owned(),
        text: expanded,
        description: command.description.clone(),
        agent: command.agent.clone(),
        model: command.model.clone(),
        subtask: command.subtask == Some(true) || for_subagent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn templates_expand_arguments() {
        let config = Config::from_json_str(
            r#"{"command": {"review": {"template": "Review $1 for $ARGUMENTS", "subtask": true, "agent": "general"},
                            "plain": {"template": "Explain the code"}}}"#,
        )
        .unwrap();
        let nowhere = std::path::Path::new("/nonexistent");
        let agents = Agents::load(&config, &[(nowhere, &crate::config::Standing::LISTING)]);
        let commands = Commands::load(&config, &[nowhere]);
        let text = |t: &str| {
            vec![PartBody::Text {
                text: t.into(),
                synthetic: false,
            }]
        };
        let review = parse(&text("/review src/a.rs"), &commands, &agents).unwrap();
        assert_eq!(review.text, "Review src/a.rs for src/a.rs");
        assert!(review.subtask);
        let plain = parse(&text("/plain main.rs please"), &commands, &agents).unwrap();
        assert_eq!(plain.text, "Explain the code\n\nmain.rs please");
        assert!(!plain.subtask);
        assert_eq!(parse(&text("/unknown x"), &commands, &agents), None);
        assert_eq!(parse(&text("no command"), &commands, &agents), None);
    }
}
