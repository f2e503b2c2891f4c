use super::*;

fn question(options: &[&str]) -> Question {
    Question {
        question: " Which one? ".into(),
        header: String::new(),
        options: options
            .iter()
            .map(|l| Choice {
                label: (*l).into(),
                description: String::new(),
            })
            .collect(),
        multiple: true,
        custom: false,
    }
}

#[test]
fn questions_are_checked_and_tidied() {
    let tidy = checked_one(question(&["A", "B"]));
    assert_eq!(tidy.question, "Which one?");
    assert_eq!(
        tidy.header, "Which one?",
        "an empty header takes the question"
    );
    let free = checked_one(question(&[]));
    assert!(
        free.custom && !free.multiple,
        "no options: the person's own words"
    );
    let long = short_header(&"word ".repeat(20), "");
    assert_eq!(long.chars().count(), 30);
    for bad in [
        vec![],
        vec![question(&["A"])],
        vec![question(&["A", "a"])],
        vec![question(&["A", " "])],
        vec![question(&["1", "2", "3", "4", "5", "6", "7"])],
        vec![question(&["A", "B"]); 5],
    ] {
        assert!(matches!(checked(bad), Err(ToolError::InvalidInput { .. })));
    }
}

fn checked_one(q: Question) -> Question {
    checked(vec![q]).unwrap().remove(0)
}

#[test]
fn replies_read_as_the_model_needs_them() {
    let qs = checked(vec![question(&["A", "B"])]).unwrap();
    let answered = answer(
        &qs,
        QuestionReply::Answered(vec![Answer {
            chosen: vec!["B".into()],
            typed: Some("and C".into()),
        }]),
    )
    .unwrap();
    assert!(
        answered
            .output
            .contains("Answer: B, \"and C\" (in their own words)")
    );
    assert!(answered.ends_turn.is_none());
    let empty = answer(&qs, QuestionReply::Answered(vec![Answer::default()])).unwrap();
    assert!(empty.output.contains("Answer: (no answer)"));
    let in_chat = answer(&qs, QuestionReply::InChat).unwrap();
    assert_eq!(in_chat.ends_turn.as_deref(), Some("Which one?"));
    assert!(matches!(
        answer(&qs, QuestionReply::Cancelled),
        Err(ToolError::Cancelled)
    ));
    assert!(matches!(
        answer(&qs, QuestionReply::Unavailable("x".into())),
        Err(ToolError::Failed(_))
    ));
}

#[test]
fn an_answer_keeps_only_what_the_question_offered() {
    let question = Question {
        question: "Which?".into(),
        header: "Pick".into(),
        options: vec![
            Choice {
                label: "A".into(),
                description: String::new(),
            },
            Choice {
                label: "B".into(),
                description: String::new(),
            },
        ],
        multiple: false,
        custom: false,
    };
    let sent = Answer {
        chosen: vec!["C".into(), "B".into(), "A".into()],
        typed: Some("rm -rf / please".into()),
    };
    assert_eq!(
        question.keep_offered(sent.clone()),
        Answer {
            chosen: vec!["B".into()],
            typed: None
        }
    );
    let open = Question {
        custom: true,
        multiple: true,
        ..question
    };
    assert_eq!(
        open.keep_offered(sent),
        Answer {
            chosen: vec!["B".into(), "A".into()],
            typed: Some("rm -rf / please".into())
        }
    );
}
