//! A tool name as a model sends it, resolved to Tandem's: another case or separator (`Bash`,
//! `Web_Fetch`), or the name another agent gives the same tool (`str_replace_based_edit_tool`,
//! `run_shell_command`, each tool's own `aliases`), when that picks exactly one of the tools
//! there are.

use super::arguments::fold;

/// The one tool among `known` (each with other agents' names for it, folded) that `name`
/// means, if it is not one of them as written.
pub fn resolve<'a>(name: &str, known: &[(&'a str, &[&str])]) -> Option<&'a str> {
    if let Some((exact, _)) = known.iter().find(|(k, _)| *k == name) {
        return Some(exact);
    }
    let folded = fold(name);
    let mut same = known.iter().filter(|(k, _)| fold(k) == folded);
    if let Some((first, _)) = same.next() {
        return same.next().is_none().then_some(*first);
    }
    let mut aliased = known
        .iter()
        .filter(|(_, aliases)| aliases.contains(&folded.as_str()));
    let (tool, _) = aliased.next()?;
    aliased.next().is_none().then_some(*tool)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[(&str, &[&str])] = &[
        ("bash", &["runshellcommand", "shell"]),
        ("read", &["readfile"]),
        ("edit", &["strreplacebasededittool"]),
        ("webfetch", &[]),
        ("todowrite", &[]),
        ("apply_patch", &[]),
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
        assert_eq!(
            resolve("a_b", &[("ab", &[]), ("a-b", &[])]),
            None,
            "two tools fold alike"
        );
    }

    #[test]
    fn the_built_in_tools_carry_their_own_names() {
        let registry = crate::tool::Registry::builtin();
        assert_eq!(registry.resolve("str_replace_based_edit_tool"), "edit");
        assert_eq!(registry.resolve("run_shell_command"), "bash");
        assert_eq!(registry.resolve("LS"), "list");
        assert_eq!(registry.resolve("frobnicate"), "frobnicate");
        let claude = |name| registry.by_claude_name(name).map(|t| t.name().to_owned());
        assert_eq!(claude("Bash").as_deref(), Some("bash"));
        assert_eq!(claude("LS").as_deref(), Some("list"));
        assert_eq!(claude("AskUserQuestion").as_deref(), Some("question"));
        assert_eq!(claude("Nothing"), None);
    }
}
