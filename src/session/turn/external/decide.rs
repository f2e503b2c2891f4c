//! How Tandem's rules judge an external agent's permission question: by what the call is (its
//! kind), through the very checks Tandem's own tools make (`bash`'s command-line analysis, the
//! read and edit rules on each real path, `webfetch` on the address). What Tandem cannot see
//! into is always put to the person.

use serde_json::Value;

use crate::message::{Location, ToolKind};
use crate::permission::Sight;
use crate::permission::keys;
use crate::remote::RemoteToolCall;
use crate::tool::{Need, PermissionCheck, ToolContext, ToolError};

/// Makes the context of a question about the call, as if asked by Tandem's tool `tool`.
pub(super) type Contexts<'a> = &'a (dyn Fn(&str) -> ToolContext + Send + Sync);

/// Whether `call` may go ahead (the rules allow it, or the person did).
pub(super) async fn check(contexts: Contexts<'_>, call: &RemoteToolCall) -> Result<(), ToolError> {
    let title = if call.title.is_empty() {
        "a tool call".to_owned()
    } else {
        call.title.clone()
    };
    match call.kind {
        ToolKind::Execute => match command(&call.input) {
            Some(line) => {
                let ctx = contexts(keys::BASH);
                crate::tool::shell::checks::check_line(&ctx, &line, &ctx.cwd.clone()).await
            }
            None => unseen(contexts, call, keys::BASH, title).await,
        },
        ToolKind::Edit | ToolKind::Delete | ToolKind::Move => {
            on_paths(contexts, call, keys::EDIT, title).await
        }
        ToolKind::Read | ToolKind::Search => on_paths(contexts, call, keys::READ, title).await,
        ToolKind::Fetch => match text_field(&call.input, &["url", "uri"]) {
            Some(url) => {
                let ctx = contexts(keys::WEBFETCH);
                ctx.ask(PermissionCheck::new(keys::WEBFETCH, vec![url], title))
                    .await
            }
            None => unseen(contexts, call, keys::WEBFETCH, title).await,
        },
        _ => unseen(contexts, call, keys::EXTERNAL_TOOL, title).await,
    }
}

/// The command line a call runs, from the spellings agents use.
fn command(input: &Value) -> Option<String> {
    if let Some(line) = text_field(input, &["command", "cmd"]) {
        return Some(line);
    }
    let words = input
        .get("command")
        .or_else(|| input.get("cmd"))?
        .as_array()?;
    let words: Option<Vec<&str>> = words.iter().map(Value::as_str).collect();
    Some(words?.join(" "))
}

fn text_field(input: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| input.get(*k)?.as_str())
        .map(str::to_owned)
}

/// The files a call names: its locations, else the path fields of its input.
fn paths(call: &RemoteToolCall) -> Vec<String> {
    let mut paths: Vec<String> = call
        .locations
        .iter()
        .map(|l| l.path.to_string_lossy().into_owned())
        .collect();
    paths.extend(
        call.diffs
            .iter()
            .map(|d| d.path.to_string_lossy().into_owned()),
    );
    if paths.is_empty()
        && let Some(path) = text_field(
            &call.input,
            &["file_path", "filePath", "path", "abs_path", "notebook_path"],
        )
    {
        paths.push(path);
    }
    paths.dedup();
    paths
}

/// Each named file through `permission`'s rules (and `external_directory` outside the
/// project), asked about together; a call that names none is put to the person.
async fn on_paths(
    contexts: Contexts<'_>,
    call: &RemoteToolCall,
    permission: &str,
    title: String,
) -> Result<(), ToolError> {
    let paths = paths(call);
    if paths.is_empty() {
        return unseen(contexts, call, permission, title).await;
    }
    let ctx = contexts(permission);
    let mut names = Vec::new();
    let mut locations = Vec::new();
    for path in &paths {
        let real = ctx.path_in_reach(path).await?;
        names.extend(ctx.rule_names(path, &real));
        locations.push(Location::file(real));
    }
    ctx.ask(PermissionCheck {
        needs: vec![Need::new(permission, names)],
        title,
        locations,
        diffs: call.diffs.clone(),
    })
    .await
}

/// A call Tandem cannot see into: a deny rule on `permission` still refuses it, anything else
/// asks the person.
async fn unseen(
    contexts: Contexts<'_>,
    call: &RemoteToolCall,
    permission: &str,
    title: String,
) -> Result<(), ToolError> {
    let ctx = contexts(permission);
    ctx.ask(PermissionCheck {
        needs: vec![Need::new(permission, vec![title.clone()]).seen(Sight::Unparsed)],
        title,
        locations: call.locations.clone(),
        diffs: call.diffs.clone(),
    })
    .await
}
