//! Packing the store, with libgit2's pack builder (deltas and zlib) and indexer: each
//! batch of commits as a small pack (`write_synced`), the small packs merged into one
//! once they are many (`merge_small`, by git's geometric rule), and a full pack of
//! everything the history reaches (`pack_all`), after which the loose objects, the
//! older packs and what a prune left unreachable go. A pack is synced before anything it replaces is removed:
//! a crash leaves every object readable.

use std::io::Write;
use std::path::{Path, PathBuf};

use git2::{Odb, Oid, Repository};

use super::error::{HResult, err, io_err};
use super::repo::{sync_store, tip};

/// How many small packs (every pack but the largest) are merged into one.
pub(super) const MERGE_PAST: usize = 16;
/// The most bytes of packs one merge takes (`geometric`).
const MERGE_MOST: u64 = 32 << 20;
/// How many bytes of a pack in the making go to the indexer at once (`write_synced`).
const STREAM_CHUNK: usize = 1 << 20;

fn pack_dir(store: &Path) -> PathBuf {
    store.join("objects").join("pack")
}

/// The store's packs, with their size, smallest first.
fn packs(dir: &Path) -> Vec<(u64, String)> {
    let Ok(files) = std::fs::read_dir(pack_dir(dir)) else {
        return Vec::new();
    };
    let mut packs: Vec<(u64, String)> = files
        .flatten()
        .filter_map(|file| {
            let name = file.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".idx")?.to_string();
            let size = std::fs::metadata(pack_dir(dir).join(format!("{stem}.pack")))
                .map_or(0, |m| m.len());
            Some((size, stem))
        })
        .collect();
    packs.sort();
    packs
}

/// How many packs the store has besides its largest.
pub(super) fn small_packs(dir: &Path) -> usize {
    packs(dir).len().saturating_sub(1)
}

/// Writes the pack `builder` makes into the pack folder with its index, both synced
/// with their folder: a crash never leaves a torn pack whose index names the objects.
/// Its name (`pack-…`); `None` for a pack of no object (not written).
///
/// The pack goes to libgit2's indexer as it is made, `STREAM_CHUNK` bytes at a time:
/// held whole in memory (`write_buf`), a merge of 32 MiB of packs raised the server's
/// peak by as much. (The pack builder's own `write` appends object by object, which
/// costs a map of the pack each time.) With the small map windows the server sets
/// (`memory.rs`), the indexer stops where a zlib stream's first bytes end a window and
/// goes on only at the next append: empty appends at the end make it read every object.
fn write_synced(dir: &Path, builder: &mut git2::PackBuilder<'_>) -> HResult<Option<String>> {
    if builder.object_count() == 0 {
        return Ok(None);
    }
    let folder = pack_dir(dir);
    std::fs::create_dir_all(&folder).map_err(io_err("cannot write a pack"))?;
    let mut indexer =
        git2::Indexer::new(None, &folder, 0, false).map_err(err("cannot write a pack"))?;
    let read = std::rc::Rc::new(std::cell::Cell::new((0, 1)));
    let seen = read.clone();
    indexer.progress(move |p| {
        seen.set((p.received_objects(), p.total_objects()));
        true
    });
    {
        let mut out = std::io::BufWriter::with_capacity(STREAM_CHUNK, &mut indexer);
        let mut failed = None;
        let made = builder.foreach(|chunk| match out.write_all(chunk) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        });
        if let Some(e) = failed {
            return Err(io_err("cannot write a pack")(e));
        }
        made.map_err(err("cannot write a pack"))?;
        out.flush().map_err(io_err("cannot write a pack"))?;
    }
    loop {
        let (received, total) = read.get();
        if received >= total {
            break;
        }
        indexer.write(&[]).map_err(io_err("cannot write a pack"))?;
        if read.get().0 == received {
            // No further: the commit below says what is wrong.
            break;
        }
    }
    let name = indexer.commit().map_err(err("cannot write a pack"))?;
    for ext in ["pack", "idx"] {
        std::fs::File::open(folder.join(format!("pack-{name}.{ext}")))
            .and_then(|file| file.sync_all())
            .map_err(io_err("cannot sync a pack"))?;
    }
    std::fs::File::open(&folder)
        .and_then(|file| file.sync_all())
        .map_err(io_err("cannot sync a pack"))?;
    Ok(Some(format!("pack-{name}")))
}

/// Writes `objects` of `repo` as one pack, synced (`write_synced`); `what` names the
/// work in an error.
pub(super) fn write_objects(
    repo: &Repository,
    dir: &Path,
    objects: &[Oid],
    what: &'static str,
) -> HResult<Option<String>> {
    let mut builder = repo.packbuilder().map_err(err(what))?;
    // The server's requests keep the other core.
    builder.set_threads(1);
    for id in objects {
        builder.insert_object(*id, None).map_err(err(what))?;
    }
    write_synced(dir, &mut builder)
}

/// The settings of the committer's and the merges' handles, above the store's own
/// (`config`, which plain git reads too, is left as it is).
const BATCH_CONFIG: &str = "notes-batch.config";

/// The packs `repo` writes have no delta compression: the committer's batches (their new
/// notes are rarely versions of one another; the search for deltas was 57 % of its time
/// on a first start at 100k notes, 26 % under PUTs) and the merges of small packs (each
/// would search all its objects again: 42 % of a first start's CPU at 100k notes, as
/// libgit2 cannot reuse a delta already made). Only the full packs make deltas.
/// libgit2 reads the size past which an object gets no delta from `pack.deltaCacheSize`
/// (its own slip) where git names it `pack.bigFileThreshold`: both say 1 byte.
pub(super) fn without_deltas(repo: &Repository, dir: &Path) -> HResult<()> {
    let path = dir.join(BATCH_CONFIG);
    let text = "# The service's committer and merges only: packs without deltas.\n\
                [pack]\n\tdeltaCacheSize = 1\n\tbigFileThreshold = 1\n";
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
        std::fs::write(&path, text).map_err(io_err("cannot write the committer's settings"))?;
    }
    repo.config()
        .and_then(|mut config| config.add_file(&path, git2::ConfigLevel::App, true))
        .map_err(err("cannot read the committer's settings"))
}

/// The packs to merge, by git's geometric rule (`git repack --geometric=2`): the
/// smallest, as long as each is less than twice all the smaller ones together, so
/// the packs left grow by at least a factor of two each and a pack is merged again
/// only a few times.
///
/// A merge takes packs of `MERGE_MOST` bytes together at most: it holds the commit lock
/// while it reads and compresses them again (after a first start at 100k notes, the
/// rule alone picked every pack, 250 MB). Packs that large are left to the full pack.
fn geometric(packs: Vec<(u64, String)>) -> Vec<String> {
    let mut merged = Vec::new();
    let mut together = 0u64;
    for (size, name) in packs {
        if !merged.is_empty()
            && (size >= together.saturating_mul(2) || together + size > MERGE_MOST)
        {
            break;
        }
        together += size;
        merged.push(name);
    }
    merged
}

/// Merges the small packs into one (`geometric`; the commit lock held): their objects
/// listed through an object database of those packs alone (linked into a folder of
/// their own), packed anew without deltas (`without_deltas`), synced, then removed.
/// Whether packs were merged.
pub(super) fn merge_small(dir: &Path) -> HResult<bool> {
    let small = geometric(packs(dir));
    if small.len() < 2 {
        return Ok(false);
    }
    let repo = Repository::open_bare(dir).map_err(err("cannot open the store"))?;
    without_deltas(&repo, dir)?;
    let aside = dir.join("objects").join("merging");
    let _ = std::fs::remove_dir_all(&aside);
    let aside_packs = aside.join("pack");
    std::fs::create_dir_all(&aside_packs).map_err(io_err("cannot merge the packs"))?;
    for name in &small {
        for ext in ["pack", "idx"] {
            let file = format!("{name}.{ext}");
            std::fs::hard_link(pack_dir(dir).join(&file), aside_packs.join(&file))
                .or_else(|_| {
                    std::fs::copy(pack_dir(dir).join(&file), aside_packs.join(&file)).map(drop)
                })
                .map_err(io_err("cannot merge the packs"))?;
        }
    }
    let mut ids = Vec::new();
    let listed = Odb::new().and_then(|odb| {
        odb.add_disk_alternate(&aside.to_string_lossy())?;
        odb.foreach(|id| {
            ids.push(*id);
            true
        })
    });
    let _ = std::fs::remove_dir_all(&aside);
    listed.map_err(err("cannot list the packs' objects"))?;
    let merged = write_objects(&repo, dir, &ids, "cannot merge the packs")?;
    remove_packs(dir, |name| {
        small.iter().any(|s| s == name) && merged.as_deref() != Some(name)
    });
    Ok(true)
}

/// Packs the store: one pack of everything the history reaches, then the loose
/// objects and every other pack removed (the commit lock held throughout: the changes
/// are logged meanwhile, committed after); whether there was a history.
pub(super) fn pack_all(dir: &Path) -> HResult<bool> {
    let repo = Repository::open_bare(dir).map_err(err("cannot open the store"))?;
    let Some(tip) = tip(&repo, dir)? else {
        return Ok(false);
    };
    let name = write_pack(&repo, tip)?;
    sync_store(dir)?;
    remove_loose(dir);
    remove_packs(dir, |other| other != name);
    Ok(true)
}

/// Writes one pack of the objects `tip` reaches in the pack folder; its name.
fn write_pack(repo: &Repository, tip: Oid) -> HResult<String> {
    let mut builder = repo.packbuilder().map_err(err("cannot pack the store"))?;
    // The server's requests keep the other core.
    builder.set_threads(1);
    let mut walk = repo.revwalk().map_err(err("cannot walk the history"))?;
    walk.push(tip).map_err(err("cannot walk the history"))?;
    // What a sync fetched and made (`ops/sync`) is kept too.
    walk.push_glob("refs/sync/*")
        .map_err(err("cannot walk the history"))?;
    builder
        .insert_walk(&mut walk)
        .map_err(err("cannot pack the store"))?;
    for id in super::files::pending_blobs(repo.path(), repo, tip)? {
        builder
            .insert_object(id, None)
            .map_err(err("cannot pack the store"))?;
    }
    let dir = pack_dir(repo.path());
    std::fs::create_dir_all(&dir).map_err(io_err("cannot pack the store"))?;
    builder
        .write(&dir, 0)
        .map_err(err("cannot write the pack"))?;
    let name = builder
        .name()
        .ok()
        .flatten()
        .map(|name| format!("pack-{name}"));
    name.ok_or_else(|| err("cannot name the pack")(git2::Error::from_str("no name")))
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

/// Removes the packs whose name `gone` picks (each pack's `.idx`, `.pack` and any
/// other file of the same name), the indexes first: a reader listing the folder
/// meanwhile never finds an index whose pack is gone.
fn remove_packs(dir: &Path, gone: impl Fn(&str) -> bool) {
    let Ok(files) = std::fs::read_dir(pack_dir(dir)) else {
        return;
    };
    let mut old: Vec<PathBuf> = files
        .flatten()
        .filter(|file| {
            let name = file.file_name();
            let name = name.to_string_lossy();
            let stem = name.split('.').next().unwrap_or("");
            stem.starts_with("pack-") && gone(stem)
        })
        .map(|file| file.path())
        .collect();
    old.sort_by_key(|path| path.extension().is_none_or(|ext| ext != "idx"));
    for path in old {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use git2::Repository;

    use super::{MERGE_MOST, geometric, write_synced};

    /// Set in the process the test below starts for itself.
    const ALONE: &str = "NOTES_TEST_PACK_ALONE";
    const NAME: &str = "ops::history::pack::tests::a_pack_across_small_map_windows_is_written";

    /// Words in an order drawn from `seed` (xorshift), `len` bytes or a few more.
    fn words(seed: &mut u64, len: usize) -> Vec<u8> {
        const WORDS: [&str; 19] = [
            "alpha", "beta", "gamma", "delta", "notes", "sync", "merge", "pack", "window", "zlib",
            "Tokyo", "Paris", "a", "the", "of", "42", "quick", "brown", "fox",
        ];
        let mut out = Vec::new();
        while out.len() < len {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            out.extend_from_slice(WORDS[(*seed % WORDS.len() as u64) as usize].as_bytes());
            out.push(if (*seed).is_multiple_of(7) {
                b'\n'
            } else {
                b' '
            });
        }
        out
    }

    #[test]
    fn a_merge_takes_the_smallest_packs_up_to_its_size_limit() {
        let packs = |sizes: &[u64]| -> Vec<(u64, String)> {
            sizes.iter().map(|&n| (n, format!("p{n}"))).collect()
        };
        let mib = 1 << 20;
        // By the geometric rule: a pack joins while under twice the smaller ones.
        assert_eq!(geometric(packs(&[1, 1, 3, 100])), ["p1", "p1", "p3"]);
        // Packs of one size would all be merged, up to the limit.
        let even = vec![4 * mib; 66];
        assert_eq!(geometric(packs(&even)).len(), 8);
        // A pack at the limit is merged no more.
        assert!(geometric(packs(&[MERGE_MOST, MERGE_MOST])).len() < 2);
    }

    /// With the server's 1 MiB map windows, this 1.5 MiB pack has a zlib stream
    /// starting just before the end of a window: written whole through one indexer
    /// append, it failed with "unexpected data at the end of the pack".
    #[test]
    fn a_pack_across_small_map_windows_is_written() {
        if std::env::var_os(ALONE).is_none() {
            // The map windows are libgit2's global options: set in a process running
            // this test alone.
            let out = Command::new(std::env::current_exe().unwrap())
                .args([NAME, "--exact", "--test-threads=1"])
                .env(ALONE, "1")
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{stdout}");
            assert!(stdout.contains("1 passed"), "{stdout}");
            return;
        }
        crate::memory::limit_git_mapping();
        let tmp = tempfile::tempdir().unwrap();
        let repo = Repository::init_bare(tmp.path().join("from")).unwrap();
        let mut builder = repo.packbuilder().unwrap();
        builder.set_threads(1);
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64 ^ 1;
        let mut ids = Vec::new();
        for i in 0..3000 {
            let id = repo.blob(&words(&mut seed, 200 + i * 37 % 3000)).unwrap();
            builder.insert_object(id, None).unwrap();
            ids.push(id);
        }
        let into = tmp.path().join("into");
        Repository::init_bare(&into).unwrap();
        let name = write_synced(&into, &mut builder).unwrap().unwrap();
        assert!(into.join(format!("objects/pack/{name}.idx")).exists());
        let read = Repository::open_bare(&into).unwrap();
        for id in ids {
            read.find_blob(id).unwrap();
        }
    }
}
