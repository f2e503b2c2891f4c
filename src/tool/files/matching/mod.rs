//! Finding `oldString` in a file for `edit`: exact first, then tolerant strategies in a fixed
//! order, each offering candidate texts from the file. Pure text (`\n` line ends).
//!
//! The rule between candidates: at each strategy, the first candidate whose text occurs once
//! in the file wins; a candidate that occurs several times gives way to the next candidate and
//! then the next strategy; with `replaceAll`, every occurrence of the first found candidate
//! is replaced.

mod escape;
mod lines;

pub use super::endings::Replacement;

/// How `oldString` was found, in the order they are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Exact,
    LineTrimmed,
    BlockAnchor,
    WhitespaceNormalized,
    IndentationFlexible,
    EscapeNormalized,
    TrimmedBoundary,
    ContextAware,
    MultiOccurrence,
}

impl Strategy {
    const ORDER: [Strategy; 9] = [
        Strategy::Exact,
        Strategy::LineTrimmed,
        Strategy::BlockAnchor,
        Strategy::WhitespaceNormalized,
        Strategy::IndentationFlexible,
        Strategy::EscapeNormalized,
        Strategy::TrimmedBoundary,
        Strategy::ContextAware,
        Strategy::MultiOccurrence,
    ];

    /// In words, for the result the model reads.
    pub fn describe(self) -> &'static str {
        match self {
            Strategy::Exact | Strategy::MultiOccurrence => "exactly",
            Strategy::LineTrimmed => "ignoring each line's surrounding whitespace",
            Strategy::BlockAnchor => "by its first and last lines (the middle differed)",
            Strategy::WhitespaceNormalized => "ignoring differences in whitespace",
            Strategy::IndentationFlexible => "at another indentation",
            Strategy::EscapeNormalized => "after reading its escape sequences",
            Strategy::TrimmedBoundary => "without its leading and trailing blank space",
            Strategy::ContextAware => "by its first and last lines and most of the middle",
        }
    }

    fn candidates(self, content: &str, old: &str) -> Vec<Candidate> {
        match self {
            Strategy::Exact | Strategy::MultiOccurrence => vec![Candidate::text(old)],
            Strategy::LineTrimmed => lines::line_trimmed(content, old),
            Strategy::BlockAnchor => lines::block_anchor(content, old),
            Strategy::WhitespaceNormalized => lines::whitespace_normalized(content, old),
            Strategy::IndentationFlexible => lines::indentation_flexible(content, old),
            Strategy::EscapeNormalized => escape::candidates(content, old),
            Strategy::TrimmedBoundary => lines::trimmed_boundary(content, old),
            Strategy::ContextAware => lines::context_aware(content, old),
        }
    }
}

/// A text that may be what `oldString` meant, and how `newString` fits in its place.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Candidate {
    text: String,
    /// Whole lines of the file: `newString` is shifted to their indentation.
    whole_lines: bool,
    /// `newString` read with the same escapes as `oldString` was.
    unescape_new: bool,
}

impl Candidate {
    fn text(text: &str) -> Self {
        Candidate {
            text: text.to_owned(),
            whole_lines: false,
            unescape_new: false,
        }
    }

    fn lines(text: &str) -> Self {
        Candidate {
            whole_lines: true,
            ..Candidate::text(text)
        }
    }
}

/// Why a search failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchError {
    NotFound,
    /// The most occurrences any candidate had.
    Several(usize),
}

/// Where `oldString` was found and what replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub strategy: Strategy,
    pub replacements: Vec<Replacement>,
}

/// The replacements of `old` by `new` in `content`.
pub fn find(content: &str, old: &str, new: &str, replace_all: bool) -> Result<Found, MatchError> {
    if old.is_empty() {
        return Err(MatchError::NotFound);
    }
    let mut most = 0;
    for strategy in Strategy::ORDER {
        for candidate in strategy.candidates(content, old) {
            if candidate.text.is_empty() {
                continue;
            }
            let starts: Vec<usize> = content
                .match_indices(candidate.text.as_str())
                .map(|(i, _)| i)
                .collect();
            most = most.max(starts.len());
            if starts.is_empty() || (starts.len() > 1 && !replace_all) {
                continue;
            }
            let text = replacement_text(&candidate, old, new);
            let replacements = starts
                .into_iter()
                .map(|start| Replacement {
                    range: start..start + candidate.text.len(),
                    text: text.clone(),
                })
                .collect();
            return Ok(Found {
                strategy,
                replacements,
            });
        }
    }
    Err(if most > 1 {
        MatchError::Several(most)
    } else {
        MatchError::NotFound
    })
}

/// What goes in the candidate's place: `new`, read with the escapes `old` was read with, and
/// shifted to the file's indentation when the model wrote both at another one.
fn replacement_text(candidate: &Candidate, old: &str, new: &str) -> String {
    let new = if candidate.unescape_new {
        escape::unescape(new)
    } else {
        new.to_owned()
    };
    if !candidate.whole_lines {
        return new;
    }
    let (old_indent, found_indent, new_indent) = (
        lines::min_indent(old),
        lines::min_indent(&candidate.text),
        lines::min_indent(&new),
    );
    if old_indent == found_indent || new_indent != old_indent {
        return new;
    }
    let prefix = lines::indent_prefix(&candidate.text, found_indent);
    new.split('\n')
        .map(|line| {
            if line.trim().is_empty() {
                line.to_owned()
            } else {
                format!("{prefix}{}", &line[old_indent.min(lines::indent(line))..])
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests;
