//! Agent Skills: folders with a `SKILL.md` (YAML frontmatter `name` and `description`, then
//! instructions) found where people keep them, for this project (walking up to its git root)
//! and the person; the first of a name wins, and broken ones are reported, never fatal.

use std::path::{Path, PathBuf};

use serde::Deserialize;

mod tool;
pub use tool::SkillTool;

/// The longest name and description the format allows.
const MAX_NAME: usize = 64;
const MAX_DESCRIPTION: usize = 1024;
/// The most bundled files listed when a skill is loaded.
const MAX_FILES: usize = 50;

/// The project's skill folders, in order of precedence, under each folder from the project up.
const PROJECT_DIRS: [&str; 4] = [
    ".tandem/skills",
    ".agents/skills",
    ".claude/skills",
    ".opencode/skills",
];

/// One skill, as its frontmatter describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    /// Its folder (the base of the paths its instructions name).
    pub dir: PathBuf,
    /// The tools it asks to be limited to, if any (a narrowing, never a widening).
    pub allowed_tools: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct Frontmatter {
    name: Option<String>,
    description: Option<String>,
    #[serde(default)]
    allowed_tools: Option<AllowedTools>,
}

/// `allowed-tools: Read, Grep` or a list.
#[derive(Deserialize)]
#[serde(untagged)]
enum AllowedTools {
    Line(String),
    List(Vec<String>),
}

/// The skills of one project, and what was wrong with the folders skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Skills {
    pub skills: Vec<Skill>,
    pub problems: Vec<String>,
}

impl Skills {
    /// Each skill's name and description, in order of precedence.
    pub fn named(&self) -> impl Iterator<Item = (&str, &str)> {
        self.skills
            .iter()
            .map(|s| (s.name.as_str(), s.description.as_str()))
    }

    /// The skills for a session in `cwd`: the project's (nearest folder first), those of the
    /// workspace's other `roots`, then the person's (`~/.config/tandem/skills`,
    /// `~/.agents/skills`, `~/.claude/skills`).
    pub fn load(cwd: &Path, roots: &[PathBuf]) -> Self {
        let mut found = Self::default();
        for dir in search_dirs(cwd, roots) {
            found.add_dir(&dir);
        }
        found
    }

    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }

    fn add_dir(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut folders: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        folders.sort();
        for folder in folders {
            let file = folder.join("SKILL.md");
            if !file.is_file() {
                continue;
            }
            match read(&folder, &file) {
                Ok(skill) => match self.get(&skill.name) {
                    Some(first) => self.problems.push(format!(
                        "skill {}: a skill named `{}` was found first at {}; this one is skipped",
                        file.display(),
                        skill.name,
                        first.dir.display()
                    )),
                    None => self.skills.push(skill),
                },
                Err(why) => self
                    .problems
                    .push(format!("skill {}: {why}; it is skipped", file.display())),
            }
        }
    }
}

/// What the skill folders hold now, cheaply (each folder's and each `SKILL.md`'s time and
/// size): when it changes, the skills are read again.
pub fn stamp(cwd: &Path, roots: &[PathBuf]) -> Vec<(PathBuf, Option<std::time::SystemTime>, u64)> {
    let mark = |path: PathBuf| {
        let meta = std::fs::metadata(&path).ok();
        let modified = meta.as_ref().and_then(|m| m.modified().ok());
        (path, modified, meta.map_or(0, |m| m.len()))
    };
    let mut stamp = Vec::new();
    for dir in search_dirs(cwd, roots) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        stamp.push(mark(dir));
        for entry in entries.flatten() {
            stamp.push(mark(entry.path().join("SKILL.md")));
        }
    }
    stamp.sort_by(|a, b| a.0.cmp(&b.0));
    stamp
}

/// `Read, Grep` or `Read Bash(git status:*)`: entries split on commas and spaces outside
/// parentheses.
fn tool_list(line: &str) -> Vec<String> {
    let (mut tools, mut current, mut depth) = (Vec::new(), String::new(), 0usize);
    for c in line.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' | ' ' if depth == 0 => {
                if !current.is_empty() {
                    tools.push(std::mem::take(&mut current));
                }
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.is_empty() {
        tools.push(current);
    }
    tools
}

/// Where skills are looked for, in order of precedence.
fn search_dirs(cwd: &Path, roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for project in std::iter::once(cwd).chain(roots.iter().map(PathBuf::as_path)) {
        let top = git_root(project);
        for dir in project.ancestors() {
            dirs.extend(PROJECT_DIRS.iter().map(|d| dir.join(d)));
            if Some(dir) == top.as_deref() || top.is_none() {
                break;
            }
        }
    }
    dirs.extend(crate::paths::person_skill_dirs());
    // The person's Claude Code plugins bring theirs too, after the person's own.
    let folders: Vec<&Path> = std::iter::once(cwd)
        .chain(roots.iter().map(PathBuf::as_path))
        .collect();
    for plugin in crate::config::plugins::enabled(&folders) {
        dirs.extend(plugin.skill_dirs());
    }
    dirs
}

/// The folder holding `.git` at or above `cwd`, if any.
fn git_root(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_owned)
}

/// The skill in `folder`, from its `SKILL.md`; an error says what is wrong.
fn read(folder: &Path, file: &Path) -> Result<Skill, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot be read: {e}"))?;
    if !text.trim_start_matches('\u{feff}').starts_with("---") {
        return Err("it has no frontmatter (`---`, then `name:` and `description:`)".into());
    }
    let (value, _) = crate::config::markdown::split(&text).map_err(|(_, why)| why)?;
    let front: Frontmatter = crate::config::markdown::typed(value)
        .map_err(|(field, why)| format!("field `{field}`: {why}"))?;
    let name = front
        .name
        .filter(|n| !n.trim().is_empty())
        .ok_or("its frontmatter has no `name`")?;
    let description = front
        .description
        .filter(|d| !d.trim().is_empty())
        .ok_or("its frontmatter has no `description`")?;
    let folder_name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name != folder_name {
        return Err(format!(
            "its name `{name}` does not match its folder `{folder_name}`"
        ));
    }
    let well_formed = name.len() <= MAX_NAME
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    if !well_formed {
        return Err(format!(
            "its name `{name}` must be lowercase letters, digits and hyphens (at most {MAX_NAME})"
        ));
    }
    let allowed_tools = front.allowed_tools.map(|tools| match tools {
        AllowedTools::Line(line) => tool_list(&line),
        AllowedTools::List(list) => list,
    });
    Ok(Skill {
        name,
        description: description
            .chars()
            .take(MAX_DESCRIPTION)
            .collect::<String>()
            .trim()
            .to_owned(),
        dir: folder.to_owned(),
        allowed_tools,
    })
}

impl Skill {
    /// Its instructions (the body of `SKILL.md`, read now) and the files beside them.
    pub fn content(&self) -> Result<(String, Vec<PathBuf>), String> {
        let text = std::fs::read_to_string(self.dir.join("SKILL.md"))
            .map_err(|e| format!("the skill `{}` cannot be read: {e}", self.name))?;
        let body = crate::config::markdown::split(&text)
            .map(|(_, body)| body.trim().to_owned())
            .map_err(|(_, why)| why)?;
        let mut files = Vec::new();
        let walk = ignore::WalkBuilder::new(&self.dir).hidden(false).build();
        for entry in walk.flatten() {
            let path = entry.into_path();
            if path.is_file() && path != self.dir.join("SKILL.md") {
                files.push(path);
            }
            if files.len() == MAX_FILES {
                break;
            }
        }
        files.sort();
        Ok((body, files))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(dir: &Path, folder: &str, text: &str) {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
        std::fs::write(dir.join(folder).join("SKILL.md"), text).unwrap();
    }

    #[test]
    fn tool_lists_split_outside_parentheses() {
        assert_eq!(
            tool_list("Read, Bash(git status:*) Grep"),
            ["Read", "Bash(git status:*)", "Grep"]
        );
    }

    #[test]
    fn valid_skills_load_and_broken_ones_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let skills_dir = dir.path().join("skills");
        skill(
            &skills_dir,
            "pdf",
            "---\nname: pdf\ndescription: Fill PDF forms\nallowed-tools: Read, Bash\n---\nUse pypdf.\n",
        );
        skill(&skills_dir, "bare", "Just text.\n");
        skill(
            &skills_dir,
            "other",
            "---\nname: wrong\ndescription: x\n---\n",
        );
        skill(&skills_dir, "nodesc", "---\nname: nodesc\n---\n");
        let mut found = Skills::default();
        found.add_dir(&skills_dir);
        found.add_dir(&skills_dir);
        assert_eq!(found.skills.len(), 1);
        let pdf = &found.skills[0];
        assert_eq!(
            (pdf.name.as_str(), pdf.description.as_str()),
            ("pdf", "Fill PDF forms")
        );
        assert_eq!(
            pdf.allowed_tools,
            Some(vec!["Read".to_owned(), "Bash".to_owned()])
        );
        let problems = found.problems.join("\n");
        assert!(
            problems.contains("bare/SKILL.md: it has no frontmatter"),
            "{problems}"
        );
        assert!(
            problems.contains("its name `wrong` does not match its folder `other`"),
            "{problems}"
        );
        assert!(
            problems.contains("nodesc/SKILL.md: its frontmatter has no `description`"),
            "{problems}"
        );
        assert!(
            problems.contains("a skill named `pdf` was found first"),
            "{problems}"
        );
        let (body, files) = pdf.content().unwrap();
        assert_eq!(body, "Use pypdf.");
        assert!(files.is_empty());
    }
}
