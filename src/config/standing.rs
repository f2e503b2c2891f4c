//! Whether a folder's own files apply whole (the person trusted the folder) or only where
//! they narrow, and which programs inside the folder the person trusted, by content.

use std::path::{Path, PathBuf};

/// A folder's standing with the person, as a session's config was loaded under it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Standing {
    /// The folder's config applies only where it narrows; none of its programs run.
    #[default]
    Untrusted,
    /// The person trusted the folder as it was: its config applies whole, and these programs
    /// found in it (path, SHA-256 of the content trusted) may be started.
    Trusted { programs: Vec<(PathBuf, String)> },
}

impl Standing {
    /// Trusted with no programs: what a report (`config check`) or a test reads to see all a
    /// folder's files bring; nothing it lists is started under it.
    pub const LISTING: Standing = Standing::Trusted {
        programs: Vec::new(),
    };

    pub fn is_trusted(&self) -> bool {
        matches!(self, Self::Trusted { .. })
    }

    /// Whether `path`, a program found inside the project, may be started: the person trusted
    /// the folder with this very file, unchanged since.
    pub fn allows_program(&self, path: &Path) -> bool {
        let Self::Trusted { programs } = self else {
            return false;
        };
        let Some(real) = std::fs::canonicalize(path).ok() else {
            return false;
        };
        programs
            .iter()
            .any(|(trusted, digest)| *trusted == real && digest_of(&real).as_ref() == Some(digest))
    }
}

/// The SHA-256 of a file's content, in hex; None when it cannot be read.
pub fn digest_of(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    Some(hex(
        ring::digest::digest(&ring::digest::SHA256, &bytes).as_ref()
    ))
}

/// Bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trusted_program_stops_being_trusted_when_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("tool");
        std::fs::write(&program, "#!/bin/sh\necho one\n").unwrap();
        let real = std::fs::canonicalize(&program).unwrap();
        let standing = Standing::Trusted {
            programs: vec![(real.clone(), digest_of(&real).unwrap())],
        };
        assert!(standing.allows_program(&program));
        assert!(!Standing::Untrusted.allows_program(&program));
        std::fs::write(&program, "#!/bin/sh\necho two\n").unwrap();
        assert!(!standing.allows_program(&program));
    }
}
