//! Removing the folders a move or a delete emptied: the folder that held the note, then
//! each parent it leaves empty, up to (never including) the notes dir. A folder that
//! holds anything, a hidden file included, stays: the removal is one `rmdir`, which
//! the kernel refuses on a folder that is not empty, so nothing is checked and then
//! acted on.

use super::RootDir;

impl RootDir {
    /// Removes folder `rel` (a note's parent; `.` is the notes dir) when it is empty,
    /// then its parents as long as each is left empty. Best effort: the note's change
    /// is done already, and a folder left is only a folder.
    pub(crate) fn remove_emptied_folders(&self, rel: &str) {
        let mut rel = rel;
        // One step per name of the path: bounded by its depth.
        for _ in 0..=rel.matches('/').count() {
            let (parent, name) = rel.rsplit_once('/').unwrap_or((".", rel));
            // The notes dir itself, and the service's own folders, never go.
            if name.is_empty() || name == "." || name.starts_with('.') {
                return;
            }
            if !self.remove_empty_folder(parent, name) {
                return;
            }
            rel = parent;
        }
    }

    /// Removes folder `name` of folder `parent` when it is empty; whether it did.
    #[cfg(target_os = "linux")]
    fn remove_empty_folder(&self, parent: &str, name: &str) -> bool {
        use rustix::fs::{AtFlags, OFlags};
        let Ok(dir) = self.open_beneath(parent, OFlags::RDONLY | OFlags::DIRECTORY, false) else {
            return false;
        };
        // ENOTEMPTY (or EEXIST) when it holds anything, ENOTDIR for a symlink: it stays.
        if rustix::fs::unlinkat(&dir, name, AtFlags::REMOVEDIR).is_err() {
            return false;
        }
        let _ = rustix::fs::fsync(&dir);
        true
    }

    /// Removes folder `name` of folder `parent` when it is empty; whether it did.
    #[cfg(not(target_os = "linux"))]
    fn remove_empty_folder(&self, parent: &str, name: &str) -> bool {
        let rel = if parent == "." {
            name.to_string()
        } else {
            format!("{parent}/{name}")
        };
        let Ok(full) = super::resolve_rel(self.path(), &rel) else {
            return false;
        };
        // `remove_dir` refuses a folder that is not empty, and a symlink.
        std::fs::remove_dir(full).is_ok()
    }
}
