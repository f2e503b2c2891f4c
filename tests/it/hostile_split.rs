//! A fuzz-style check of the bash split: random compositions of allowed and forbidden
//! commands with the shell's operators, each judged under an allow list with `touch` denied.
//! Whenever the rules let a line through without asking, bash itself runs it, and no
//! forbidden command may have run (its marker must not exist).

use std::path::Path;

use tandem::permission::{self, Action, Rule, shell};

/// A small deterministic generator (64-bit LCG), so a failure replays.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % below
    }
}

const ALLOWED: &[&str] = &[
    "echo hi",
    "true",
    "ls -la",
    "echo \"a;b\"",
    "printf x",
    "echo $((1+2))",
    "sed -n 1p /dev/null",
    "echo one \\\n  two",
];
const FORBIDDEN: &[&str] = &[
    "touch M",
    "'touch' M",
    "\\touch M",
    "$'\\x74ouch' M",
    "/usr/bin/touch M",
    "command touch M",
    "env touch M",
    "eval 'touch M'",
    "bash -c 'touch M'",
    "x=touch; $x M",
    "t='a[$(touch M)]'; echo $((t))",
    "echo M | xargs touch",
    // Continuation lines and options as each program's parser reads them.
    "tou\\\nch M",
    "echo $\\\n(touch M)",
    "sed -ne '1e touch M' /dev/null",
    "sed --expr='1e touch M' /dev/null",
    "sed -nes/x/touch/e M",
    "printf -vBASH_ENV M",
];

/// Wraps or joins pieces the ways the shell allows.
fn compose(rng: &mut Lcg, depth: usize, forbidden: &mut bool) -> String {
    if depth == 0 || rng.next(3) == 0 {
        return if rng.next(4) == 0 {
            *forbidden = true;
            FORBIDDEN[rng.next(FORBIDDEN.len())].to_owned()
        } else {
            ALLOWED[rng.next(ALLOWED.len())].to_owned()
        };
    }
    let a = compose(rng, depth - 1, forbidden);
    let b = compose(rng, depth - 1, forbidden);
    match rng.next(27) {
        0 => format!("{a}; {b}"),
        1 => format!("{a} && {b}"),
        2 => format!("{a} || {b}"),
        3 => format!("{a} | {b}"),
        4 => format!("{a}\n{b}"),
        5 => format!("echo $({a}); {b}"),
        6 => format!("({a}) && {b}"),
        7 => format!("{{ {a}; }}; {b}"),
        8 => format!("if {a}; then {b}; fi"),
        9 => format!("! {a}; {b}"),
        10 => format!("for i in 1; do {a}; done; {b}"),
        11 => format!("echo `{a}`; {b}"),
        // Where the grammar and bash part ways: operands of `${…}`, here-documents,
        // here-strings, case words and for lists, ANSI-C quotes with escapes.
        12 => format!("echo ${{x:-$({a})}}; {b}"),
        13 => format!("echo \"${{x:=`{a}`}}\"; {b}"),
        14 => format!("echo ${{x#$({a})}} ${{y/$({b})/z}}"),
        15 => format!("echo ${{x:-${{y:-$({a})}}}}; {b}"),
        16 => format!("cat <<EOF\n  $({a})\nEOF\n{b}"),
        17 => format!("cat <<-EOF\n\t`{a}`\n\tEOF\n{b}"),
        18 => format!("cat <<< ${{x:-$({a})}}; {b}"),
        19 => format!("case ${{x:-$({a})}} in *) {b};; esac"),
        20 => format!("for i in ${{x:-`{a}`}}; do {b}; done"),
        21 => format!("echo $'\\\\' ; {a}; echo a$'\\''b'; {b}"),
        22 => format!("echo \"${{x:-'$({a})'}}\"; {b}"),
        23 => format!("echo ${{x:-<({a})}}; {b}"),
        // A backslash-newline, which bash removes before it reads anything.
        24 => format!("{a} \\\n&& {b}"),
        25 => format!("echo $\\\n({a}); {b}"),
        _ => format!("cat <<EOF\nEO\\\nF\n{a}\nEOF\n{b}"),
    }
}

#[test]
fn no_composition_lets_a_forbidden_command_through() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker");
    let mut rules = permission::defaults();
    rules.push(Rule::new("bash", "*", Action::Ask));
    for allowed in ["echo *", "true *", "ls *", "printf *", "sed *"] {
        rules.push(Rule::new("bash", allowed, Action::Allow));
    }
    rules.push(Rule::new("bash", "touch *", Action::Deny));
    let (mut allowed_lines, mut forbidden_lines) = (0, 0);
    for round in 0..2000u64 {
        let mut rng = Lcg(0x7a4d_e11e ^ round.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut forbidden = false;
        let line = compose(&mut rng, 3, &mut forbidden).replace('M', &marker.display().to_string());
        let analysis = shell::analyse(&line);
        let (action, _) =
            permission::judge("bash", &analysis.patterns(), analysis.sight(), &[&rules]);
        if forbidden {
            forbidden_lines += 1;
            assert_ne!(
                action,
                Action::Allow,
                "let through: {line:?} as {analysis:?}"
            );
        } else if action == Action::Allow {
            allowed_lines += 1;
            run(&line, dir.path());
            assert!(!marker.exists(), "ran a forbidden command: {line:?}");
        }
    }
    assert!(
        forbidden_lines > 500 && allowed_lines > 150,
        "{forbidden_lines} {allowed_lines}"
    );
}

fn run(line: &str, dir: &Path) {
    std::process::Command::new("bash")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
}
