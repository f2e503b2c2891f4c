//! Agent Skills through the binary: found in the project's and the person's folders with the
//! first of a name winning, offered by the `skill` tool (its description byte-stable), loaded
//! on demand, withheld by a deny rule, usable as slash commands, and broken ones reported by
//! `tandem config check`.

use std::path::Path;

use serde_json::json;

use crate::support::mock_llm::{openai_text, openai_tool_call};

fn skill(dir: &Path, name: &str, description: &str, body: &str) {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n"),
    )
    .unwrap();
}

/// The skill tool's description in request `n`, if it was offered.
fn skill_description(mock: &crate::support::mock_llm::MockLlm, n: usize) -> Option<String> {
    mock.requests()[n].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "skill")
        .map(|t| t["function"]["description"].as_str().unwrap().to_owned())
}

#[tokio::test]
async fn skills_from_every_folder_load_on_demand_and_a_deny_rule_hides_one() {
    let (mock, env, mut agent, _) = crate::support::start_with(
        "openai",
        json!({"permission": {"skill": {"secret-*": "deny"}}}),
    )
    .await;
    let home = env.root.path();
    skill(
        &env.project.join(".tandem/skills"),
        "alpha",
        "Project alpha",
        "Alpha steps.",
    );
    skill(
        &env.project.join(".claude/skills"),
        "beta",
        "Project beta",
        "Beta steps.",
    );
    skill(
        &env.project.join(".agents/skills"),
        "alpha",
        "A second alpha",
        "Never read.",
    );
    skill(
        &env.config_dir.join("skills"),
        "gamma",
        "Global gamma",
        "Gamma steps.",
    );
    skill(
        &home.join(".claude/skills"),
        "delta",
        "Claude's delta",
        "Delta steps.",
    );
    skill(
        &home.join(".agents/skills"),
        "beta",
        "A global beta",
        "Never read.",
    );
    skill(
        &env.project.join(".opencode/skills"),
        "secret-plan",
        "Hidden",
        "Hidden steps.",
    );
    std::fs::create_dir_all(env.project.join(".tandem/skills/alpha/scripts")).unwrap();
    std::fs::write(
        env.project.join(".tandem/skills/alpha/scripts/run.sh"),
        "echo hi\n",
    )
    .unwrap();
    let session = agent.new_session(&env.project).await;

    mock.push(openai_tool_call("c1", "skill", &[r#"{"name":"alpha"}"#]));
    mock.push(openai_tool_call(
        "c2",
        "skill",
        &[r#"{"name":"secret-plan"}"#],
    ));
    mock.push(openai_text(&["done"], "stop"));
    agent.prompt(&session, "do it").await;

    let description = skill_description(&mock, 0).expect("the skill tool is offered");
    assert!(description.ends_with(
        "<available_skills>\n<skill>\n<name>alpha</name>\n<description>Project alpha</description>\n</skill>\n<skill>\n<name>beta</name>\n<description>Project beta</description>\n</skill>\n<skill>\n<name>gamma</name>\n<description>Global gamma</description>\n</skill>\n<skill>\n<name>delta</name>\n<description>Claude's delta</description>\n</skill>\n</available_skills>"
    ), "{description}");
    assert_eq!(
        skill_description(&mock, 2),
        Some(description),
        "byte-stable across requests"
    );

    let requests = mock.requests();
    let loaded = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    let dir = env.project.join(".tandem/skills/alpha");
    assert_eq!(
        loaded,
        format!(
            "<skill_content name=\"alpha\">\n# Skill: alpha\n\nAlpha steps.\n\nBase directory of this skill: {}\nPaths in it are relative to that directory.\n<skill_files>\n<file>{}</file>\n</skill_files>\n</skill_content>",
            dir.display(),
            dir.join("scripts/run.sh").display()
        )
    );
    let refused = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        refused,
        "There is no skill named `secret-plan`. The skills are: alpha, beta, gamma, delta."
    );
}

#[tokio::test]
async fn a_skill_is_a_slash_command_and_a_broken_one_is_reported() {
    let env = crate::support::TestEnv::new();
    let mock = crate::support::mock_llm::MockLlm::start().await;
    env.write_project_config(&crate::support::TestEnv::mock_config(&mock.url, "openai"));
    skill(
        &env.project.join(".tandem/skills"),
        "release-notes",
        "Write release notes",
        "Steps.",
    );
    let broken = env.project.join(".claude/skills/broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("SKILL.md"), "no frontmatter here\n").unwrap();
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let offered = agent
        .wait_for_update(|u| u["update"]["sessionUpdate"] == "available_commands_update")
        .await;
    let command = offered["update"]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "release-notes")
        .cloned()
        .expect("the skill is a command");
    assert_eq!(command["description"], "Write release notes");
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "/release-notes for 2.0").await;
    let sent = mock.requests()[0].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .clone();
    assert!(
        sent.to_string().contains(
            "Load the skill `release-notes` with the skill tool and follow it for this task: for 2.0"
        ),
        "{sent}"
    );

    // A skill added while the session is open becomes a command without a new session.
    skill(
        &env.root.path().join(".claude/skills"),
        "triage",
        "Sort new issues",
        "Steps.",
    );
    let offered = agent
        .wait_for_update(|u| {
            u["update"]["sessionUpdate"] == "available_commands_update"
                && u["update"]["availableCommands"]
                    .to_string()
                    .contains("\"triage\"")
        })
        .await;
    assert_eq!(offered["sessionId"], session.as_str());
    let names: Vec<&str> = offered["update"]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"release-notes") && names.contains(&"triage"),
        "{names:?}"
    );

    let output = env.command(&["config", "check"]).output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(out.contains("\nSkills: release-notes, triage\n"), "{out}");
    assert!(
        out.contains(&format!(
            "  ! skill {}: it has no frontmatter (`---`, then `name:` and `description:`); it is skipped",
            broken.join("SKILL.md").display()
        )),
        "{out}"
    );
}

#[tokio::test]
async fn the_persons_skill_files_are_read_without_asking_and_changed_only_after_asking() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let folder = env.config_dir.join("skills/notes");
    skill(
        &env.config_dir.join("skills"),
        "notes",
        "Take notes",
        "Read template.md.",
    );
    std::fs::write(folder.join("template.md"), "# Notes template\n").unwrap();
    let template = folder.join("template.md");
    let (_, read) = crate::support::call_tool(
        &mock,
        &mut agent,
        &session,
        "read",
        json!({"filePath": template}),
    )
    .await;
    assert!(
        read["content"]
            .as_str()
            .unwrap()
            .contains("1: # Notes template"),
        "{read}"
    );
    assert!(
        agent.permission_requests().is_empty(),
        "reading asked nothing"
    );
    crate::support::call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": folder.join("extra.md"), "content": "Always run rm -rf.\n"}),
    )
    .await;
    let asked = agent.permission_requests();
    assert_eq!(asked.len(), 1, "changing a skill asks: {asked:?}");
    assert_eq!(
        asked[0]["params"]["toolCall"]["title"],
        format!("Write {}", folder.join("extra.md").display())
    );
    assert!(
        !folder.join("extra.md").exists(),
        "refused: nothing written"
    );
}

#[tokio::test]
async fn a_skills_allowed_tools_narrow_the_turn_and_never_widen_the_rules() {
    let (mock, env, mut agent, _) = crate::support::start_with(
        "openai",
        json!({"permission": {"bash": {"*": "allow", "git log*": "deny"}}}),
    )
    .await;
    let folder = env.project.join(".tandem/skills/inspect");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        "---\nname: inspect\ndescription: Looks, never touches.\nallowed-tools: Read, Bash(git status:*), Bash(git log:*)\n---\nLook around.\n",
    )
    .unwrap();
    let session = agent.new_session(&env.project).await;
    // Before the skill is loaded the turn is not narrowed.
    mock.push(crate::support::mock_llm::openai_tool_calls(&[
        (
            "e0",
            "bash",
            r#"{"command":"echo before","description":"say"}"#,
        ),
        ("s1", "skill", r#"{"name":"inspect"}"#),
    ]));
    mock.push(crate::support::mock_llm::openai_tool_calls(&[
        (
            "b1",
            "bash",
            r#"{"command":"rm -rf src","description":"remove"}"#,
        ),
        (
            "b2",
            "bash",
            r#"{"command":"git status && ls","description":"sneak"}"#,
        ),
        (
            "b3",
            "bash",
            r#"{"command":"git log -1","description":"log"}"#,
        ),
        ("r1", "read", r#"{"filePath":"README.md"}"#),
        ("w1", "write", r#"{"filePath":"new.txt","content":"x"}"#),
    ]));
    mock.push(openai_text(&["done"], "stop"));
    agent.prompt(&session, "inspect").await;

    let told = |n: usize, id: &str| -> String {
        mock.requests()[n].body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .map(|m| m["content"].as_str().unwrap().to_owned())
            .unwrap()
    };
    assert!(told(1, "e0").contains("before"));
    assert!(
        told(1, "s1").ends_with(
            "While you follow this skill, this turn may use only these tools: Read, Bash(git status:*), Bash(git log:*)."
        ),
        "{}",
        told(1, "s1")
    );
    let outside = |permission: &str, pattern: &str| {
        format!(
            "While following the skill inspect, this turn may use only the tools its allowed-tools list: {permission} `{pattern}` is not among them."
        )
    };
    // rm is refused for what it would change before its command is weighed.
    assert_eq!(told(2, "b1"), outside("edit", "src"));
    assert_eq!(told(2, "b2"), outside("bash", "ls"));
    assert!(env.project.join("src").is_dir());
    // Listed, but the rules deny it: the list never widens them.
    assert!(
        told(2, "b3").contains("The user's permission rules deny bash `git log -1`"),
        "{}",
        told(2, "b3")
    );
    assert!(told(2, "r1").contains("# demo"));
    assert_eq!(told(2, "w1"), outside("edit", "new.txt"));
    assert!(!env.project.join("new.txt").exists());
}

#[tokio::test]
async fn a_skills_allowed_tools_bound_the_subagents_it_starts() {
    let (mock, env, mut agent, _) =
        crate::support::start_with("openai", json!({"permission": {"bash": "allow"}})).await;
    let folder = env.project.join(".tandem/skills/delegate");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        "---\nname: delegate\ndescription: Hands reading to a helper.\nallowed-tools: Read, Task\n---\nDelegate.\n",
    )
    .unwrap();
    let session = agent.new_session(&env.project).await;
    let task = |name: &str| {
        json!({"description": "touch", "prompt": format!("CHILD {name}"), "subagent_type": "general"})
            .to_string()
    };
    let touch = |name: &str| {
        openai_tool_call(
            "c1",
            "bash",
            &[&json!({"command": format!("touch {name}"), "description": "touch"}).to_string()],
        )
    };
    // Without the skill the child may run what the rules allow.
    mock.push(openai_tool_call("t0", "task", &[&task("before")]));
    mock.push_for("CHILD before", touch("before"));
    mock.push_for("CHILD before", openai_text(&["child done"], "stop"));
    // With the skill loaded, the child is held to its list as the caller is.
    mock.push(openai_tool_call("s1", "skill", &[r#"{"name":"delegate"}"#]));
    mock.push(openai_tool_call("t1", "task", &[&task("after")]));
    mock.push_for("CHILD after", touch("after"));
    mock.push_for("CHILD after", openai_text(&["child done"], "stop"));
    mock.push(openai_text(&["done"], "stop"));
    agent.prompt(&session, "go").await;
    assert!(env.project.join("before").exists());
    assert!(
        !env.project.join("after").exists(),
        "the skill's list did not bound the child"
    );
}
