//! The agent's memory under `/undo` and `/redo`: the `memory` calls a revert hides put each
//! memory file back as it was before the first of them, and a redo writes it as after the last
//! (the files live outside the project, where snapshots do not reach).

use std::collections::BTreeMap;

use crate::message::{Message, PartBody, ToolState};

/// Each memory file the `memory` calls in `messages` changed, with its text before the first
/// and after the last.
fn changes(messages: &[Message]) -> BTreeMap<String, (String, String)> {
    let mut files: BTreeMap<String, (String, String)> = BTreeMap::new();
    for part in messages.iter().flat_map(|m| &m.parts) {
        let PartBody::Tool(call) = &part.body else {
            continue;
        };
        let ToolState::Completed { metadata, .. } = &call.state else {
            continue;
        };
        let (Some(file), Some(before), Some(after)) = (
            metadata["memoryFile"].as_str(),
            metadata["before"].as_str(),
            metadata["after"].as_str(),
        ) else {
            continue;
        };
        files
            .entry(file.to_owned())
            .and_modify(|(_, last)| *last = after.to_owned())
            .or_insert((before.to_owned(), after.to_owned()));
    }
    files
}

fn write(file: &str, text: &str) {
    let path = std::path::Path::new(file);
    let written = match text.is_empty() {
        true => std::fs::remove_file(path)
            .or_else(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Ok(()),
                _ => Err(e),
            })
            .map_err(anyhow::Error::from),
        false => crate::secret::write_private(path, text.as_bytes()),
    };
    if let Err(error) = written {
        tracing::warn!(%error, file, "a memory file could not be put back");
    }
}

/// A revert hid `hidden`: their memory changes are taken back.
pub(super) fn take_back(hidden: &[Message]) {
    for (file, (before, _)) in changes(hidden) {
        write(&file, &before);
    }
}

/// A redo shows `hidden` again: their memory changes are made again.
pub(super) fn make_again(hidden: &[Message]) {
    for (file, (_, after)) in changes(hidden) {
        write(&file, &after);
    }
}
