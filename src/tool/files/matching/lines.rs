//! The line-based strategies: each offers the blocks of whole lines of the file that
//! `oldString` may have meant (windows may overlap), as text borrowed from the file.

use std::borrow::Cow;

use super::guard::{self, Budget};
use super::rolling::{self, Rolling};
use super::{Candidate, MatchError};

/// The file's lines (split on `\n`, a final empty piece kept) and where each starts.
struct Lines<'a> {
    text: &'a str,
    lines: Vec<&'a str>,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let lines: Vec<&str> = text.split('\n').collect();
        let mut starts = Vec::with_capacity(lines.len());
        let mut at = 0;
        for line in &lines {
            starts.push(at);
            at += line.len() + 1;
        }
        Lines {
            text,
            lines,
            starts,
        }
    }

    /// Lines `first..=last`, joined by their `\n`s.
    fn block(&self, first: usize, last: usize) -> Candidate<'a> {
        let end = self.starts[last] + self.lines[last].len();
        Candidate::lines(Cow::Borrowed(&self.text[self.starts[first]..end]))
    }

    /// Every window of `n` lines whose first line passes `first` (a cheap test) and whose
    /// lines then satisfy `fits`; each full test spends `n` of the budget.
    fn windows(
        &self,
        n: usize,
        budget: &mut Budget,
        first: impl Fn(&str) -> bool,
        fits: impl Fn(&[&str]) -> bool,
    ) -> Result<Vec<Candidate<'a>>, MatchError> {
        if n == 0 || n > self.lines.len() {
            return Ok(Vec::new());
        }
        let mut found = Vec::new();
        for i in 0..=self.lines.len() - n {
            if !first(self.lines[i]) {
                continue;
            }
            budget.lines(n)?;
            if fits(&self.lines[i..i + n]) {
                found.push(self.block(i, i + n - 1));
            }
        }
        Ok(found)
    }

    /// For each line, the first line at or after it whose trimmed text is `wanted`.
    fn next_equal(&self, wanted: &str) -> Vec<Option<usize>> {
        let mut next = vec![None; self.lines.len() + 1];
        for i in (0..self.lines.len()).rev() {
            next[i] = if self.lines[i].trim() == wanted {
                Some(i)
            } else {
                next[i + 1]
            };
        }
        next
    }
}

/// `oldString`'s lines, without the empty piece a final newline leaves.
fn wanted(old: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = old.split('\n').collect();
    if lines.len() > 1 && lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

pub fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The lines equal once each is trimmed. Windows are compared by rolling hashes, so a long
/// `oldString` over a file of repeated lines costs one pass, and equal windows share a key.
pub fn line_trimmed<'a>(content: &'a str, old: &str) -> Vec<Candidate<'a>> {
    let wanted = wanted(old);
    let file = Lines::new(content);
    let n = wanted.len();
    if n == 0 || n > file.lines.len() {
        return Vec::new();
    }
    let target = Rolling::new(&rolling::line_hashes(wanted.iter().copied(), str::trim)).all();
    let trimmed = Rolling::new(&rolling::line_hashes(file.lines.iter().copied(), str::trim));
    let starts: Vec<usize> = (0..=file.lines.len() - n)
        .filter(|&i| trimmed.window(i, n) == target)
        .collect();
    if starts.is_empty() {
        return Vec::new();
    }
    let exact = Rolling::new(&rolling::line_hashes(file.lines.iter().copied(), |l| l));
    starts
        .into_iter()
        .map(|i| Candidate {
            key: Some(exact.window(i, n)),
            ..file.block(i, i + n - 1)
        })
        .collect()
}

/// The same first and last lines (trimmed) around lines each like the line of `oldString` at
/// its place, at most half again as long as `oldString`: a few lines never match a stretch of
/// hundreds, and no line is replaced that `oldString` does not account for.
pub fn block_anchor<'a>(
    content: &'a str,
    old: &str,
    budget: &mut Budget,
) -> Result<Vec<Candidate<'a>>, MatchError> {
    let wanted = wanted(old);
    if wanted.len() < 3 {
        return Ok(Vec::new());
    }
    let file = Lines::new(content);
    let (first, last) = (wanted[0].trim(), wanted[wanted.len() - 1].trim());
    let longest = wanted.len() + wanted.len() / 2 + 2;
    let next_last = file.next_equal(last);
    let mut found = Vec::new();
    for i in 0..file.lines.len() {
        if file.lines[i].trim() != first || i + 2 > file.lines.len() {
            continue;
        }
        let Some(j) = next_last[i + 2].filter(|&j| j < i + longest) else {
            continue;
        };
        if guard::accounts_for(&file.lines[i..=j], &wanted, budget)? {
            found.push(file.block(i, j));
        }
    }
    Ok(found)
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The words of `words` in `line`, with any run of whitespace between them.
fn words_in<'a>(line: &'a str, words: &[&str]) -> Option<&'a str> {
    let (head, rest) = words.split_first()?;
    line.match_indices(head).find_map(|(start, _)| {
        let mut at = start + head.len();
        for word in rest {
            let gap = line[at..].len() - line[at..].trim_start().len();
            if gap == 0 || !line[at + gap..].starts_with(word) {
                return None;
            }
            at += gap + word.len();
        }
        Some(&line[start..at])
    })
}

/// Equal once every run of whitespace is one space: a whole line, words within a line, or
/// a block of as many lines as `oldString` has.
pub fn whitespace_normalized<'a>(
    content: &'a str,
    old: &str,
    budget: &mut Budget,
) -> Result<Vec<Candidate<'a>>, MatchError> {
    let target = collapse(old);
    if target.is_empty() {
        return Ok(Vec::new());
    }
    let words: Vec<&str> = old.split_whitespace().collect();
    let mut found = Vec::new();
    for line in content.split('\n') {
        let collapsed = collapse(line);
        if collapsed == target {
            found.push(Candidate::lines(Cow::Borrowed(line)));
        } else if collapsed.contains(&target)
            && let Some(text) = words_in(line, &words)
        {
            found.push(Candidate::text(Cow::Borrowed(text)));
        }
    }
    let n = old.split('\n').count();
    if n > 1 {
        let file = Lines::new(content);
        found.extend(file.windows(
            n,
            budget,
            |head| target.starts_with(&collapse(head)),
            |window| collapse(&window.join("\n")) == target,
        )?);
    }
    Ok(found)
}

/// The same lines once the block's own indentation is taken off each.
pub fn indentation_flexible<'a>(
    content: &'a str,
    old: &str,
    budget: &mut Budget,
) -> Result<Vec<Candidate<'a>>, MatchError> {
    let wanted: Vec<&str> = old.split('\n').collect();
    let strip = |lines: &[&str]| -> Vec<String> {
        let width = lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| indent(l))
            .min()
            .unwrap_or(0);
        let cut = |l: &&str| {
            if l.trim().is_empty() {
                l.to_string()
            } else {
                l[width..].to_string()
            }
        };
        lines.iter().map(cut).collect()
    };
    let target = strip(&wanted);
    let head = wanted[0].trim();
    Lines::new(content).windows(
        wanted.len(),
        budget,
        |first| first.trim() == head,
        |window| strip(window) == target,
    )
}

/// `oldString` without its surrounding blank space, or the lines that are it once trimmed.
pub fn trimmed_boundary<'a>(
    content: &'a str,
    old: &str,
    budget: &mut Budget,
) -> Result<Vec<Candidate<'a>>, MatchError> {
    let trimmed = old.trim();
    if trimmed == old || trimmed.is_empty() {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    if content.contains(trimmed) {
        found.push(Candidate::text(Cow::Owned(trimmed.to_owned())));
    }
    let n = old.split('\n').count();
    found.extend(Lines::new(content).windows(
        n,
        budget,
        |first| trimmed.starts_with(first.trim_start()),
        |window| window.join("\n").trim() == trimmed,
    )?);
    Ok(found)
}

/// The same first and last lines around as many lines between as `oldString` has, each like
/// the line of `oldString` at its place.
pub fn context_aware<'a>(
    content: &'a str,
    old: &str,
    budget: &mut Budget,
) -> Result<Vec<Candidate<'a>>, MatchError> {
    let wanted = wanted(old);
    if wanted.len() < 3 {
        return Ok(Vec::new());
    }
    let file = Lines::new(content);
    let (first, last) = (wanted[0].trim(), wanted[wanted.len() - 1].trim());
    let mut found = Vec::new();
    for i in 0..file.lines.len() {
        let j = i + wanted.len() - 1;
        if j >= file.lines.len() || file.lines[i].trim() != first || file.lines[j].trim() != last {
            continue;
        }
        if guard::accounts_for(&file.lines[i..=j], &wanted, budget)? {
            found.push(file.block(i, j));
        }
    }
    Ok(found)
}
