//! `_session/rewind` through the binary: a dry run says what would go and changes nothing; a
//! rewind by the message's fingerprint drops it and what followed and puts its files back;
//! `/redo` brings both back; `files: false` rewinds the conversation only; a message that is
//! not there is answered `rewound: false` with the reason.

use crate::support::mock_llm::openai_text;
use crate::support::write_turn;
use serde_json::{Value, json};

pub(crate) fn fingerprint(text: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
    let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

pub(crate) fn rewind(session: &str, text: &str, extra: Value) -> Value {
    let mut params = json!({"sessionId": session,
        "beforeMessage": {"messageId": "client-side-id", "messageFingerprint": fingerprint(text),
                          "messageOccurrence": 1}});
    for (key, value) in extra.as_object().unwrap() {
        params[key] = value.clone();
    }
    params
}

#[tokio::test]
async fn a_dry_run_then_a_rewind_then_redo() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let init = agent.initialize().await;
    assert_eq!(
        init["result"]["_meta"]["sessionRewind"],
        json!({"supported": true, "files": true, "dryRun": true})
    );
    write_turn(&mock, &mut agent, &session, "first", "a.txt").await;
    write_turn(&mock, &mut agent, &session, "second", "b.txt").await;
    let (a, b) = (env.project.join("a.txt"), env.project.join("b.txt"));

    let dry = agent
        .request(
            "_session/rewind",
            rewind(&session, "second", json!({"dryRun": true})),
        )
        .await;
    assert_eq!(
        dry["result"],
        json!({"rewound": false, "sessionId": session, "dryRun": true,
               "messagesDropped": 3, "files": ["b.txt"]}),
        "{dry}"
    );
    assert!(b.exists(), "a dry run changes nothing");

    let done = agent
        .request("_session/rewind", rewind(&session, "second", json!({})))
        .await;
    assert_eq!(
        done["result"],
        json!({"rewound": true, "sessionId": session, "messagesDropped": 3,
               "files": ["b.txt"]}),
        "{done}"
    );
    assert!(!b.exists() && a.exists());
    mock.push(openai_text(&["ok"], "stop"));
    let asked = mock.requests().len();
    agent.prompt(&session, "/redo").await;
    assert!(b.exists(), "/redo brings the rewound turn back");
    assert_eq!(
        mock.requests().len(),
        asked,
        "/redo never reaches the model"
    );

    let conversation_only = agent
        .request(
            "_session/rewind",
            rewind(&session, "second", json!({"files": false})),
        )
        .await;
    assert_eq!(conversation_only["result"]["rewound"], true);
    assert_eq!(conversation_only["result"]["files"], json!([]));
    assert!(b.exists(), "the files stay");
    agent.prompt(&session, "what now?").await;
    let sent = mock.requests().last().unwrap().body.to_string();
    let said = |text: &str| sent.contains(&format!("{{\"role\":\"user\",\"content\":\"{text}\"}}"));
    assert!(said("first") && !said("second"), "{sent}");
    // The prompt made the rewind permanent, and the rewound conversation was kept whole.
    let listed = agent
        .request("session/list", json!({"cwd": env.project}))
        .await;
    let kept = listed["result"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["title"].as_str().unwrap().ends_with("(before undo)"))
        .unwrap_or_else(|| panic!("no kept copy in {listed}"))["sessionId"]
        .clone();
    let loaded = agent
        .request(
            "session/load",
            json!({"sessionId": kept, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert!(loaded.get("result").is_some(), "{loaded}");
    let replayed: Vec<String> = agent
        .updates_of("user_message_chunk")
        .iter()
        .map(|u| u["content"]["text"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(replayed, ["first", "second"], "{replayed:?}");

    let missing = agent
        .request("_session/rewind", rewind(&session, "never said", json!({})))
        .await;
    assert_eq!(missing["result"]["rewound"], false, "{missing}");
    assert!(
        missing["result"]["reason"]
            .as_str()
            .unwrap()
            .contains("is not in session"),
        "{missing}"
    );
}
