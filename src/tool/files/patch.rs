//! The `*** Begin Patch` envelope: parsing it into file operations and applying update
//! hunks to a file's text. Pure text; `apply_patch` does the file work.

/// One file's change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOp {
    Add {
        path: String,
        content: String,
    },
    Delete {
        path: String,
    },
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
    },
}

/// Lines to find (context and removals) and what replaces them (context and additions).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk {
    pub old: Vec<String>,
    pub new: Vec<String>,
}

pub fn parse(text: &str) -> Result<Vec<FileOp>, String> {
    let text = text.replace("\r\n", "\n");
    let mut lines = text.lines().map(str::trim_end).peekable();
    while lines.peek().is_some_and(|l| l.trim().is_empty()) {
        lines.next();
    }
    if lines.next().map(str::trim) != Some("*** Begin Patch") {
        return Err("The patch must start with `*** Begin Patch`.".into());
    }
    let mut ops = Vec::new();
    let mut ended = false;
    while let Some(line) = lines.next() {
        if line.trim() == "*** End Patch" {
            ended = true;
            break;
        }
        if let Some(path) = line.strip_prefix("*** Add File: ") {
            let mut content = String::new();
            while let Some(next) = lines.next_if(|l| !l.starts_with("*** ")) {
                content.push_str(next.strip_prefix('+').unwrap_or(next));
                content.push('\n');
            }
            ops.push(FileOp::Add {
                path: path.trim().into(),
                content,
            });
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            ops.push(FileOp::Delete {
                path: path.trim().into(),
            });
        } else if let Some(path) = line.strip_prefix("*** Update File: ") {
            let move_to = lines
                .next_if(|l| l.starts_with("*** Move to: "))
                .map(|l| l["*** Move to: ".len()..].trim().to_owned());
            let hunks = read_hunks(&mut lines);
            if hunks.is_empty() && move_to.is_none() {
                return Err(format!(
                    "`*** Update File: {}` has no changes.",
                    path.trim()
                ));
            }
            ops.push(FileOp::Update {
                path: path.trim().into(),
                move_to,
                hunks,
            });
        } else if !line.trim().is_empty() {
            return Err(format!(
                "Unexpected line in the patch: `{line}`. Each file starts with `*** Add File:`, `*** Delete File:` or `*** Update File:`."
            ));
        }
    }
    if !ended {
        return Err("The patch must end with `*** End Patch`.".into());
    }
    if ops.is_empty() {
        return Err("The patch changes no files.".into());
    }
    Ok(ops)
}

/// The hunks of one `*** Update File:` section, up to the next file marker.
fn read_hunks<'a>(lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>) -> Vec<Hunk> {
    let mut hunks = Vec::new();
    let mut hunk = Hunk::default();
    while let Some(next) =
        lines.next_if(|l| !l.starts_with("*** ") || l.trim() == "*** End of File")
    {
        if next.starts_with("@@") || next.trim() == "*** End of File" {
            if !hunk.old.is_empty() || !hunk.new.is_empty() {
                hunks.push(std::mem::take(&mut hunk));
            }
            continue;
        }
        match next.chars().next() {
            Some('+') => hunk.new.push(next[1..].to_owned()),
            Some('-') => hunk.old.push(next[1..].to_owned()),
            Some(' ') => {
                hunk.old.push(next[1..].to_owned());
                hunk.new.push(next[1..].to_owned());
            }
            _ => {
                hunk.old.push(next.to_owned());
                hunk.new.push(next.to_owned());
            }
        }
    }
    if !hunk.old.is_empty() || !hunk.new.is_empty() {
        hunks.push(hunk);
    }
    hunks
}

/// Applies `hunks` in order to `content` (`\n` line ends); matches exactly, then ignoring
/// trailing and then surrounding whitespace.
pub fn apply_hunks(content: &str, hunks: &[Hunk], path: &str) -> Result<String, String> {
    let had_final_newline = content.ends_with('\n') || content.is_empty();
    let mut lines: Vec<String> = content.lines().map(str::to_owned).collect();
    let mut cursor = 0;
    for (index, hunk) in hunks.iter().enumerate() {
        let at = if hunk.old.is_empty() {
            lines.len()
        } else {
            find(&lines, &hunk.old, cursor).ok_or_else(|| {
                format!(
                    "Hunk {} of {path} does not match the file: could not find\n{}\nRead the file and make the context lines match it.",
                    index + 1,
                    hunk.old.join("\n")
                )
            })?
        };
        lines.splice(at..at + hunk.old.len(), hunk.new.iter().cloned());
        cursor = at + hunk.new.len();
    }
    let mut out = lines.join("\n");
    if had_final_newline && !out.is_empty() {
        out.push('\n');
    }
    Ok(out)
}

fn find(lines: &[String], wanted: &[String], from: usize) -> Option<usize> {
    let normalisers: [fn(&str) -> &str; 3] = [|l| l, str::trim_end, str::trim];
    for normalise in normalisers {
        let fits = |start: usize| {
            wanted
                .iter()
                .enumerate()
                .all(|(i, w)| normalise(&lines[start + i]) == normalise(w))
        };
        let last = lines.len().checked_sub(wanted.len())?;
        if let Some(at) = (from..=last)
            .chain(0..from.min(last + 1))
            .find(|&s| fits(s))
        {
            return Some(at);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "*** Begin Patch\n*** Add File: new.txt\n+hello\n+world\n*** Delete File: old.txt\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@ fn main\n fn main() {\n-    old();\n+    new();\n }\n*** End Patch\n";

    #[test]
    fn parses_every_operation() {
        let ops = parse(PATCH).unwrap();
        assert_eq!(
            ops[0],
            FileOp::Add {
                path: "new.txt".into(),
                content: "hello\nworld\n".into()
            }
        );
        assert_eq!(
            ops[1],
            FileOp::Delete {
                path: "old.txt".into()
            }
        );
        let FileOp::Update {
            path,
            move_to,
            hunks,
        } = &ops[2]
        else {
            panic!()
        };
        assert_eq!(
            (path.as_str(), move_to.as_deref()),
            ("src/a.rs", Some("src/b.rs"))
        );
        assert_eq!(hunks[0].old, ["fn main() {", "    old();", "}"]);
        assert_eq!(hunks[0].new, ["fn main() {", "    new();", "}"]);
    }

    #[test]
    fn hunks_apply_in_order_with_whitespace_slack() {
        let ops = parse(PATCH).unwrap();
        let FileOp::Update { hunks, .. } = &ops[2] else {
            panic!()
        };
        let content = "use x;\n\nfn main() {  \n    old();\n}\n";
        assert_eq!(
            apply_hunks(content, hunks, "a").unwrap(),
            "use x;\n\nfn main() {\n    new();\n}\n"
        );
        assert!(
            apply_hunks("nothing\n", hunks, "a")
                .unwrap_err()
                .contains("Hunk 1 of a")
        );
    }

    #[test]
    fn malformed_patches_say_what_is_wrong() {
        assert!(parse("hello").unwrap_err().contains("*** Begin Patch"));
        assert!(
            parse("*** Begin Patch\n*** Add File: a\n+x\n")
                .unwrap_err()
                .contains("*** End Patch")
        );
        assert!(
            parse("*** Begin Patch\nfoo\n*** End Patch")
                .unwrap_err()
                .contains("Unexpected line")
        );
    }
}
