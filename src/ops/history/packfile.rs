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

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use git2::{ObjectType, Oid};
use sha1::Digest;

use super::stage::kind_of;
use super::store::{StoreResult, io_err};
use super::wal;

/// An object with its id, as the store staged it.
pub(super) type Kept = (Oid, wal::Object);

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
    let sum = &pack[pack.len() - 20..];
    let index = index(&mut entries, sum);
    let name = Oid::from_bytes(sum)
        .map_err(|e| format!("cannot name a pack: {}", e.message()))?
        .to_string();
    let folder = dir.join("objects").join("pack");
    std::fs::create_dir_all(&folder).map_err(io_err("cannot write a pack"))?;
    write_synced(&folder, &format!("pack-{name}.pack"), &pack)?;
    write_synced(&folder, &format!("pack-{name}.idx"), &index)?;
    std::fs::File::open(&folder)
        .and_then(|file| file.sync_all())
        .map_err(io_err("cannot sync a pack"))
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
}
