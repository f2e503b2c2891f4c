//! Which family a model id belongs to, read from the id alone: the one place that knows
//! OpenAI's reasoning ids, Claude's generations and Gemini, for the wire a model defaults to,
//! its thinking variants and the instructions written for it.

/// A model's family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelFamily {
    /// OpenAI's o-series, GPT-5 and codex: they reason, controlled by `reasoning.effort`.
    OpenAiReasoning,
    /// Claude 4 and later: thinking budgets, and thinking between tool calls.
    ClaudeInterleaved,
    /// Claude 3.7: thinking budgets.
    ClaudeThinking,
    /// Earlier Claude models: no control over thinking.
    Claude,
    Gemini,
    /// Every other model.
    Other,
}

impl ModelFamily {
    /// The family of `model` (a bare id, or `provider/…/id`).
    pub fn of(model: &str) -> Self {
        let id = model.to_ascii_lowercase();
        let id = id.rsplit('/').next().unwrap_or(&id);
        let o_series = id.starts_with('o') && id[1..].starts_with(|c: char| c.is_ascii_digit());
        if o_series || id.starts_with("gpt-5") || id.contains("codex") {
            return ModelFamily::OpenAiReasoning;
        }
        if id.contains("gemini") {
            return ModelFamily::Gemini;
        }
        if !id.contains("claude") {
            return ModelFamily::Other;
        }
        let four_or_later = ["-4", "opus-4", "sonnet-4", "haiku-4"]
            .iter()
            .any(|marker| id.contains(marker))
            && !id.contains("3-5")
            && !id.contains("3.5");
        if four_or_later {
            ModelFamily::ClaudeInterleaved
        } else if id.contains("3-7") || id.contains("3.7") {
            ModelFamily::ClaudeThinking
        } else {
            ModelFamily::Claude
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ModelFamily::*;
    use super::*;

    #[test]
    fn ids_name_their_family() {
        for (id, family) in [
            ("gpt-5-codex", OpenAiReasoning),
            ("o4-mini", OpenAiReasoning),
            ("openai/o3", OpenAiReasoning),
            ("gpt-4.1", Other),
            ("claude-sonnet-4-5", ClaudeInterleaved),
            ("openrouter/anthropic/claude-opus-4", ClaudeInterleaved),
            ("claude-3-7-sonnet-latest", ClaudeThinking),
            ("claude-3-5-haiku", Claude),
            ("gemini-2.5-pro", Gemini),
            ("qwen3-coder", Other),
        ] {
            assert_eq!(ModelFamily::of(id), family, "{id}");
        }
    }
}
