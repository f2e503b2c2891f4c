//! The goal's judge: a small model reads the evidence of the turn that just ended (never the
//! agent's claim alone) and says whether the goal's condition holds, and why.

use crate::config::{LoadedConfig, ProviderApi};
use crate::provider::{self, ModelMessage, ModelRequest, UserContent};

/// What the judge is told it is.
const JUDGE_PROMPT: &str = "You check whether a coding agent has reached a goal. You are given \
the goal's condition and the evidence Tandem collected from the agent's last turn: the commands \
it ran with their exit codes and output, the files it changed, and what language servers \
reported. Judge only from that evidence. The agent's own words are a claim, not evidence: never \
accept the goal as met on a claim alone. When the evidence does not show the condition holds, \
it is not met.\n\nAnswer with one JSON object and nothing else: {\"met\": true or false, \
\"reason\": \"one or two sentences citing the evidence\"}.";

/// The judge's answer.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Verdict {
    pub met: bool,
    pub reason: String,
}

/// Asks the judge about `objective` given `evidence`; an error says why it could not judge.
pub(super) async fn judge(
    config: &LoadedConfig,
    turn_model: Option<&str>,
    (objective, evidence): (&str, &str),
) -> Result<Verdict, String> {
    let model = provider::aside::model(config, None, turn_model).map_err(|e| e.to_string())?;
    if model.api == ProviderApi::Scripted {
        return Err("the scripted demo model cannot judge a goal".into());
    }
    let request = ModelRequest {
        model: model.api_model.clone(),
        system: vec![JUDGE_PROMPT.to_owned()].into(),
        messages: vec![ModelMessage::User(vec![UserContent::Text(format!(
            "Goal condition: {objective}\n\nEvidence from the turn that just ended:\n\n\
             {evidence}\nDoes the evidence show the goal's condition holds?"
        ))])],
        max_output_tokens: Some(1024),
        ..ModelRequest::default()
    };
    let answer = provider::aside::text(&model, request)
        .await
        .map_err(|e| e.to_string())?;
    read(&answer)
}

/// The verdict in the judge's answer (the first JSON object in it).
fn read(answer: &str) -> Result<Verdict, String> {
    let answer = crate::session::turn::compaction::strip_thinking(answer);
    let (Some(start), Some(end)) = (answer.find('{'), answer.rfind('}')) else {
        return Err(format!("the judge gave no verdict: {}", answer.trim()));
    };
    let value: serde_json::Value = serde_json::from_str(&answer[start..=end])
        .map_err(|e| format!("the judge's verdict could not be read ({e})"))?;
    let met = value["met"]
        .as_bool()
        .ok_or("the judge's verdict says neither met nor unmet")?;
    let reason = value["reason"]
        .as_str()
        .unwrap_or("(no reason given)")
        .trim()
        .to_owned();
    Ok(Verdict { met, reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_is_read_from_the_first_object_and_a_vague_answer_is_refused() {
        let verdict = read("Sure.\n{\"met\": false, \"reason\": \"exit code 1\"}").unwrap();
        assert_eq!(
            verdict,
            Verdict {
                met: false,
                reason: "exit code 1".into()
            }
        );
        assert!(read("It looks done to me.").is_err());
        assert!(read("{\"reason\": \"?\"}").is_err());
    }
}
