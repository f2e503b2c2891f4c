//! `/jobs` and `/jobs kill ID`: the person's view of the session's background commands and
//! subagents, answered at once by the handle (a running turn neither waits nor sees it).

use crate::command::JOBS;
use crate::message::PartBody;
use crate::session::core::background::BackgroundChildren;
use crate::tool::shell::jobs::JobTable;

/// The answer to `content` if it is `/jobs` (or `/jobs kill ID`); None otherwise.
pub(in crate::session) fn command(
    content: &[PartBody],
    (jobs, children): (&JobTable, &BackgroundChildren),
) -> Option<String> {
    let rest = crate::message::sole_text(content)?
        .trim()
        .strip_prefix('/')?
        .strip_prefix(JOBS)?;
    if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let words: Vec<&str> = rest.split_whitespace().collect();
    Some(match words.as_slice() {
        [] => listing(jobs, children),
        ["kill", id] => match (jobs.get(id), children.get(id)) {
            (Some(job), _) if job.end().is_none() => {
                job.kill();
                format!("Ended job {} (`{}`).", job.id, job.command)
            }
            (Some(job), _) => format!("Job {} has already ended.", job.id),
            (None, Some(child)) if child.end().is_none() => {
                child.stop();
                format!(
                    "Stopped the subagent {} ({}).",
                    child.session,
                    child.label()
                )
            }
            (None, Some(child)) => format!("The subagent {} has already ended.", child.session),
            (None, None) => format!("There is no job {id}. /jobs lists them."),
        },
        _ => "Use /jobs to list the background jobs, /jobs kill ID to end one.".into(),
    })
}

/// The commands' listing, then the subagents' under a heading of their own when there are any.
fn listing(jobs: &JobTable, children: &BackgroundChildren) -> String {
    let Some(lines) = children.listing() else {
        return jobs.listing();
    };
    let children = format!(
        "Subagents in the background:\n{}\n/jobs kill ID stops one.",
        lines.join("\n")
    );
    match jobs.all().is_empty() {
        true => children,
        false => format!("{}\n\n{children}", jobs.listing()),
    }
}
