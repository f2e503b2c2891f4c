//! A tool name as a model sends it, resolved to Tandem's: another case or separator (`Bash`,
//! `Web_Fetch`), or the name another agent gives the same tool (`str_replace_based_edit_tool`,
//! `run_shell_command`), when that picks exactly one of the tools there are.

use super::arguments::fold;

/// Other agents' names for Tandem's tools, folded (lower case, no `_` or `-`).
const ALIASES: &[(&str, &[&str])] = &[
    (
        "bash",
        &[
            "shell",
            "runshellcommand",
            "runterminalcmd",
            "execcommand",
            "executecommand",
            "runcommand",
            "terminal",
        ],
    ),
    ("read", &["readfile", "view", "viewfile", "openfile", "cat"]),
    ("write", &["writefile", "createfile", "writetofile"]),
    (
        "edit",
        &[
            "strreplacebasededittool",
            "strreplaceeditor",
            "strreplace",
            "editfile",
            "replace",
            "replaceinfile",
            "searchreplace",
        ],
    ),
    ("apply_patch", &["patch", "applydiff"]),
    ("glob", &["findfiles", "filesearch", "globsearch"]),
    (
        "grep",
        &[
            "search",
            "grepsearch",
            "searchfiles",
            "ripgrep",
            "rg",
            "searchfilecontent",
        ],
    ),
    ("list", &["ls", "listdir", "listdirectory", "listfiles"]),
    ("webfetch", &["fetch", "fetchurl", "readurl"]),
    ("task", &["agent", "dispatchagent", "subagent"]),
];

/// The one tool among `known` that `name` means, if it is not one of them as written.
pub fn resolve<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    if let Some(exact) = known.iter().find(|k| **k == name) {
        return Some(exact);
    }
    let folded = fold(name);
    let mut same = known.iter().filter(|k| fold(k) == folded);
    if let Some(first) = same.next() {
        return same.next().is_none().then_some(*first);
    }
    let (tool, _) = ALIASES
        .iter()
        .find(|(_, aliases)| aliases.contains(&folded.as_str()))?;
    known.iter().find(|k| *k == tool).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[&str] = &[
        "bash",
        "read",
        "edit",
        "webfetch",
        "todowrite",
        "apply_patch",
    ];

    #[test]
    fn another_case_or_agent_names_the_same_tool() {
        assert_eq!(resolve("Bash", KNOWN), Some("bash"));
        assert_eq!(resolve("WebFetch", KNOWN), Some("webfetch"));
        assert_eq!(resolve("TodoWrite", KNOWN), Some("todowrite"));
        assert_eq!(resolve("applyPatch", KNOWN), Some("apply_patch"));
        assert_eq!(resolve("str_replace_based_edit_tool", KNOWN), Some("edit"));
        assert_eq!(resolve("run_shell_command", KNOWN), Some("bash"));
        assert_eq!(resolve("read_file", KNOWN), Some("read"));
    }

    #[test]
    fn unknown_or_not_offered_stays_unresolved() {
        assert_eq!(resolve("frobnicate", KNOWN), None);
        assert_eq!(
            resolve("ls", KNOWN),
            None,
            "list is not among the known tools"
        );
        assert_eq!(resolve("a_b", &["ab", "a-b"]), None, "two tools fold alike");
    }
}
