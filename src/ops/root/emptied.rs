//! Folders a delete or a move emptied go, with the parents that this leaves empty, up to
//! the notes dir: one `rmdir` beneath the notes dir each, which the system refuses for a
//! folder that holds anything (a hidden file, a note another writer just made), so only
//! an empty folder ever goes. A writer whose folder goes under it makes it again
//! (`Notebook::store_gated`, `RootDir::rename_note`).

use super::RootDir;
use crate::ops::path::INTERNAL_DIR;

impl RootDir {
    /// Removes the folder `rel` (the folder of a note or file just deleted or moved
    /// away, relative to the notes dir) when it is empty, then each parent while it is;
    /// stops at the first that is not, or cannot go. Never the notes dir, never
    /// `.notes/`. Best effort: the delete or move is done whatever happens here, and
    /// no folder is synced (one a crash brings back is only empty).
    pub(crate) fn remove_emptied(&self, rel: &str) {
        let mut names: Vec<&str> = rel
            .split('/')
            .filter(|n| !n.is_empty() && *n != ".")
            .collect();
        if names.first() == Some(&INTERNAL_DIR) || names.contains(&"..") {
            return;
        }
        let Ok(root) = self.handle() else {
            return;
        };
        while !names.is_empty() {
            // A symlink as the last name is no folder (`ENOTDIR`): it stays, and so
            // does everything above it.
            let folder = names.join("/");
            if root
                .beneath(&folder, |dir, rel| dir.remove_dir(rel))
                .is_err()
            {
                return;
            }
            names.pop();
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn only_empty_folders_go_up_to_the_first_that_holds_anything() {
        let root = tempfile::tempdir().unwrap();
        let at = |p: &str| root.path().join(p);
        for folder in ["a/b/c", "h/i", ".notes/x", "in/sub", "keep/empty"] {
            std::fs::create_dir_all(at(folder)).unwrap();
        }
        std::fs::write(at("h/.DS_Store"), "").unwrap();
        std::os::unix::fs::symlink("in", at("alias")).unwrap();
        let dir = RootDir::new(root.path().to_path_buf());
        dir.remove_emptied("a/b/c");
        assert!(!at("a").exists());
        dir.remove_emptied("h/i");
        assert!(!at("h/i").exists() && at("h/.DS_Store").is_file());
        dir.remove_emptied(".notes/x");
        assert!(at(".notes/x").is_dir());
        // Through a symlink: the folder it leads to goes, the symlink stays.
        dir.remove_emptied("alias/sub");
        assert!(!at("in/sub").exists() && at("alias").is_symlink() && at("in").is_dir());
        dir.remove_emptied("keep");
        assert!(at("keep/empty").is_dir());
        dir.remove_emptied("");
        dir.remove_emptied("../x");
        assert!(root.path().is_dir());
    }
}
