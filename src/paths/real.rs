//! Where a path really leads: every symlink on it followed one component at a time (dangling
//! ones and the last one too, a bounded number of hops) and `..` applied to what is really
//! there, as the kernel does. Reads links; creates nothing.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

/// How many symlinks one resolution follows before giving up (the kernel's own limit).
const MAX_LINKS: usize = 40;
enum Step {
    Root,
    Parent,
    Name(OsString),
}

fn steps(path: &Path) -> impl Iterator<Item = Step> + '_ {
    path.components().filter_map(|component| match component {
        Component::RootDir | Component::Prefix(_) => Some(Step::Root),
        Component::CurDir => None,
        Component::ParentDir => Some(Step::Parent),
        Component::Normal(name) => Some(Step::Name(name.to_owned())),
    })
}

/// The absolute `path` with every symlink on it resolved, the last one included, even when
/// its target does not exist; a part that does not exist yet is kept as written. `..` goes up
/// from where the path really is, as the kernel does. Fails on a symlink loop.
pub fn real_path(path: &Path) -> io::Result<PathBuf> {
    let mut queue: VecDeque<Step> = steps(path).collect();
    let mut real = PathBuf::from("/");
    let mut links = 0;
    while let Some(step) = queue.pop_front() {
        match step {
            Step::Root => real = PathBuf::from("/"),
            Step::Parent => {
                real.pop();
            }
            Step::Name(name) => {
                let next = real.join(&name);
                match std::fs::symlink_metadata(&next) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        links += 1;
                        if links > MAX_LINKS {
                            return Err(io::Error::other(format!(
                                "{}: too many levels of symbolic links",
                                path.display()
                            )));
                        }
                        let target = std::fs::read_link(&next)?;
                        for step in steps(&target).collect::<Vec<_>>().into_iter().rev() {
                            queue.push_front(step);
                        }
                    }
                    _ => real = next,
                }
            }
        }
    }
    Ok(real)
}
