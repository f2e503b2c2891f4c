//! The person's own additions to Tandem, under one roof: skills (folders with a `SKILL.md`, and
//! the `skill` tool that loads them), hooks (their commands run around the agent's work, in
//! Claude Code's shape) and custom tools (their commands offered to the model as tools). Each
//! is found in the person's and the project's folders and config, reported when broken, never
//! fatal, and runs under the same rules, trust and sandbox as Tandem's own tools.

pub mod custom_tool;
pub mod hook;
pub mod skill;
