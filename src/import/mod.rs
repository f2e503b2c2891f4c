//! `tandem import`: the sessions other agents keep on disk, found for a project and written
//! into Tandem's store as if Tandem had run them (their tool calls as Tandem's tools where it
//! has them, with the diffs the source recorded), once each, marked with where they came from.
//! Readers, one a format: `claude_code` (Claude Code's JSONL transcripts), `codex` (Codex's
//! rollout files), `opencode` (OpenCode's SQLite database), `gemini` (Gemini CLI's chats),
//! `tandem` (Tandem's own export).

mod build;
mod claude_code;
pub mod cli;
mod codex;
mod gemini;
mod opencode;
mod tandem;
mod tools;

use std::path::{Path, PathBuf};

use crate::id::SessionId;
use crate::message::SessionInfo;
use crate::store::{ImportOrigin, Store};

/// The agents whose sessions Tandem reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    ClaudeCode,
    Codex,
    OpenCode,
    Gemini,
    Tandem,
}

impl Agent {
    /// Its id in the store and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::OpenCode => "opencode",
            Agent::Gemini => "gemini-cli",
            Agent::Tandem => "tandem",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex",
            Agent::OpenCode => "OpenCode",
            Agent::Gemini => "Gemini CLI",
            Agent::Tandem => "Tandem",
        }
    }
}

impl Agent {
    /// The newest major release whose files Tandem was built from (none: not versioned).
    fn known_major(self) -> Option<u64> {
        match self {
            Agent::ClaudeCode => Some(2),
            Agent::Codex => Some(0),
            Agent::OpenCode => Some(1),
            Agent::Gemini | Agent::Tandem => None,
        }
    }
}

/// A session another agent keeps, as found on disk.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub agent: Agent,
    /// Its id there.
    pub source_id: String,
    pub path: PathBuf,
    /// The project it was run in.
    pub cwd: PathBuf,
    pub title: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    /// The version of the agent that wrote it, where the file says.
    pub version: Option<String>,
}

/// What reading a session left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Converted {
    /// Lines that could not be read (a truncated or corrupt line).
    pub skipped_lines: usize,
}

/// How an import went.
#[derive(Debug, Clone, PartialEq)]
pub enum Imported {
    New(SessionId, Converted),
    /// It was imported before, as this session.
    Already(SessionId),
}

/// Milliseconds since the epoch of an RFC 3339 time.
fn timestamp(text: &str) -> Option<i64> {
    let at = humantime::parse_rfc3339_weak(text.trim_end_matches('Z')).ok()?;
    at.duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_millis() as i64)
}

/// A title from the first line of a prompt.
fn title_from(prompt: &str) -> String {
    let line = prompt.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let line = line.trim();
    match line.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

/// Every other agent's session for `project`, newest first.
pub fn find(project: &Path) -> Vec<Found> {
    let mut found = claude_code::list(project);
    found.extend(codex::list(project));
    found.extend(opencode::list(project));
    found.extend(gemini::list(project));
    found.sort_by_key(|f| std::cmp::Reverse(f.updated_at));
    found
}

/// The sessions in `path`, whatever agent wrote it; why not, if it cannot be read.
pub fn identify(path: &Path, project: &Path) -> Result<Vec<Found>, String> {
    let mut head = [0u8; 16];
    let read = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .map_err(|e| format!("cannot read it ({e})"))?;
    if head[..read].starts_with(b"SQLite format 3") {
        return opencode::sessions(path, None);
    }
    identify_text(path, project).map(|found| vec![found])
}

fn identify_text(path: &Path, project: &Path) -> Result<Found, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read it ({e})"))?;
    if let Some(found) = gemini::describe(path, project) {
        return Ok(found);
    }
    if let Ok(whole) = serde_json::from_str::<serde_json::Value>(&text)
        && let Some(found) = tandem::describe(path, &whole)
    {
        return Ok(found);
    }
    let first = text
        .lines()
        .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .ok_or("it holds no JSON record: not a session file Tandem knows")?;
    let claude = first.get("sessionId").is_some()
        || text.lines().take(50).any(|l| l.contains("\"sessionId\""));
    if first["type"] == "session_meta" {
        return codex::describe(path).ok_or_else(|| "its session meta cannot be read".into());
    }
    if claude {
        return claude_code::describe(path, project).ok_or_else(|| "it cannot be read".into());
    }
    Err(
        "its format is not one Tandem knows (Claude Code transcripts, Codex rollouts, Gemini \
         CLI chats, OpenCode databases and Tandem exports are)"
            .into(),
    )
}

impl Found {
    /// Why it is not read: a release newer than those whose format Tandem knows wrote it.
    pub fn too_new(&self) -> Option<String> {
        let version = self.version.as_deref()?;
        let major: u64 = version
            .split('.')
            .next()?
            .trim_start_matches('v')
            .parse()
            .ok()?;
        let known = self.agent.known_major()?;
        (major > known).then(|| {
            format!(
                "{} {version} wrote it, in a format newer than Tandem reads ({} {known}.x and \
                 earlier)",
                self.agent.name(),
                self.agent.name()
            )
        })
    }
}

/// Writes `found` into the store, once. A session whose folder is not on this machine (an
/// export from another) belongs to `project`.
pub fn import(store: &Store, found: &Found, project: &Path) -> Result<Imported, String> {
    let cwd = match found.cwd.is_dir() {
        true => found.cwd.clone(),
        false => project.to_owned(),
    };
    if let Some(why) = found.too_new() {
        return Err(why);
    }
    let agent = found.agent.id();
    let known = store
        .imported_as(agent, &found.source_id)
        .map_err(|e| e.to_string())?;
    if let Some(session) = known {
        return Ok(Imported::Already(session));
    }
    let session = SessionId::new();
    let mut builder = build::Builder::new(session.clone(), &cwd);
    let converted = match found.agent {
        Agent::ClaudeCode => claude_code::read(found, &mut builder)?,
        Agent::Codex => codex::read(found, &mut builder)?,
        Agent::OpenCode => opencode::read(found, &mut builder)?,
        Agent::Gemini => gemini::read(found, &mut builder)?,
        Agent::Tandem => tandem::read(found, &mut builder)?,
    };
    let messages = builder.finish();
    if messages.is_empty() {
        return Err("it holds no messages".into());
    }
    let now = crate::id::now_ms();
    let info = SessionInfo {
        id: session.clone(),
        parent_id: None,
        cwd,
        extra_roots: Vec::new(),
        title: found
            .title
            .clone()
            .unwrap_or_else(|| "Imported session".into()),
        created_at: if found.created_at > 0 {
            found.created_at
        } else {
            now
        },
        updated_at: if found.updated_at > 0 {
            found.updated_at
        } else {
            now
        },
    };
    let origin = ImportOrigin {
        agent: agent.to_owned(),
        source_id: found.source_id.clone(),
        source: found.path.to_string_lossy().into_owned(),
        version: found.version.clone(),
    };
    match store.import_session(&info, &messages, &origin) {
        Ok(None) => Ok(Imported::New(session, converted)),
        Ok(Some(existing)) => Ok(Imported::Already(existing)),
        Err(error) => Err(error.to_string()),
    }
}
