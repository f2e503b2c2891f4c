//! Holds the parse tree to the lexical scan: every place the scan says bash will run code or
//! expand must be a node the parse read at that very byte, and every stretch the scan says is
//! quoted must be quoted in the parse too, with the same ends. What the parse leaves out asks.

use std::collections::HashMap;

use tree_sitter::Node;

use super::Hidden;
use super::scan::{QuoteKind, Scan, SiteKind, scan};

/// What the scan found that the parse did not explain, and what the scan alone shows.
#[derive(Debug, Default)]
pub struct Disagreement {
    /// Places (byte offsets and what bash does there) the parse does not account for.
    pub unexplained: Vec<(usize, &'static str)>,
    pub hidden: Vec<Hidden>,
}

/// Compares the scan of `line` with the parse tree rooted at `root`.
pub fn compare(root: Node<'_>, line: &str) -> Disagreement {
    let found = scan(line);
    let nodes = index(root);
    let mut out = Disagreement::default();
    if found.unterminated {
        out.unexplained
            .push((line.len(), "an unterminated quote or substitution"));
    }
    let has = |start: usize, kinds: &[&str]| {
        nodes
            .get(&start)
            .is_some_and(|list| list.iter().any(|(kind, _)| kinds.contains(kind)))
    };
    for site in &found.sites {
        let (kinds, what): (&[&str], &'static str) = match site.kind {
            SiteKind::Backtick | SiteKind::Substitution => {
                (&["command_substitution"], "a command substitution")
            }
            SiteKind::Process => (&["process_substitution"], "a process substitution"),
            SiteKind::Arithmetic => (&["arithmetic_expansion"], "an arithmetic expansion"),
            SiteKind::ArithmeticCommand => (
                &["compound_statement", "subshell", "(("],
                "an arithmetic command",
            ),
            SiteKind::Parameter => (&["expansion"], "a parameter expansion"),
            SiteKind::Assignment => (&["variable_assignment"], "an assignment"),
            SiteKind::LoopVariable => {
                let name: String = line[site.start..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                out.hidden.push(Hidden::ShellVariable(name));
                continue;
            }
        };
        if !has(site.start, kinds) {
            out.unexplained.push((site.start, what));
        }
    }
    for quote in &found.quotes {
        let matched = nodes.get(&quote.start).is_some_and(|list| {
            list.iter().any(|(kind, end)| match quote.kind {
                QuoteKind::Single => *kind == "raw_string" && *end == quote.end,
                QuoteKind::AnsiC => *kind == "ansi_c_string" && *end == quote.end,
                QuoteKind::Comment => *kind == "comment" && *end <= quote.end,
            })
        });
        if !matched {
            out.unexplained
                .push((quote.start, "a quoted stretch read differently"));
        }
    }
    heredocs(&nodes, &found, &mut out);
    out
}

/// Every here-document body in the parse must lie within a body bash reads: a body the parse
/// runs past the terminator hides the commands after it.
fn heredocs(nodes: &HashMap<usize, Vec<(&str, usize)>>, found: &Scan, out: &mut Disagreement) {
    for (start, list) in nodes {
        for (kind, end) in list {
            if *kind != "heredoc_body" {
                continue;
            }
            let inside = found
                .heredocs
                .iter()
                .any(|h| *start >= h.body_start && *end <= h.body_end);
            if !inside {
                out.unexplained
                    .push((*start, "a here-document read differently"));
            }
        }
    }
}

/// Every node by its start byte: its kind and end byte.
fn index<'t>(root: Node<'t>) -> HashMap<usize, Vec<(&'t str, usize)>> {
    let mut nodes: HashMap<usize, Vec<(&str, usize)>> = HashMap::new();
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        nodes
            .entry(node.start_byte())
            .or_default()
            .push((node.kind(), node.end_byte()));
        stack.extend(node.children(&mut cursor));
    }
    nodes
}
