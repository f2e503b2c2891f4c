//! A file's text as the edit tools match it (`\n` line ends, no BOM) and the way back: an
//! edited file keeps its BOM and each untouched line's own ending, and new lines take the
//! endings of the lines they replace, so CRLF, LF and mixed files all stay as they were.

use std::ops::Range;

/// One change to the normalised text: `range` replaced by `text` (with `\n` line ends).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    pub range: Range<usize>,
    pub text: String,
}

/// A file's text with `\r\n` made `\n` and the BOM set aside, remembering where each was.
pub struct Normalized {
    bom: bool,
    pub body: String,
    /// Indices in `body` of the `\n`s that were `\r\n`, ascending.
    crlf: Vec<usize>,
    /// The ending most lines have: what a line gets when nothing nearer says.
    dominant: &'static str,
}

impl Normalized {
    pub fn new(text: &str) -> Self {
        let (bom, rest) = match text.strip_prefix('\u{feff}') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let mut body = String::with_capacity(rest.len());
        let mut crlf = Vec::new();
        let mut lf = 0;
        let mut pieces = rest.split("\r\n").peekable();
        while let Some(piece) = pieces.next() {
            body.push_str(piece);
            lf += piece.matches('\n').count();
            if pieces.peek().is_some() {
                crlf.push(body.len());
                body.push('\n');
            }
        }
        let dominant = if crlf.len() > lf { "\r\n" } else { "\n" };
        Normalized {
            bom,
            body,
            crlf,
            dominant,
        }
    }

    /// The offset in the original text (after the BOM) of `body`'s offset `at`.
    fn original(&self, at: usize) -> usize {
        at + self.crlf.partition_point(|&n| n < at)
    }

    /// The original ending of the `\n` at `body[at]`.
    fn ending(&self, at: usize) -> &'static str {
        if self.crlf.binary_search(&at).is_ok() {
            "\r\n"
        } else {
            "\n"
        }
    }

    /// The original text with `replacements` (sorted, not overlapping) made in it.
    pub fn rebuild(&self, original: &str, replacements: &[Replacement]) -> String {
        let original = original.strip_prefix('\u{feff}').unwrap_or(original);
        let mut out = String::with_capacity(original.len() + 64);
        if self.bom {
            out.push('\u{feff}');
        }
        let mut at = 0;
        for r in replacements {
            out.push_str(&original[self.original(at)..self.original(r.range.start)]);
            self.write_replacement(&mut out, r);
            at = r.range.end;
        }
        out.push_str(&original[self.original(at)..]);
        out
    }

    /// `r.text` with each `\n` given the ending of the same line among those replaced (a
    /// context line kept, repeated or not, keeps its own), else of the replaced line in the
    /// same place, else of the last replaced line, else of the line the change sits in, else
    /// the usual one.
    fn write_replacement(&self, out: &mut String, r: &Replacement) {
        let replaced: Vec<&'static str> = self.body[r.range.clone()]
            .match_indices('\n')
            .map(|(i, _)| self.ending(r.range.start + i))
            .collect();
        let fallback = replaced.last().copied().unwrap_or_else(|| {
            self.body[r.range.end..]
                .find('\n')
                .map_or(self.dominant, |i| self.ending(r.range.end + i))
        });
        let own = self.kept_lines(r, &replaced);
        for (k, piece) in r.text.split('\n').enumerate() {
            if k > 0 {
                let kept = own.get(k - 1).copied().flatten();
                let ending = kept
                    .and_then(|j| replaced.get(j))
                    .or_else(|| replaced.get(k - 1))
                    .copied()
                    .unwrap_or(fallback);
                out.push_str(ending);
            }
            out.push_str(piece);
        }
    }

    /// For each line of `r.text`, the replaced line it keeps unchanged, if any (aligned by a
    /// line diff); empty when the replaced lines all end alike and position is enough.
    fn kept_lines(&self, r: &Replacement, replaced: &[&str]) -> Vec<Option<usize>> {
        if replaced.windows(2).all(|pair| pair[0] == pair[1]) {
            return Vec::new();
        }
        let old: Vec<&str> = self.body[r.range.clone()].split('\n').collect();
        let new: Vec<&str> = r.text.split('\n').collect();
        let mut own = vec![None; new.len()];
        for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old, &new) {
            if let similar::DiffOp::Equal {
                old_index,
                new_index,
                len,
            } = op
            {
                for offset in 0..len {
                    own[new_index + offset] = Some(old_index + offset);
                }
            }
        }
        own
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(text: &str, find: &str, with: &str) -> String {
        let n = Normalized::new(text);
        let start = n.body.find(find).unwrap();
        let r = Replacement {
            range: start..start + find.len(),
            text: with.into(),
        };
        n.rebuild(text, &[r])
    }

    #[test]
    fn crlf_lf_and_mixed_files_keep_each_line_ending() {
        assert_eq!(
            edit("a\r\nb\r\nc\r\n", "b", "B\nB2"),
            "a\r\nB\r\nB2\r\nc\r\n"
        );
        assert_eq!(edit("a\nb\nc\n", "b\n", "B\nB2\n"), "a\nB\nB2\nc\n");
        // Mixed: the replaced lines' endings are kept in place; untouched lines keep theirs.
        assert_eq!(edit("a\r\nb\nc\r\nd\n", "b\nc", "X\nY"), "a\r\nX\nY\r\nd\n");
        assert_eq!(edit("a\nb\r\nc\n", "b", "B1\nB2"), "a\nB1\r\nB2\r\nc\n");
    }

    #[test]
    fn a_kept_line_keeps_its_own_ending_where_lines_around_it_come_and_go() {
        // `ctx` twice, once CRLF and once LF; the line before them goes: each `ctx` keeps
        // its own ending rather than the one of the line that used to sit where it now is.
        assert_eq!(
            edit("a\nx\nctx\r\nctx\nb\n", "x\nctx\nctx\n", "ctx\nctx\n"),
            "a\nctx\r\nctx\nb\n"
        );
        // A line added between them takes the ending of the line in its place.
        assert_eq!(
            edit("a\nctx\nctx\r\nb\n", "ctx\nctx\n", "ctx\nnew\nctx\n"),
            "a\nctx\nnew\r\nctx\r\nb\n"
        );
    }

    #[test]
    fn the_bom_stays_and_is_not_text() {
        let n = Normalized::new("\u{feff}x\r\ny\r\n");
        assert_eq!(n.body, "x\ny\n");
        assert_eq!(edit("\u{feff}x\r\ny\r\n", "x", "z"), "\u{feff}z\r\ny\r\n");
    }
}
