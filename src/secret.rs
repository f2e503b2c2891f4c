//! Files only the user may read: written whole (mode 0600 from creation, renamed into place, so
//! a crash leaves the old content or the new), and secrets Tandem makes for itself in them.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// A temp file beside `path`, mode 0600, holding `bytes`, synced.
fn staged(path: &Path, bytes: &[u8]) -> anyhow::Result<PathBuf> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temp = dir.join(format!(".{name}.{}", std::process::id()));
    let _ = std::fs::remove_file(&temp);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(&temp)
        .with_context(|| format!("cannot write {}", temp.display()))?;
    file.write_all(bytes)?;
    file.sync_all()?;
    Ok(temp)
}

/// Replaces `path` with `bytes`, readable by the user alone.
pub fn write_private(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let temp = staged(path, bytes)?;
    std::fs::rename(&temp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// The secret kept in `path` (64 hex characters), made from 32 random bytes on first use. Two
/// processes making it at once agree: the first to link its file in wins, the other reads it.
pub fn kept(path: &Path) -> anyhow::Result<String> {
    let read = || {
        std::fs::read_to_string(path)
            .ok()
            .map(|t| t.trim().to_owned())
            .filter(|t| t.len() >= 32)
    };
    if let Some(secret) = read() {
        return Ok(secret);
    }
    let mut bytes = [0u8; 32];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
        .map_err(|_| anyhow::anyhow!("cannot get random bytes for {}", path.display()))?;
    let secret: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let temp = staged(path, format!("{secret}\n").as_bytes())?;
    let linked = std::fs::hard_link(&temp, path);
    let _ = std::fs::remove_file(&temp);
    match linked {
        Ok(()) => Ok(secret),
        Err(_) => read().with_context(|| format!("cannot keep a secret in {}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_made_once_and_kept_readable_by_the_user_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("d/secret");
        let first = kept(&file).unwrap();
        assert_eq!(first.len(), 64);
        assert_eq!(kept(&file).unwrap(), first);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        write_private(&file, b"replaced").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"replaced");
    }
}
