//! Durable file writes: a hidden temp file in the same folder, fsync, rename, then an
//! fsync of the folder, so a reader never sees a torn file and a crash never leaves one.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// Prefix of the temp files; hidden, so listings skip them.
pub const TEMP_PREFIX: &str = ".tmp-";

/// Replaces `path` with `bytes` atomically and durably. The file keeps the permissions
/// of the one it replaces; a new file gets the usual `0644`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no parent"))?;
    let mut temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    let permissions = match fs::metadata(path) {
        Ok(meta) => meta.permissions(),
        Err(_) => default_permissions(),
    };
    temp.as_file().set_permissions(permissions)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)
}

/// Removes `path` and makes the removal durable.
pub fn remove_durable(path: &Path) -> io::Result<()> {
    fs::remove_file(path)?;
    match path.parent() {
        Some(dir) => sync_dir(dir),
        None => Ok(()),
    }
}

/// Flushes a folder's entries (a rename or removal inside it) to disk.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    fs::File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(unix)]
fn default_permissions() -> fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    fs::Permissions::from_mode(0o644)
}

#[cfg(not(unix))]
fn default_permissions() -> fs::Permissions {
    fs::metadata(".")
        .map(|m| m.permissions())
        .unwrap_or_else(|_| unreachable!())
}

/// Deletes temp files a crash left behind under `root` (hidden folders included, so the
/// public record's folder is cleaned too). Returns how many were removed.
pub fn clean_temp_files(root: &Path) -> usize {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| e.file_name().to_string_lossy().starts_with(TEMP_PREFIX))
        .filter(|e| fs::remove_file(e.path()).is_ok())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_and_leave_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("n.md");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        fs::write(dir.path().join(".tmp-abc"), "torn").unwrap();
        assert_eq!(clean_temp_files(dir.path()), 1);
        assert!(p.exists());
    }
}
