//! `tandem trust`: the person's answer about a folder, given at a terminal: trust it as it is
//! now (what it brings is printed first), show where it stands, forget the answer, or list
//! every folder answered for.
#![allow(clippy::print_stdout)] // The listing is the command's output.

use std::path::PathBuf;

use super::{answers, assess, record};

#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    /// The folder (default: the current directory).
    pub dir: Option<PathBuf>,
    /// Only say what the folder brings and whether it is trusted.
    #[arg(long, conflicts_with_all = ["revoke", "list"])]
    pub show: bool,
    /// Forget the answer about the folder: it is asked about again.
    #[arg(long, conflicts_with = "list")]
    pub revoke: bool,
    /// Every folder with an answer.
    #[arg(long)]
    pub list: bool,
}

pub fn run(args: TrustArgs) -> anyhow::Result<()> {
    if args.list {
        for (folder, answer) in answers::all() {
            let what = if answer.trusted { "trusted" } else { "refused" };
            println!("{what}  {folder}");
        }
        return Ok(());
    }
    let dir = match args.dir {
        Some(dir) => dir,
        None => std::env::current_dir()?,
    };
    let assessment = assess(&dir);
    if args.revoke {
        let had = answers::forget(&assessment.folder)?;
        println!(
            "{} {}",
            if had {
                "Forgot the answer about"
            } else {
                "No answer kept about"
            },
            assessment.folder.display()
        );
        return Ok(());
    }
    let lines = assessment.inventory.lines();
    if lines.is_empty() {
        println!(
            "{} brings nothing that needs trust: its files start no programs and widen nothing.",
            assessment.folder.display()
        );
        return Ok(());
    }
    println!("{} brings:", assessment.folder.display());
    for line in &lines {
        println!("  {line}");
    }
    if args.show {
        let standing = match assessment.answer {
            Some(true) => "trusted as it is",
            Some(false) => "refused",
            None => "not trusted (not answered for as it is now)",
        };
        println!("It is {standing}.");
        return Ok(());
    }
    record(&assessment, true, true);
    println!(
        "Trusted as it is now. A change to any of this asks again; `tandem trust --revoke` forgets it."
    );
    Ok(())
}
