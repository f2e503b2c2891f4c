//! An MCP server's prompts as slash commands (`/server:prompt args`): the arguments typed after
//! the name fill the prompt's arguments in order (the last takes the rest of the line), and the
//! prompt's messages become the text of the person's message.

use rmcp::model::GetPromptRequestParams;
use serde_json::{Map, Value};

use super::connect::Connection;

/// A prompt as the editor lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptCommand {
    /// `server:prompt`.
    pub name: String,
    pub description: String,
    /// Its arguments' names, in order.
    pub arguments: Vec<String>,
}

pub(super) fn commands(server: &str, connection: &Connection) -> Vec<PromptCommand> {
    connection
        .prompts
        .iter()
        .map(|prompt| PromptCommand {
            name: format!("{server}:{}", prompt.name),
            description: prompt.description.clone().unwrap_or_else(|| {
                format!("The {} prompt of the MCP server {server}", prompt.name)
            }),
            arguments: prompt
                .arguments
                .iter()
                .flatten()
                .map(|a| a.name.clone())
                .collect(),
        })
        .collect()
}

/// The text of prompt `name` of `connection` with `args`, or why it could not be had.
pub(super) async fn expand(
    connection: &Connection,
    name: &str,
    args: &str,
) -> Option<Result<String, String>> {
    let prompt = connection.prompts.iter().find(|p| p.name == name)?;
    let names: Vec<&str> = prompt
        .arguments
        .iter()
        .flatten()
        .map(|a| a.name.as_str())
        .collect();
    let mut arguments = Map::new();
    let mut rest = args.trim();
    for (index, argument) in names.iter().enumerate() {
        if rest.is_empty() {
            break;
        }
        let value = if index + 1 == names.len() {
            std::mem::take(&mut rest)
        } else {
            let (word, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            rest = after.trim_start();
            word
        };
        arguments.insert((*argument).to_owned(), Value::String(value.to_owned()));
    }
    let params = GetPromptRequestParams::new(name).with_arguments(arguments);
    let result = match connection.service.get_prompt(params).await {
        Ok(result) => result,
        Err(error) => {
            return Some(Err(format!(
                "the server could not give the prompt: {error}"
            )));
        }
    };
    let messages = serde_json::to_value(&result).unwrap_or_default()["messages"].clone();
    let text: Vec<String> = messages
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| match m["content"]["type"].as_str() {
            Some("text") => m["content"]["text"].as_str().map(str::to_owned),
            Some("resource") => m["content"]["resource"]["text"].as_str().map(str::to_owned),
            _ => None,
        })
        .collect();
    Some(Ok(text.join("\n\n")))
}
