//! `/jobs` and `/jobs kill ID`: the person's view of the session's background commands,
//! answered at once by the handle (a running turn neither waits nor sees it).

use crate::command::JOBS;
use crate::message::PartBody;
use crate::tool::shell::jobs::JobTable;

/// The answer to `content` if it is `/jobs` (or `/jobs kill ID`); None otherwise.
pub(in crate::session) fn command(content: &[PartBody], jobs: &JobTable) -> Option<String> {
    let rest = crate::message::sole_text(content)?
        .trim()
        .strip_prefix('/')?
        .strip_prefix(JOBS)?;
    if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let words: Vec<&str> = rest.split_whitespace().collect();
    Some(match words.as_slice() {
        [] => jobs.listing(),
        ["kill", id] => match jobs.get(id) {
            Some(job) if job.end().is_none() => {
                job.kill();
                format!("Ended job {} (`{}`).", job.id, job.command)
            }
            Some(job) => format!("Job {} has already ended.", job.id),
            None => format!("There is no job {id}. /jobs lists them."),
        },
        _ => "Use /jobs to list the background jobs, /jobs kill ID to end one.".into(),
    })
}
