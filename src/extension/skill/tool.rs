//! `skill`: loads one of the person's or the project's skills on demand. Its description lists
//! each skill the rules let this agent see (name and description, byte-stable while the skills
//! are), and a call returns the skill's instructions and the files beside them.

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::Skill;
use crate::permission::keys;
use crate::tool::{
    Need, PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput, input_schema,
    parse_input,
};

/// The `skill` tool of one session, over the skills its agent may see.
pub struct SkillTool {
    skills: Vec<Skill>,
    description: String,
}

/// The `skill` tool's arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillInput {
    /// The skill's name, as listed.
    pub name: String,
}

impl SkillTool {
    pub fn new(skills: Vec<Skill>) -> Self {
        let mut description = String::from(
            "Loads a skill: instructions for a kind of task, often with scripts or references \
             beside them. When the task matches a skill's description, call this with its name \
             before starting, then follow what it returns (read its files with `read` as it \
             says).\n\n<available_skills>\n",
        );
        for skill in &skills {
            description.push_str(&format!(
                "<skill>\n<name>{}</name>\n<description>{}</description>\n</skill>\n",
                skill.name, skill.description
            ));
        }
        description.push_str("</available_skills>");
        Self {
            skills,
            description,
        }
    }
}

impl Tool for SkillTool {
    fn name(&self) -> &str {
        "skill"
    }

    fn claude_name(&self) -> Option<String> {
        Some("Skill".into())
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn concurrent(&self) -> bool {
        true
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        input_schema::<SkillInput>()
    }

    fn describe(
        &self,
        input: &Value,
        _cwd: &std::path::Path,
    ) -> (String, Vec<crate::message::Location>) {
        let name = input
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        (format!("Skill {name}"), Vec::new())
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: SkillInput = parse_input(self.name(), input)?;
            let Some(skill) = self.skills.iter().find(|s| s.name == input.name) else {
                let names: Vec<&str> = self.skills.iter().map(|s| s.name.as_str()).collect();
                return Err(ToolError::failed(format!(
                    "There is no skill named `{}`. The skills are: {}.",
                    input.name,
                    names.join(", ")
                )));
            };
            ctx.ask(PermissionCheck {
                needs: vec![Need::new(keys::SKILL, vec![skill.name.clone()])],
                title: format!("Use the skill {}", skill.name),
                ..Default::default()
            })
            .await?;
            ctx.started();
            let (body, files) = skill.content().map_err(ToolError::Failed)?;
            let mut output = content_block(skill, &body, &files);
            if let Some(allowed) = &skill.allowed_tools {
                ctx.permissions.narrow(&skill.name, allowed);
                output.push_str(&format!(
                    "\nWhile you follow this skill, this turn may use only these tools: {}.",
                    allowed.join(", ")
                ));
            }
            Ok(ToolOutput {
                title: format!("Skill {}", skill.name),
                output,
                metadata: json!({"dir": skill.dir, "files": files.len()}),
                ..Default::default()
            })
        })
    }
}

/// What the model reads when it loads `skill`.
pub fn content_block(skill: &Skill, body: &str, files: &[std::path::PathBuf]) -> String {
    let mut text = format!(
        "<skill_content name=\"{}\">\n# Skill: {}\n\n{body}\n\nBase directory of this skill: {}\nPaths in it are relative to that directory.",
        skill.name,
        skill.name,
        skill.dir.display()
    );
    if !files.is_empty() {
        text.push_str("\n<skill_files>\n");
        for file in files {
            text.push_str(&format!("<file>{}</file>\n", file.display()));
        }
        text.push_str("</skill_files>");
    }
    text.push_str("\n</skill_content>");
    text
}
