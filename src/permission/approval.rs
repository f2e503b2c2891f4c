//! The approval levels a person picks for a session, as other agents name them: Ask (the rules
//! as they are), Accept edits, Full access and Read-only. A level only turns the rules' own
//! questions into answers for what it names (or, read-only, refuses edits): a deny rule, a
//! protected file's question, `external_directory`, `sandbox_escape` and every question about
//! what the sandbox cannot hold stay as they are at every level.

use super::{Action, keys};

/// How much goes through without the person being asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Approval {
    /// The person's rules as they are.
    #[default]
    Ask,
    /// Edits in the workspace go through (outside it, `external_directory` still asks).
    AcceptEdits,
    /// Whatever the sandbox holds goes through; what would leave it still asks.
    FullAccess,
    /// No edits; commands run in a read-only sandbox.
    ReadOnly,
}

/// The keys full access answers: work the sandbox holds (files in the workspace, commands in
/// it, the model's own bookkeeping). A command is held only where the sandbox runs.
const HELD: [&str; 12] = [
    keys::READ,
    keys::EDIT,
    keys::GLOB,
    keys::GREP,
    keys::LIST,
    keys::LSP,
    keys::WEBFETCH,
    keys::WEBSEARCH,
    keys::TASK,
    keys::SKILL,
    keys::TODOWRITE,
    keys::TODOREAD,
];

impl Approval {
    pub const ALL: [Approval; 4] = [
        Approval::Ask,
        Approval::AcceptEdits,
        Approval::FullAccess,
        Approval::ReadOnly,
    ];

    /// Its id in config options, the store and `tandem run --approve`.
    pub fn id(self) -> &'static str {
        match self {
            Approval::Ask => "ask",
            Approval::AcceptEdits => "accept-edits",
            Approval::FullAccess => "full-access",
            Approval::ReadOnly => "read-only",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.id() == id)
    }

    pub fn title(self) -> &'static str {
        match self {
            Approval::Ask => "Ask",
            Approval::AcceptEdits => "Accept edits",
            Approval::FullAccess => "Full access",
            Approval::ReadOnly => "Read-only",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Approval::Ask => "Your permission rules as they are",
            Approval::AcceptEdits => "Edits in the workspace go through without asking",
            Approval::FullAccess => {
                "Whatever the sandbox holds goes through; what would leave it still asks"
            }
            Approval::ReadOnly => "No edits; commands run in a read-only sandbox",
        }
    }

    /// What `action`, the rules' verdict on `permission`, becomes at this level; `sandboxed`
    /// says whether the session's commands run in a sandbox that holds them.
    pub fn settle(self, permission: &str, action: Action, sandboxed: bool) -> Action {
        match (self, action) {
            (Approval::ReadOnly, _) if permission == keys::EDIT => Action::Deny,
            (_, Action::Deny | Action::Allow) => action,
            (Approval::AcceptEdits, Action::Ask) if permission == keys::EDIT => Action::Allow,
            (Approval::FullAccess, Action::Ask)
                if HELD.contains(&permission) || (sandboxed && permission == keys::BASH) =>
            {
                Action::Allow
            }
            _ => action,
        }
    }

    /// Whether commands run read-only at this level.
    pub fn read_only(self) -> bool {
        self == Approval::ReadOnly
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_level_loosens_only_what_it_names() {
        use Action::{Allow, Ask, Deny};
        let all = |key: &str, action: Action, sandboxed: bool| {
            Approval::ALL.map(|level| level.settle(key, action, sandboxed))
        };
        // Ask, Accept edits, Full access, Read-only.
        assert_eq!(all(keys::EDIT, Ask, true), [Ask, Allow, Allow, Deny]);
        assert_eq!(all(keys::EDIT, Allow, true), [Allow, Allow, Allow, Deny]);
        assert_eq!(all(keys::EDIT, Deny, true), [Deny; 4]);
        assert_eq!(all(keys::BASH, Ask, true), [Ask, Ask, Allow, Ask]);
        assert_eq!(
            all(keys::BASH, Ask, false),
            [Ask; 4],
            "an unsandboxed command asks"
        );
        for key in [
            keys::EXTERNAL_DIRECTORY,
            keys::SANDBOX_ESCAPE,
            keys::DOOM_LOOP,
            keys::MCP_SIDE_EFFECTS,
            "some_mcp_tool",
        ] {
            assert_eq!(all(key, Ask, true), [Ask; 4], "{key}");
        }
        for level in Approval::ALL {
            assert_eq!(Approval::from_id(level.id()), Some(level));
        }
    }
}
