//! The session's side of the ports a turn's tools talk through: the permission gate (rules,
//! then the person), subagents run in child sessions, and the todo list.

pub(in crate::session) mod narrowing;
pub(in crate::session) mod permission;
pub(in crate::session) mod subagent;
pub(in crate::session) mod todos;
