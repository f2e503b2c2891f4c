//! The line-based strategies: each offers the blocks of whole lines of the file that
//! `oldString` may have meant (windows may overlap), as text taken from the file.

use super::Candidate;

/// The longest line whose edit distance to another is computed.
const MAX_COMPARED: usize = 2_000;

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
    fn block(&self, first: usize, last: usize) -> Candidate {
        let end = self.starts[last] + self.lines[last].len();
        Candidate::lines(&self.text[self.starts[first]..end])
    }

    /// Every window of `n` lines whose lines satisfy `fits`.
    fn windows(&self, n: usize, fits: impl Fn(&[&str]) -> bool) -> Vec<Candidate> {
        if n == 0 || n > self.lines.len() {
            return Vec::new();
        }
        (0..=self.lines.len() - n)
            .filter(|&i| fits(&self.lines[i..i + n]))
            .map(|i| self.block(i, i + n - 1))
            .collect()
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

/// The smallest indentation of the text's non-blank lines.
pub fn min_indent(text: &str) -> usize {
    text.split('\n')
        .filter(|l| !l.trim().is_empty())
        .map(indent)
        .min()
        .unwrap_or(0)
}

/// The whitespace that indents the text's least indented line, as the file writes it.
pub fn indent_prefix(text: &str, width: usize) -> &str {
    text.split('\n')
        .find(|l| !l.trim().is_empty() && indent(l) == width)
        .map_or("", |l| &l[..width])
}

/// The lines equal once each is trimmed.
pub fn line_trimmed(content: &str, old: &str) -> Vec<Candidate> {
    let wanted: Vec<&str> = wanted(old).into_iter().map(str::trim).collect();
    Lines::new(content).windows(wanted.len(), |window| {
        window.iter().zip(&wanted).all(|(l, w)| l.trim() == *w)
    })
}

/// The same first and last lines (trimmed) around a similar middle, at most half again as
/// long as `oldString`: a few lines never match a stretch of hundreds.
pub fn block_anchor(content: &str, old: &str) -> Vec<Candidate> {
    let wanted = wanted(old);
    if old.split('\n').count() < 3 || wanted.len() < 3 {
        return Vec::new();
    }
    let file = Lines::new(content);
    let (first, last) = (wanted[0].trim(), wanted[wanted.len() - 1].trim());
    let longest = wanted.len() + wanted.len() / 2 + 2;
    let mut spans = Vec::new();
    for i in 0..file.lines.len() {
        if file.lines[i].trim() != first {
            continue;
        }
        let end = file.lines.len().min(i + longest);
        if let Some(j) = (i + 2..end).find(|&j| file.lines[j].trim() == last) {
            spans.push((i, j));
        }
    }
    let similarity = |&(i, j): &(usize, usize)| {
        let middle = (wanted.len() - 2).min(j - i - 1);
        if middle == 0 {
            return 1.0;
        }
        let total: f64 = (1..=middle)
            .map(|k| {
                let (a, b) = (file.lines[i + k].trim(), wanted[k].trim());
                let longest = a.chars().count().max(b.chars().count());
                if longest == 0 {
                    0.0
                } else if longest > MAX_COMPARED {
                    // Edit distance is quadratic: a minified line is only equal or not.
                    f64::from(u8::from(a == b))
                } else {
                    1.0 - strsim::levenshtein(a, b) as f64 / longest as f64
                }
            })
            .sum();
        total / middle as f64
    };
    let best = match spans.len() {
        0 => return Vec::new(),
        1 => spans[0],
        _ => {
            let scored = spans.iter().map(|s| (similarity(s), *s));
            let (score, span) = scored.fold((-1.0, spans[0]), |a, b| if b.0 > a.0 { b } else { a });
            if score < 0.3 {
                return Vec::new();
            }
            span
        }
    };
    vec![file.block(best.0, best.1)]
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
pub fn whitespace_normalized(content: &str, old: &str) -> Vec<Candidate> {
    let target = collapse(old);
    if target.is_empty() {
        return Vec::new();
    }
    let words: Vec<&str> = old.split_whitespace().collect();
    let mut found = Vec::new();
    for line in content.split('\n') {
        let collapsed = collapse(line);
        if collapsed == target {
            found.push(Candidate::lines(line));
        } else if collapsed.contains(&target)
            && let Some(text) = words_in(line, &words)
        {
            found.push(Candidate::text(text));
        }
    }
    let n = old.split('\n').count();
    if n > 1 {
        let file = Lines::new(content);
        found.extend(file.windows(n, |window| {
            let head = collapse(window[0]);
            target.starts_with(&head) && collapse(&window.join("\n")) == target
        }));
    }
    found
}

/// The same lines once the block's own indentation is taken off each.
pub fn indentation_flexible(content: &str, old: &str) -> Vec<Candidate> {
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
    Lines::new(content).windows(wanted.len(), |window| {
        window[0].trim() == wanted[0].trim() && strip(window) == target
    })
}

/// `oldString` without its surrounding blank space, or the lines that are it once trimmed.
pub fn trimmed_boundary(content: &str, old: &str) -> Vec<Candidate> {
    let trimmed = old.trim();
    if trimmed == old || trimmed.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    if content.contains(trimmed) {
        found.push(Candidate::text(trimmed));
    }
    let n = old.split('\n').count();
    found.extend(Lines::new(content).windows(n, |window| window.join("\n").trim() == trimmed));
    found
}

/// The same first and last lines around a middle of the same length, at least half of whose
/// non-blank lines are equal once trimmed.
pub fn context_aware(content: &str, old: &str) -> Vec<Candidate> {
    if old.split('\n').count() < 3 {
        return Vec::new();
    }
    let wanted = wanted(old);
    let file = Lines::new(content);
    let (first, last) = (wanted[0].trim(), wanted[wanted.len() - 1].trim());
    let mut found = Vec::new();
    for i in 0..file.lines.len() {
        if file.lines[i].trim() != first {
            continue;
        }
        let Some(j) = (i + 2..file.lines.len()).find(|&j| file.lines[j].trim() == last) else {
            continue;
        };
        if j - i + 1 != wanted.len() {
            continue;
        }
        let (mut same, mut counted) = (0, 0);
        for (k, want) in wanted.iter().enumerate().take(wanted.len() - 1).skip(1) {
            let (a, b) = (file.lines[i + k].trim(), want.trim());
            if !a.is_empty() || !b.is_empty() {
                counted += 1;
                same += usize::from(a == b);
            }
        }
        if counted == 0 || same * 2 >= counted {
            found.push(file.block(i, j));
        }
    }
    found
}
