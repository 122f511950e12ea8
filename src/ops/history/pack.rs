//! Packing the store: every object the history reaches goes into one pack (libgit2's
//! pack builder, deltas and zlib), then the loose objects and the older packs go, and
//! with them what a prune left unreachable. The pack is built without the store's
//! lock, from the ref as it was; only the removals (and a small pack of the commits
//! made meanwhile) hold it, so a write waits a moment, not a whole pack. A pack is
//! synced before anything it replaces is removed: a crash leaves every object readable.

use std::path::{Path, PathBuf};

use git2::{Oid, Repository};

use super::store::{Store, StoreResult, err, io_err};

impl Store {
    /// Merges the store's small packs when they are too many (`packfile::merge`), and
    /// reads the pack folder anew; how many packs were merged.
    pub(crate) fn merge_packs(&self) -> StoreResult<usize> {
        let _turn = self.turn()?;
        let merged = super::packfile::merge(&self.dir)?;
        if merged > 0 {
            self.lock().reopen(&self.dir)?;
        }
        Ok(merged)
    }

    /// Reads the pack folder anew (see `Inner::reopen`), after another handle packed.
    pub(crate) fn reopen(&self) -> StoreResult<()> {
        let _turn = self.turn()?;
        self.lock().reopen(&self.dir)
    }

    /// Packs the store; whether there was a history to pack.
    pub(super) fn pack(&self) -> StoreResult<bool> {
        // Settled first: the pack is built from the disk, by a handle of its own.
        let snapshot = {
            let _turn = self.turn()?;
            let mut inner = self.lock();
            inner.settle(&self.dir)?;
            inner.tip()?
        };
        let Some(snapshot) = snapshot else {
            return Ok(false);
        };
        // A handle of its own: the lookups of this store go on meanwhile.
        let repo = Repository::open_bare(&self.dir).map_err(err("cannot open the store"))?;
        let mut names = vec![write_pack(&repo, snapshot, None)?];
        sync(&self.dir)?;

        let _turn = self.turn()?;
        let mut inner = self.lock();
        inner.settle(&self.dir)?;
        let tip = inner.tip()?;
        let moved_on = match tip {
            Some(tip) if tip == snapshot => false,
            Some(tip)
                if repo
                    .graph_descendant_of(tip, snapshot)
                    .map_err(err("cannot walk the history"))? =>
            {
                true
            }
            // Pruned meanwhile: this pack holds the old history; the next pack will do.
            _ => {
                remove_pack(&self.dir, &names[0]);
                return Ok(false);
            }
        };
        if let (true, Some(tip)) = (moved_on, tip) {
            names.push(write_pack(&repo, tip, Some(snapshot))?);
        }
        // Durable: the packs, and (with the log emptied) every loose object and ref.
        inner.checkpoint(&self.dir)?;
        // Every object the ref reaches is in the new packs, and no one writes while the
        // lock is held: every loose object and every other pack is redundant.
        remove_loose(&self.dir);
        remove_other_packs(&self.dir, &names);
        Ok(true)
    }
}

/// Writes one pack of the objects `tip` reaches (and `since` does not), in the store's
/// pack folder; the pack's name.
fn write_pack(repo: &Repository, tip: Oid, since: Option<Oid>) -> StoreResult<String> {
    let mut builder = repo.packbuilder().map_err(err("cannot pack the store"))?;
    // The server's requests keep the other core.
    builder.set_threads(1);
    let mut walk = repo.revwalk().map_err(err("cannot walk the history"))?;
    walk.push(tip).map_err(err("cannot walk the history"))?;
    if let Some(since) = since {
        walk.hide(since).map_err(err("cannot walk the history"))?;
    }
    builder
        .insert_walk(&mut walk)
        .map_err(err("cannot pack the store"))?;
    let dir = pack_dir(repo.path());
    std::fs::create_dir_all(&dir).map_err(io_err("cannot pack the store"))?;
    builder
        .write(&dir, 0)
        .map_err(err("cannot write the pack"))?;
    builder
        .name()
        .ok()
        .flatten()
        .map(|name| format!("pack-{name}"))
        .ok_or_else(|| "cannot name the pack".to_string())
}

fn pack_dir(store: &Path) -> PathBuf {
    store.join("objects").join("pack")
}

/// Syncs the whole store (the pack files and their folder).
fn sync(dir: &Path) -> StoreResult<()> {
    #[cfg(target_os = "linux")]
    {
        let store = std::fs::File::open(dir).map_err(io_err("cannot sync the store"))?;
        rustix::fs::syncfs(&store).map_err(|e| format!("cannot sync the store: {e}"))?;
    }
    #[cfg(not(target_os = "linux"))]
    for entry in walkdir::WalkDir::new(pack_dir(dir)) {
        let entry = entry.map_err(|e| format!("cannot sync the store: {e}"))?;
        std::fs::File::open(entry.path())
            .and_then(|f| f.sync_all())
            .map_err(io_err("cannot sync the store"))?;
    }
    Ok(())
}

/// Removes the loose objects (`objects/xx/...`) and their emptied folders; one that
/// cannot be removed stays (it is only redundant).
fn remove_loose(dir: &Path) {
    let Ok(folders) = std::fs::read_dir(dir.join("objects")) else {
        return;
    };
    for folder in folders.flatten() {
        let name = folder.file_name();
        let name = name.to_string_lossy();
        if name.len() != 2 || !name.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        if let Ok(files) = std::fs::read_dir(folder.path()) {
            for file in files.flatten() {
                let _ = std::fs::remove_file(file.path());
            }
        }
        let _ = std::fs::remove_dir(folder.path());
    }
}

/// Removes every pack whose name is not one of `keep` (each pack's `.pack`, `.idx` and
/// any other file of the same name).
fn remove_other_packs(dir: &Path, keep: &[String]) {
    let Ok(files) = std::fs::read_dir(pack_dir(dir)) else {
        return;
    };
    let mut old: Vec<PathBuf> = files
        .flatten()
        .filter(|file| {
            let name = file.file_name();
            let name = name.to_string_lossy();
            let stem = name.split('.').next().unwrap_or("");
            stem.starts_with("pack-") && !keep.iter().any(|k| k == stem)
        })
        .map(|file| file.path())
        .collect();
    // The indexes first: a reader listing the folder meanwhile never finds an index
    // whose pack is gone.
    old.sort_by_key(|path| path.extension().is_none_or(|ext| ext != "idx"));
    for path in old {
        let _ = std::fs::remove_file(path);
    }
}

fn remove_pack(dir: &Path, name: &str) {
    for ext in ["pack", "idx", "rev"] {
        let _ = std::fs::remove_file(pack_dir(dir).join(format!("{name}.{ext}")));
    }
}
