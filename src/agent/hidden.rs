//! The prompts of the hidden agents Tandem runs for itself: `compaction` (an anchored summary
//! a long conversation continues from) and `title` (a session's name in the editor's list).

/// The `compaction` agent's system prompt.
pub const COMPACTION_PROMPT: &str = "You maintain the working memory of a coding agent whose \
conversation has outgrown its context window. From the conversation you are shown, write an \
anchored summary: the document the agent will continue from, with none of the conversation \
itself. Keep what the agent needs to go on without asking again: the person's goal and every \
preference or constraint they stated, what is done and what is not, decisions and their reasons, \
exact file paths, commands, identifiers and error messages. Drop pleasantries, dead ends that \
taught nothing, and file contents that can be read again. Answer with the summary only, in the \
sections you are given; do not call tools.";

/// The sections every summary has, in order, with what goes in each.
pub const SUMMARY_TEMPLATE: &str = "Use exactly these Markdown sections, terse bullets under \
each (write \"- none\" for an empty one):

## Goal
## Constraints & Preferences
## Progress
### Done
### In Progress
### Blocked
## Key Decisions
## Next Steps
## Critical Context
## Relevant Files

Keep every section. Preserve exact paths, names, commands and error text. Do not mention the \
summary or how it was made.";

/// The closing request of a first compaction.
pub const SUMMARY_CREATE: &str =
    "Create a new anchored summary from the conversation history above.";

/// The closing request of a later compaction, before the summary it updates.
pub const SUMMARY_UPDATE: &str = "Update the anchored summary below with the conversation \
history above: keep what still holds, move finished work to Done, add what is new, and drop \
what no longer matters.";

/// The `title` agent's system prompt.
pub const TITLE_PROMPT: &str = "You name conversations between a person and a coding agent. \
Answer with a title for the conversation you are shown: one line of at most 50 characters, in \
the language of the person's message, saying what they want done (\"Fix flaky login test\", \
\"Explain the cache layer\"). No quotes, no trailing punctuation, no preamble; never answer \
the request itself.";
