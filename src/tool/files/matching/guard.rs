//! What keeps a tolerant match from replacing what the model did not write: a span far
//! longer than `oldString` is refused, an anchored block must have every line accounted for
//! by a line of `oldString`, and the tolerant work is bounded.

use super::MatchError;
use super::escape::unescape;

/// The longest line whose edit distance to another is computed.
pub const MAX_COMPARED: usize = 2_000;
/// Lines compared, over all the windows of all strategies of one search.
const LINE_BUDGET: usize = 2_000_000;
/// Edit-distance cells computed in one search.
const CELL_BUDGET: usize = 16_000_000;
/// How alike two lines must be (1 − edit distance / longer length) to stand for each other.
const ALIKE: f64 = 0.7;

/// The work one search may still do.
#[derive(Debug, Default)]
pub struct Budget {
    lines: usize,
    cells: usize,
}

impl Budget {
    /// Spends `n` line comparisons.
    pub fn lines(&mut self, n: usize) -> Result<(), MatchError> {
        self.lines += n;
        if self.lines > LINE_BUDGET {
            return Err(MatchError::TooCostly);
        }
        Ok(())
    }

    fn cells(&mut self, n: usize) -> Result<(), MatchError> {
        self.cells += n;
        if self.cells > CELL_BUDGET {
            return Err(MatchError::TooCostly);
        }
        Ok(())
    }
}

/// `old`'s line count, without the empty piece a final newline leaves.
fn line_count(text: &str) -> usize {
    let n = text.split('\n').count();
    if n > 1 && text.ends_with('\n') {
        n - 1
    } else {
        n
    }
}

/// A tolerant match spanning far more than `old`: at least twice its lines (and three more),
/// or, for a block, more than four times its text (and 500 bytes more) once trimmed.
pub fn disproportionate(found: &str, old: &str) -> bool {
    let (found_lines, old_lines) = (line_count(found), line_count(old));
    if found_lines >= (old_lines + 3).max(old_lines * 2) {
        return true;
    }
    let (found_len, old_len) = (found.trim().len(), old.trim().len());
    old_lines > 1 && found_len > (old_len + 500).max(old_len * 4)
}

/// Every non-blank line of `block` stands for the non-blank line of `wanted` at the same
/// place among them, and there are as many of each.
pub fn accounts_for(
    block: &[&str],
    wanted: &[&str],
    budget: &mut Budget,
) -> Result<bool, MatchError> {
    let non_blank = |lines: &[&str]| -> Vec<String> {
        lines
            .iter()
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty())
            .collect()
    };
    let (found, meant) = (non_blank(block), non_blank(wanted));
    if found.len() != meant.len() {
        return Ok(false);
    }
    budget.lines(found.len())?;
    for (a, b) in found.iter().zip(&meant) {
        if !alike(a, b, budget)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Two trimmed lines the same but for case, whitespace, escapes or a few characters.
fn alike(a: &str, b: &str, budget: &mut Budget) -> Result<bool, MatchError> {
    if a == b || a.eq_ignore_ascii_case(b) {
        return Ok(true);
    }
    let collapse = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapse(a) == collapse(b) || unescape(a) == unescape(b) {
        return Ok(true);
    }
    let (la, lb) = (a.chars().count(), b.chars().count());
    let longest = la.max(lb);
    if longest > MAX_COMPARED {
        return Ok(false);
    }
    budget.cells(la * lb)?;
    let distance = strsim::levenshtein(a, b) as f64;
    Ok(1.0 - distance / longest as f64 >= ALIKE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_far_longer_than_old_is_disproportionate() {
        assert!(!disproportionate(" a \n b ", "a\nb"));
        assert!(disproportionate(
            &format!("a\n{}b", " ".repeat(600)),
            "a\nb"
        ));
        assert!(disproportionate("a\nx\ny\nz\nb", "a\nb"));
        assert!(!disproportionate("a\nx\nb", "a\ny\nb"));
        // One line of old is never held to the text rule: its candidates are single lines.
        assert!(!disproportionate(&format!("{}x", " ".repeat(600)), "x"));
    }

    #[test]
    fn only_lines_old_accounts_for() {
        let mut budget = Budget::default();
        let mut accounts =
            |block: &[&str], wanted: &[&str]| accounts_for(block, wanted, &mut budget).unwrap();
        assert!(accounts(
            &["fn f() {", "  let x = 1;", "}"],
            &["fn f() {", "let x = 2;", "}"]
        ));
        assert!(accounts(&["a", "", "  TWO", "b"], &["a", "two", "b"]));
        assert!(!accounts(
            &["function configure() {", "  removeAllUserData()", "}"],
            &["function configure() {", "  const enabled = true", "}"]
        ));
        assert!(!accounts(
            &["f {", "  keep()", "  remove()", "}"],
            &["f {", "  keep()", "}"]
        ));
    }
}
