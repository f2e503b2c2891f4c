//! The `question` tool in `tandem run`: asked on the terminal with numbered choices, or
//! answered by the `--answer` rule; without either, declined with a note on stderr.

use std::io::{BufRead as _, Write as _};
use std::sync::Arc;

use super::spinner::Spinner;
use crate::tool::question::{Answer, Question, QuestionReply};

/// What `--answer` does with every question when nobody is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AnswerRule {
    /// Pick each question's first option (the one the model recommends).
    First,
    /// Decline every question: the model goes on with its own judgment.
    Decline,
}

/// Who answers the model's questions.
pub enum Questions {
    Terminal {
        spinner: Option<Spinner>,
        /// One prompt on the screen at a time (shared with the permission questions).
        asking: Arc<tokio::sync::Mutex<()>>,
    },
    Rule(Option<AnswerRule>),
}

impl Questions {
    pub async fn ask(&self, questions: Vec<Question>) -> QuestionReply {
        match self {
            Questions::Rule(Some(AnswerRule::First)) => QuestionReply::Answered(
                questions
                    .iter()
                    .map(|q| Answer {
                        chosen: q
                            .options
                            .first()
                            .map(|o| o.label.clone())
                            .into_iter()
                            .collect(),
                        typed: None,
                    })
                    .collect(),
            ),
            Questions::Rule(rule) => {
                if rule.is_none() {
                    let asked: Vec<&str> = questions.iter().map(|q| q.question.as_str()).collect();
                    eprintln!(
                        "tandem: declined the agent's question ({}): no terminal to ask on; pass --answer first to pick the first option",
                        asked.join(" / ")
                    );
                }
                QuestionReply::Declined
            }
            Questions::Terminal { spinner, asking } => {
                let reply = move || on_terminal(&questions);
                super::terminal::at_terminal(spinner.as_ref(), asking, reply)
                    .await
                    .unwrap_or(QuestionReply::Cancelled)
            }
        }
    }
}

/// Asks each question on the terminal (never on stdin, which may carry the prompt).
fn on_terminal(questions: &[Question]) -> QuestionReply {
    let Ok(tty) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
    else {
        return QuestionReply::Unavailable("there is no terminal to ask on".into());
    };
    let Ok(mut writer) = tty.try_clone() else {
        return QuestionReply::Unavailable("the terminal cannot be written".into());
    };
    let mut reader = std::io::BufReader::new(tty);
    let mut answers = Vec::new();
    for question in questions {
        let _ = writeln!(
            writer,
            "\n? {}: {}",
            printable(&question.header),
            printable(&question.question)
        );
        for (n, option) in question.options.iter().enumerate() {
            let label = printable(&option.label);
            match printable(&option.description).as_str() {
                "" => {
                    let _ = writeln!(writer, "  {}. {label}", n + 1);
                }
                description => {
                    let _ = writeln!(writer, "  {}. {label} - {description}", n + 1);
                }
            }
        }
        let ask = match (question.is_free_text(), question.multiple, question.custom) {
            (true, _, _) => "Your answer: ".to_owned(),
            (false, true, true) => "Numbers (e.g. 1,3) or your own answer: ".to_owned(),
            (false, true, false) => "Numbers (e.g. 1,3): ".to_owned(),
            (false, false, true) => "Number or your own answer: ".to_owned(),
            (false, false, false) => "Number: ".to_owned(),
        };
        loop {
            let _ = write!(writer, "  {ask}");
            let _ = writer.flush();
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return QuestionReply::Declined,
                Ok(_) => {}
            }
            match parse(question, line.trim()) {
                Some(answer) => {
                    answers.push(answer);
                    break;
                }
                None => {
                    let _ = writeln!(
                        writer,
                        "  Please pick from 1 to {}.",
                        question.options.len()
                    );
                }
            }
        }
    }
    QuestionReply::Answered(answers)
}

/// The model's words without control characters (no escape sequence reaches the terminal).
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() && c != '\n' { ' ' } else { c })
        .collect()
}

/// A typed line as an answer: option numbers, or words of the person's own where allowed.
fn parse(question: &Question, line: &str) -> Option<Answer> {
    let numbers: Option<Vec<usize>> = line
        .split(',')
        .map(|n| n.trim().parse::<usize>().ok())
        .collect();
    // Numbers are choices, never words of the person's own: one out of range is asked again.
    let in_range = |n: &usize| (1..=question.options.len()).contains(n);
    if numbers.as_ref().is_some_and(|ns| !ns.iter().all(in_range)) {
        return None;
    }
    match numbers {
        Some(numbers) if !question.multiple && numbers.len() > 1 => None,
        Some(numbers) => {
            let mut chosen: Vec<String> = Vec::new();
            for n in numbers {
                let label = question.options[n - 1].label.clone();
                if !chosen.contains(&label) {
                    chosen.push(label);
                }
            }
            Some(Answer {
                chosen,
                typed: None,
            })
        }
        _ if question.custom && !line.is_empty() => Some(Answer {
            chosen: Vec::new(),
            typed: Some(line.to_owned()),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::question::Choice;

    fn question(multiple: bool, custom: bool) -> Question {
        Question {
            question: "Which?".into(),
            header: "Pick".into(),
            options: ["A", "B", "C"]
                .iter()
                .map(|l| Choice {
                    label: (*l).into(),
                    description: String::new(),
                })
                .collect(),
            multiple,
            custom,
        }
    }

    #[test]
    fn escape_sequences_never_reach_the_terminal() {
        assert_eq!(printable("a\x1b[2Jb\rc\nd"), "a [2Jb c\nd");
    }

    #[test]
    fn numbers_pick_options_and_words_are_typed_answers() {
        let single = question(false, true);
        assert_eq!(parse(&single, "2").unwrap().chosen, ["B"]);
        assert_eq!(
            parse(&single, "Postgres").unwrap().typed.as_deref(),
            Some("Postgres")
        );
        assert_eq!(parse(&single, "1,2"), None, "one choice only");
        assert_eq!(parse(&single, "7"), None, "out of range");
        let multi = question(true, false);
        assert_eq!(parse(&multi, "3, 1,3").unwrap().chosen, ["C", "A"]);
        assert_eq!(parse(&multi, "4"), None);
        assert_eq!(parse(&multi, ""), None);
    }
}
