//! Which family a model id belongs to, read from the id alone: the one place that knows
//! OpenAI's reasoning ids, Claude's generations and Gemini, for the wire a model defaults to,
//! its thinking variants and the instructions written for it.

use super::catalog::defaults::generation;

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
    /// The family of `model` (a bare id, or `provider/…/id`), by rules that fit a new model
    /// of a known family without code: an `o<N>` model, a codex model or a `gpt-<N>` model of
    /// generation 5 or later is an OpenAI reasoning model; a Claude of generation 4 or later
    /// thinks between tool calls, 3.7 thinks, earlier ones do not.
    pub fn of(model: &str) -> Self {
        let id = model.to_ascii_lowercase();
        let id = id.rsplit('/').next().unwrap_or(&id);
        let generation = generation(id);
        let o_series = id.starts_with('o') && id[1..].starts_with(|c: char| c.is_ascii_digit());
        let gpt_reasoning =
            id.starts_with("gpt-") && generation.is_some_and(|(major, _)| major >= 5);
        if o_series || gpt_reasoning || id.contains("codex") {
            return ModelFamily::OpenAiReasoning;
        }
        if id.contains("gemini") {
            return ModelFamily::Gemini;
        }
        if !id.contains("claude") {
            return ModelFamily::Other;
        }
        match generation {
            Some((major, _)) if major >= 4 => ModelFamily::ClaudeInterleaved,
            Some((3, 7)) => ModelFamily::ClaudeThinking,
            _ => ModelFamily::Claude,
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
            ("claude-3.5-sonnet", Claude),
            ("anthropic/claude-3.7-sonnet", ClaudeThinking),
            // New models of known families, with no code for them.
            ("claude-sonnet-5-5", ClaudeInterleaved),
            ("claude-mythos-5-1", ClaudeInterleaved),
            ("claude-opus-7", ClaudeInterleaved),
            ("gpt-6.1-sol", OpenAiReasoning),
            ("gpt-5.3-codex", OpenAiReasoning),
            ("gpt-7-terra", OpenAiReasoning),
            ("gpt-oss-120b", Other),
            ("gemini-2.5-pro", Gemini),
            ("qwen3-coder", Other),
        ] {
            assert_eq!(ModelFamily::of(id), family, "{id}");
        }
    }
}
