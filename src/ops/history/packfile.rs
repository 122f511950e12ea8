//! A settle's pack, written by the store itself: the staged objects as they are, each
//! compressed on its own, with no delta search, and the pack's index made from what the
//! store already knows of each object (its id, where it starts, the CRC-32 of its
//! bytes). libgit2's pack builder searches deltas (more than a third of a first start's
//! CPU), and its indexer reads the whole pack back and hashes every object again (a
//! quarter of the history's CPU at a first start on 100k notes); a settle's pack is
//! short-lived either way: the background pack rewrites it with deltas.
//!
//! Git's formats, version 2 both: the pack is its header, each object's kind and size
//! then its zlib stream, the SHA-1 of all that; the index is the fan-out table of the
//! ids' first bytes, the ids sorted, the CRC-32 of each object's bytes, their offsets
//! (those past 2 GiB in a table of 8-byte offsets), the pack's SHA-1 and its own.
//! Both files are synced before they are named, the index last (libgit2 reads the
//! packs its indexes name), then their folder: a crash leaves no index naming objects
//! that are not on disk.
//!
//! Such packs pile up (one per settle: 391 after a first start on 100k notes, one per
//! write after that), and libgit2 pays for each: every object it writes that is new
//! (every tree of a change) reads the pack folder again and compares each file with
//! each pack it holds, and every lookup may search each pack's index. So past
//! `MERGE_PAST` packs, the small ones are merged (`merge`): their objects' bytes
//! copied as they are into one pack (no object inflated or compressed again), as git's
//! geometric repack does, so each merge costs what it merges, not the whole store.

use std::collections::HashSet;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use git2::{ObjectType, Oid};
use sha1::Digest;

use super::stage::kind_of;
use super::store::{StoreResult, io_err};
use super::wal;

/// An object with its id, as the store staged it.
pub(super) type Kept = (Oid, wal::Object);

/// Packs in the store's pack folder past which the small ones are merged.
pub(super) const MERGE_PAST: usize = 32;

/// Where one object is in the pack.
struct Entry {
    id: Oid,
    crc: u32,
    offset: u64,
}

/// Writes `objects` (an object staged twice once) as one pack and its index in the
/// store's pack folder.
pub(super) fn write(dir: &Path, objects: &[Kept]) -> StoreResult<()> {
    let mut seen = HashSet::with_capacity(objects.len());
    let objects: Vec<&Kept> = objects.iter().filter(|(id, _)| seen.insert(*id)).collect();
    if objects.is_empty() {
        return Ok(());
    }
    let (pack, mut entries) = pack(&objects)?;
    let folder = dir.join("objects").join("pack");
    std::fs::create_dir_all(&folder).map_err(io_err("cannot write a pack"))?;
    let sum = &pack[pack.len() - 20..];
    name_with_index(&folder, sum, &mut entries, |name| {
        write_synced(&folder, &format!("{name}.pack"), &pack)
    })
    .map(drop)
}

/// Names a pack by its SHA-1 (`pack-<sum>`), has `place` put the pack (synced) under
/// that name, then writes its index beside it and syncs their folder; the name.
fn name_with_index(
    folder: &Path,
    sum: &[u8],
    entries: &mut [Entry],
    place: impl FnOnce(&str) -> StoreResult<()>,
) -> StoreResult<String> {
    let name = Oid::from_bytes(sum).map_err(|e| format!("cannot name a pack: {}", e.message()))?;
    let name = format!("pack-{name}");
    place(&name)?;
    write_synced(folder, &format!("{name}.idx"), &index(entries, sum))?;
    std::fs::File::open(folder)
        .and_then(|file| file.sync_all())
        .map_err(io_err("cannot sync a pack"))?;
    Ok(name)
}

/// The pack of `objects`, and where each is in it.
fn pack(objects: &[&Kept]) -> StoreResult<(Vec<u8>, Vec<Entry>)> {
    let count = u32::try_from(objects.len()).map_err(|_| "too many objects".to_string())?;
    let mut pack = Vec::with_capacity(objects.iter().map(|(_, o)| o.bytes.len() / 2 + 8).sum());
    pack.extend_from_slice(b"PACK");
    pack.extend_from_slice(&2u32.to_be_bytes());
    pack.extend_from_slice(&count.to_be_bytes());
    let mut entries = Vec::with_capacity(objects.len());
    for (id, object) in objects {
        let start = pack.len();
        let kind: u8 = match kind_of(object.kind) {
            ObjectType::Commit => 1,
            ObjectType::Tree => 2,
            _ => 3,
        };
        // The kind in bits 4-6 of the first byte, the size 4 bits there, then 7 a byte.
        let mut size = object.bytes.len();
        let mut byte = (kind << 4) | (size & 0x0f) as u8;
        size >>= 4;
        while size > 0 {
            pack.push(byte | 0x80);
            byte = (size & 0x7f) as u8;
            size >>= 7;
        }
        pack.push(byte);
        let mut zlib = flate2::write::ZlibEncoder::new(&mut pack, flate2::Compression::fast());
        zlib.write_all(&object.bytes)
            .and_then(|()| zlib.finish().map(drop))
            .map_err(io_err("cannot pack the staged objects"))?;
        entries.push(Entry {
            id: *id,
            crc: crc32fast::hash(&pack[start..]),
            offset: start as u64,
        });
    }
    let sum = sha1::Sha1::digest(&pack);
    pack.extend_from_slice(&sum);
    Ok((pack, entries))
}

/// The index of a pack whose SHA-1 is `pack_sum`.
fn index(entries: &mut [Entry], pack_sum: &[u8]) -> Vec<u8> {
    entries.sort_unstable_by(|a, b| a.id.as_bytes().cmp(b.id.as_bytes()));
    let mut index = Vec::with_capacity(8 + 256 * 4 + entries.len() * 28 + 40);
    index.extend_from_slice(b"\xfftOc");
    index.extend_from_slice(&2u32.to_be_bytes());
    let mut fanout = [0u32; 256];
    for entry in entries.iter() {
        fanout[usize::from(entry.id.as_bytes()[0])] += 1;
    }
    let mut below = 0u32;
    for count in fanout {
        below += count;
        index.extend_from_slice(&below.to_be_bytes());
    }
    for entry in entries.iter() {
        index.extend_from_slice(entry.id.as_bytes());
    }
    for entry in entries.iter() {
        index.extend_from_slice(&entry.crc.to_be_bytes());
    }
    let mut large = Vec::new();
    for entry in entries.iter() {
        let word = match u32::try_from(entry.offset) {
            Ok(offset) if offset < 0x8000_0000 => offset,
            _ => {
                large.push(entry.offset);
                0x8000_0000 | (large.len() - 1) as u32
            }
        };
        index.extend_from_slice(&word.to_be_bytes());
    }
    for offset in large {
        index.extend_from_slice(&offset.to_be_bytes());
    }
    index.extend_from_slice(pack_sum);
    let sum = sha1::Sha1::digest(&index);
    index.extend_from_slice(&sum);
    index
}

/// Writes `bytes` as `folder/name`: to a file of its own, synced, then named.
fn write_synced(folder: &Path, name: &str, bytes: &[u8]) -> StoreResult<()> {
    let temporary = folder.join(format!("tmp_{name}"));
    let written = std::fs::File::create(&temporary)
        .and_then(|mut file| file.write_all(bytes).and_then(|()| file.sync_all()))
        .and_then(|()| std::fs::rename(&temporary, folder.join(name)));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written.map_err(io_err("cannot write a pack"))
}

/// The packs in the store's pack folder: each one's name (`pack-<sum>`) and size.
fn packs_in(folder: &Path) -> Vec<(String, u64)> {
    let Ok(files) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    files
        .flatten()
        .filter_map(|file| {
            let name = file.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".idx")?.to_string();
            stem.starts_with("pack-").then_some(())?;
            let size = std::fs::metadata(folder.join(format!("{stem}.pack")))
                .ok()?
                .len();
            Some((stem, size))
        })
        .collect()
}

/// How many packs the store's pack folder holds.
pub(super) fn count(dir: &Path) -> usize {
    packs_in(&dir.join("objects").join("pack")).len()
}

/// The packs to merge among `packs`: the smallest ones, with as many larger ones as
/// needed that each of the packs kept is at least twice the size of all the smaller
/// ones together (git's geometric rule: a pack is merged again only once the packs
/// made after it add up to half its size).
fn to_merge(mut packs: Vec<(String, u64)>) -> Vec<(String, u64)> {
    packs.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut rest: u64 = packs.iter().map(|(_, size)| size).sum();
    let mut kept = 0;
    for (_, size) in &packs {
        rest -= size;
        if *size < 2 * rest {
            break;
        }
        kept += 1;
    }
    packs.split_off(kept)
}

/// One object of a pack to merge: where its bytes are (its header and zlib stream),
/// its id and their CRC-32.
struct Part {
    start: u64,
    len: u64,
    id: Oid,
    crc: u32,
}

/// The objects of a pack the store wrote (no delta), read from its index, in the
/// order of the pack; `None` when the pack holds deltas (a pack libgit2 built, with
/// deltas whose bases are found by offset), or is not one this reads.
fn parts_of(folder: &Path, name: &str) -> Option<Vec<Part>> {
    let index = std::fs::read(folder.join(format!("{name}.idx"))).ok()?;
    let pack = std::fs::File::open(folder.join(format!("{name}.pack"))).ok()?;
    let size = pack.metadata().ok()?.len();
    if !index.starts_with(b"\xfftOc\x00\x00\x00\x02") || size < 32 {
        return None;
    }
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(index.get(at..at + 4)?.try_into().ok()?))
    };
    let count = usize::try_from(word(8 + 255 * 4)?).ok()?;
    let ids = 8 + 256 * 4;
    let crcs = ids + count * 20;
    let offsets = crcs + count * 4;
    let large = offsets + count * 4;
    let mut parts = Vec::with_capacity(count);
    for i in 0..count {
        let start = match word(offsets + i * 4)? {
            small if small & 0x8000_0000 == 0 => u64::from(small),
            at => {
                let at = large + usize::try_from(at & 0x7fff_ffff).ok()? * 8;
                u64::from_be_bytes(index.get(at..at + 8)?.try_into().ok()?)
            }
        };
        parts.push(Part {
            start,
            len: 0,
            id: Oid::from_bytes(index.get(ids + i * 20..ids + i * 20 + 20)?).ok()?,
            crc: word(crcs + i * 4)?,
        });
    }
    parts.sort_unstable_by_key(|part| part.start);
    let end = size - 20;
    let mut reader = std::io::BufReader::new(pack);
    for i in 0..parts.len() {
        let stop = parts.get(i + 1).map_or(end, |next| next.start);
        let part = &mut parts[i];
        part.len = stop.checked_sub(part.start).filter(|len| *len > 0)?;
        // Kinds 1 to 4 are whole objects; 6 and 7 are deltas.
        let mut first = [0u8];
        reader.seek(SeekFrom::Start(part.start)).ok()?;
        reader.read_exact(&mut first).ok()?;
        if !matches!((first[0] >> 4) & 7, 1..=4) {
            return None;
        }
    }
    Some(parts)
}

/// A file written with the SHA-1 of what was written.
struct Summed {
    file: std::io::BufWriter<std::fs::File>,
    sum: sha1::Sha1,
}

impl Summed {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.sum.update(bytes);
        self.file.write_all(bytes)
    }
}

/// Merges the small packs of the store (`to_merge`) the store wrote itself into one,
/// when its pack folder holds more than `MERGE_PAST`: their objects' bytes copied one
/// pack at a time into the new pack (so the memory it takes is a buffer, whatever
/// their size), each checked against its CRC-32; the new pack and its index synced,
/// then the merged ones removed (each index first). The store's lock must be held.
/// How many packs were merged.
pub(super) fn merge(dir: &Path) -> StoreResult<usize> {
    let folder = dir.join("objects").join("pack");
    let packs = packs_in(&folder);
    if packs.len() <= MERGE_PAST {
        return Ok(0);
    }
    let mut seen = HashSet::new();
    let mut merging: Vec<(String, Vec<Part>)> = Vec::new();
    for (name, _) in to_merge(packs) {
        if let Some(mut parts) = parts_of(&folder, &name) {
            // An object in two packs is copied once.
            parts.retain(|part| seen.insert(part.id));
            merging.push((name, parts));
        }
    }
    if merging.len() < 2 {
        return Ok(0);
    }
    let failed = io_err("cannot merge the packs");
    let temporary = folder.join("tmp_merge.pack");
    let written = (|| -> std::io::Result<(Vec<Entry>, [u8; 20])> {
        let mut out = Summed {
            file: std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&temporary)?),
            sum: sha1::Sha1::new(),
        };
        let count = u32::try_from(seen.len()).map_err(std::io::Error::other)?;
        out.write(b"PACK")?;
        out.write(&2u32.to_be_bytes())?;
        out.write(&count.to_be_bytes())?;
        let mut offset = 12u64;
        let mut entries = Vec::with_capacity(seen.len());
        let mut bytes = Vec::new();
        for (name, parts) in &merging {
            let mut reader =
                std::io::BufReader::new(std::fs::File::open(folder.join(format!("{name}.pack")))?);
            for part in parts {
                reader.seek(SeekFrom::Start(part.start))?;
                bytes.resize(usize::try_from(part.len).map_err(std::io::Error::other)?, 0);
                reader.read_exact(&mut bytes)?;
                if crc32fast::hash(&bytes) != part.crc {
                    return Err(std::io::Error::other(format!(
                        "an object of {name} does not match its CRC"
                    )));
                }
                out.write(&bytes)?;
                entries.push(Entry {
                    id: part.id,
                    crc: part.crc,
                    offset,
                });
                offset += part.len;
            }
        }
        let sum: [u8; 20] = out.sum.clone().finalize().into();
        out.file.write_all(&sum)?;
        let file = out.file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        Ok((entries, sum))
    })();
    let (mut entries, sum) = match written {
        Ok(written) => written,
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            return Err(failed(e));
        }
    };
    let name = name_with_index(&folder, &sum, &mut entries, |name| {
        std::fs::rename(&temporary, folder.join(format!("{name}.pack"))).map_err(&failed)
    })?;
    // Every object of the merged packs is in the new one, on disk: they can go (the
    // index first, so that no reader finds an index without its pack).
    for (merged, _) in &merging {
        if *merged == name {
            continue;
        }
        for ext in ["idx", "pack"] {
            let _ = std::fs::remove_file(folder.join(format!("{merged}.{ext}")));
        }
    }
    Ok(merging.len())
}

#[cfg(test)]
mod tests {
    use git2::{ObjectType, Oid, Repository};

    use super::*;

    fn blob(text: &[u8]) -> Kept {
        let id = Oid::hash_object(ObjectType::Blob, text).unwrap();
        (
            id,
            wal::Object {
                kind: b'b',
                bytes: text.to_vec(),
            },
        )
    }

    #[test]
    fn git_reads_every_object_of_the_pack_through_its_index() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init_bare(dir.path()).unwrap();
        // Sizes whose header takes one, two and three bytes, an empty object, enough
        // objects that most first bytes of the fan-out are used, and one staged twice.
        let mut texts: Vec<Vec<u8>> = [3usize, 200, 70_000, 0]
            .iter()
            .map(|&n| (0..n).map(|i| b"abcdefghij\n"[i % 11]).collect())
            .collect();
        texts.extend((0..600).map(|i| format!("note {i}\n").into_bytes()));
        let mut objects: Vec<Kept> = texts.iter().map(|t| blob(t)).collect();
        objects.push(blob(&texts[1]));
        write(dir.path(), &objects).unwrap();

        let odb = repo.odb().unwrap();
        odb.refresh().unwrap();
        for text in &texts {
            let id = Oid::hash_object(ObjectType::Blob, text).unwrap();
            assert_eq!(repo.find_blob(id).unwrap().content(), &text[..]);
        }
        let mut listed = 0;
        odb.foreach(|_| {
            listed += 1;
            true
        })
        .unwrap();
        assert_eq!(listed, texts.len());
        let packs: Vec<String> = std::fs::read_dir(dir.path().join("objects/pack"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(packs.len(), 2, "{packs:?}");
        assert!(packs.iter().all(|p| p.starts_with("pack-")), "{packs:?}");
    }

    #[test]
    fn the_index_matches_what_the_indexer_of_libgit2_writes() {
        let objects: Vec<Kept> = (0..300)
            .map(|i| blob(format!("text {i}\n").repeat(i % 7 + 1).as_bytes()))
            .collect();
        let refs: Vec<&Kept> = objects.iter().collect();
        let (pack, mut entries) = pack(&refs).unwrap();
        let ours = index(&mut entries, &pack[pack.len() - 20..]);

        let dir = tempfile::tempdir().unwrap();
        let mut indexer = git2::Indexer::new(None, dir.path(), 0, false).unwrap();
        indexer.write_all(&pack).unwrap();
        let name = indexer.commit().unwrap();
        let theirs = std::fs::read(dir.path().join(format!("pack-{name}.idx"))).unwrap();
        assert_eq!(ours, theirs);
    }

    #[test]
    fn offsets_past_2_gib_go_to_the_table_of_large_offsets() {
        let id = |n: u8| Oid::from_bytes(&[n; 20]).unwrap();
        let mut entries = vec![
            Entry {
                id: id(2),
                crc: 7,
                offset: 5 << 30,
            },
            Entry {
                id: id(1),
                crc: 9,
                offset: 12,
            },
        ];
        let index = index(&mut entries, &[0; 20]);
        let words = 8 + 256 * 4 + 2 * 20 + 2 * 4;
        assert_eq!(&index[words..words + 4], &12u32.to_be_bytes());
        assert_eq!(&index[words + 4..words + 8], &0x8000_0000u32.to_be_bytes());
        assert_eq!(&index[words + 8..words + 16], &(5u64 << 30).to_be_bytes());
        assert_eq!(index.len(), words + 16 + 40);
    }

    #[test]
    fn the_packs_merged_are_the_small_ones_the_larger_each_twice_the_rest() {
        let packs = |sizes: &[u64]| -> Vec<(String, u64)> {
            sizes
                .iter()
                .enumerate()
                .map(|(i, &size)| (format!("pack-{i}"), size))
                .collect()
        };
        let merged = |sizes: &[u64]| -> Vec<u64> {
            to_merge(packs(sizes)).into_iter().map(|(_, s)| s).collect()
        };
        // Many small packs: all of them.
        assert_eq!(merged(&[1; 5]), [1; 5]);
        // A large pack twice the rest stays; so does the next one, twice what follows.
        assert_eq!(merged(&[100, 1, 1, 1]), [1, 1, 1]);
        assert_eq!(merged(&[100, 20, 1, 1, 1]), [1, 1, 1]);
        // One not twice the rest is merged, with everything smaller.
        assert_eq!(merged(&[100, 4, 3, 1]), [4, 3, 1]);
        assert_eq!(merged(&[10, 6, 5]), [10, 6, 5]);
    }

    /// The packs in `dir`'s pack folder.
    fn packs(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = packs_in(&dir.join("objects/pack"))
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        names.sort();
        names
    }

    #[test]
    fn past_the_limit_the_small_packs_are_merged_and_a_pack_with_deltas_stays() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init_bare(dir.path()).unwrap();
        // A pack of libgit2's pack builder, with deltas (versions of one long text).
        let base: String = (0..400).map(|i| format!("line {i}\n")).collect();
        let mut builder = repo.packbuilder().unwrap();
        let versions: Vec<Oid> = (0..4)
            .map(|i| repo.blob(format!("{base}edit {i}\n").as_bytes()).unwrap())
            .collect();
        for id in &versions {
            builder.insert_object(*id, None).unwrap();
        }
        let mut built = git2::Buf::new();
        builder.write_buf(&mut built).unwrap();
        let folder = dir.path().join("objects/pack");
        let mut indexer = git2::Indexer::new(None, &folder, 0, false).unwrap();
        indexer.write_all(&built).unwrap();
        let delta_pack = format!("pack-{}", indexer.commit().unwrap());
        assert!(
            parts_of(&folder, &delta_pack).is_none(),
            "a pack with deltas"
        );
        for id in &versions {
            let hex = id.to_string();
            std::fs::remove_file(dir.path().join("objects").join(&hex[..2]).join(&hex[2..]))
                .unwrap();
        }
        // Small packs of the store's own, one object seen twice.
        let texts: Vec<Vec<u8>> = (0..MERGE_PAST + 4)
            .map(|i| format!("note {i}\n").into_bytes())
            .collect();
        for (i, text) in texts.iter().enumerate() {
            let mut objects = vec![blob(text)];
            if i == 3 {
                objects.push(blob(&texts[0]));
            }
            write(dir.path(), &objects).unwrap();
        }
        assert_eq!(packs(dir.path()).len(), MERGE_PAST + 5);

        assert_eq!(merge(dir.path()).unwrap(), MERGE_PAST + 4);
        let left = packs(dir.path());
        assert_eq!(left.len(), 2, "{left:?}");
        assert!(left.contains(&delta_pack), "{left:?}");
        // Under the limit: nothing to merge.
        assert_eq!(merge(dir.path()).unwrap(), 0);

        // A new handle reads every object, from the merged pack and the other.
        let repo = Repository::open_bare(dir.path()).unwrap();
        for text in &texts {
            let id = Oid::hash_object(ObjectType::Blob, text).unwrap();
            assert_eq!(repo.find_blob(id).unwrap().content(), &text[..]);
        }
        for (i, id) in versions.iter().enumerate() {
            let text = format!("{base}edit {i}\n");
            assert_eq!(repo.find_blob(*id).unwrap().content(), text.as_bytes());
        }
        let merged = left.iter().find(|name| **name != delta_pack).unwrap();
        assert_eq!(
            parts_of(&folder, merged).unwrap().len(),
            texts.len(),
            "each object once"
        );
        // And the merged pack is the one libgit2's indexer makes of the same bytes.
        let pack = std::fs::read(folder.join(format!("{merged}.pack"))).unwrap();
        let other = tempfile::tempdir().unwrap();
        let mut indexer = git2::Indexer::new(None, other.path(), 0, false).unwrap();
        indexer.write_all(&pack).unwrap();
        let name = indexer.commit().unwrap();
        assert_eq!(format!("pack-{name}"), *merged);
        assert_eq!(
            std::fs::read(other.path().join(format!("pack-{name}.idx"))).unwrap(),
            std::fs::read(folder.join(format!("{merged}.idx"))).unwrap()
        );
        assert!(!folder.join("tmp_merge.pack").exists());
    }
}
