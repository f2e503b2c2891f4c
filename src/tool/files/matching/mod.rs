//! Finding `oldString` in a file for `edit`: exact first, then tolerant strategies in a fixed
//! order, each offering candidate texts from the file. Pure text (`\n` line ends).
//!
//! The rules between candidates, so that no edit lands where the model did not mean it:
//! - a strategy's candidates are grouped by text, in the order first found; the first group
//!   that occurs once in the file wins (with `replaceAll`, every occurrence of the first group
//!   found at all);
//! - a strategy that finds the text only at several places ends the search: a more tolerant
//!   strategy never picks one place among them, nor a place elsewhere;
//! - a tolerant candidate much longer than `oldString` ends the search with a refusal, and the
//!   anchored strategies only offer blocks whose every line `oldString` accounts for
//!   (`guard`);
//! - the tolerant work is bounded, and a search over the bound is refused, not cut short.

mod escape;
mod guard;
mod indent;
mod lines;
mod rolling;

use std::borrow::Cow;
use std::hash::BuildHasher;

use indexmap::IndexMap;

pub use super::endings::Replacement;
pub use guard::Budget;
pub use indent::Reindent;

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
}

impl Strategy {
    const ORDER: [Strategy; 8] = [
        Strategy::Exact,
        Strategy::LineTrimmed,
        Strategy::BlockAnchor,
        Strategy::WhitespaceNormalized,
        Strategy::IndentationFlexible,
        Strategy::EscapeNormalized,
        Strategy::TrimmedBoundary,
        Strategy::ContextAware,
    ];

    /// In words, for the result the model reads.
    pub fn describe(self) -> &'static str {
        match self {
            Strategy::Exact => "exactly",
            Strategy::LineTrimmed => "ignoring each line's surrounding whitespace",
            Strategy::BlockAnchor => {
                "by its first and last lines (lines between differed slightly)"
            }
            Strategy::WhitespaceNormalized => "ignoring differences in whitespace",
            Strategy::IndentationFlexible => "at another indentation",
            Strategy::EscapeNormalized => "after reading its escape sequences",
            Strategy::TrimmedBoundary => "without its leading and trailing blank space",
            Strategy::ContextAware => "by its first and last lines and lines like each between",
        }
    }

    fn candidates<'a>(
        self,
        content: &'a str,
        old: &str,
        budget: &mut Budget,
    ) -> Result<Vec<Candidate<'a>>, MatchError> {
        Ok(match self {
            Strategy::Exact => vec![Candidate::text(Cow::Owned(old.to_owned()))],
            Strategy::LineTrimmed => lines::line_trimmed(content, old),
            Strategy::BlockAnchor => lines::block_anchor(content, old, budget)?,
            Strategy::WhitespaceNormalized => lines::whitespace_normalized(content, old, budget)?,
            Strategy::IndentationFlexible => lines::indentation_flexible(content, old, budget)?,
            Strategy::EscapeNormalized => escape::candidates(content, old),
            Strategy::TrimmedBoundary => lines::trimmed_boundary(content, old, budget)?,
            Strategy::ContextAware => lines::context_aware(content, old, budget)?,
        })
    }
}

/// A text that may be what `oldString` meant, and how `newString` fits in its place.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Candidate<'a> {
    text: Cow<'a, str>,
    /// Whole lines of the file: `newString` may be shifted to their indentation.
    whole_lines: bool,
    /// `newString` read with the same escapes as `oldString` was.
    unescape_new: bool,
    /// A hash of `text` the strategy already knows (equal texts, equal keys).
    key: Option<u64>,
}

impl<'a> Candidate<'a> {
    fn text(text: Cow<'a, str>) -> Self {
        Candidate {
            text,
            whole_lines: false,
            unescape_new: false,
            key: None,
        }
    }

    fn lines(text: Cow<'a, str>) -> Self {
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
    /// A tolerant match spans far more of the file than `oldString` holds.
    Disproportionate,
    /// Searching tolerantly would have taken more work than the bound allows.
    TooCostly,
}

/// Where `oldString` was found and what replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub strategy: Strategy,
    pub replacements: Vec<Replacement>,
    /// How `newString` was fitted to the file's indentation, when it was considered.
    pub reindent: Option<Reindent>,
}

/// The replacements of `old` by `new` in `content`.
pub fn find(content: &str, old: &str, new: &str, replace_all: bool) -> Result<Found, MatchError> {
    if old.is_empty() {
        return Err(MatchError::NotFound);
    }
    let mut budget = Budget::default();
    for strategy in Strategy::ORDER {
        let candidates = strategy.candidates(content, old, &mut budget)?;
        let mut ambiguous = 0;
        for (candidate, aligned) in grouped(candidates) {
            if candidate.text.is_empty() {
                continue;
            }
            if strategy != Strategy::Exact && guard::disproportionate(&candidate.text, old) {
                return Err(MatchError::Disproportionate);
            }
            let text = candidate.text.as_ref();
            if aligned > 1 && !replace_all {
                ambiguous = ambiguous.max(aligned);
                continue;
            }
            let limit = if replace_all { usize::MAX } else { 2 };
            let starts: Vec<usize> = content
                .match_indices(text)
                .map(|(i, _)| i)
                .take(limit)
                .collect();
            match starts.len() {
                0 => continue,
                1 => {}
                n if !replace_all => {
                    ambiguous = ambiguous.max(n.max(aligned));
                    continue;
                }
                _ => {}
            }
            let (replacement, reindent) = replacement_text(&candidate, old, new);
            let replacements = starts
                .into_iter()
                .map(|start| Replacement {
                    range: start..start + text.len(),
                    text: replacement.clone(),
                })
                .collect();
            return Ok(Found {
                strategy,
                replacements,
                reindent,
            });
        }
        if ambiguous > 0 {
            return Err(MatchError::Several(ambiguous));
        }
    }
    Err(MatchError::NotFound)
}

/// The candidates with one entry per text, in the order first offered, each with how many
/// candidates (places the strategy found) share its text.
fn grouped(candidates: Vec<Candidate<'_>>) -> Vec<(Candidate<'_>, usize)> {
    let state = rolling::seed();
    let mut groups: IndexMap<(u64, usize), (Candidate<'_>, usize)> = IndexMap::new();
    for candidate in candidates {
        let key = candidate
            .key
            .unwrap_or_else(|| state.hash_one(candidate.text.as_ref()));
        groups
            .entry((key, candidate.text.len()))
            .and_modify(|(_, n)| *n += 1)
            .or_insert((candidate, 1));
    }
    groups.into_values().collect()
}

/// What goes in the candidate's place: `new`, read with the escapes `old` was read with, and
/// moved to the file's indentation when the model wrote both at another one (`indent`).
fn replacement_text(candidate: &Candidate, old: &str, new: &str) -> (String, Option<Reindent>) {
    let new = if candidate.unescape_new {
        escape::unescape(new)
    } else {
        new.to_owned()
    };
    if !candidate.whole_lines {
        return (new, None);
    }
    indent::fit(&candidate.text, old, new)
}

#[cfg(test)]
mod tests;
