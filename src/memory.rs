//! The allocator's footprint in a long-running server (glibc on Linux; elsewhere these
//! do nothing).

/// glibc gives every thread that allocates its own heap arena and rarely gives freed
/// memory back; with a thread pool under mixed load the heap then grows for minutes
/// (measured by `just soak`: 100 → 178 MiB in 4 min; 22 MiB flat with two arenas, at
/// the same request rate). Two arenas keep a long-running server's heap flat. Call
/// before starting threads.
///
/// And blocks of 512 KiB and more are mapped on their own, returned to the system when
/// freed. glibc raises that threshold to the largest block freed so far (up to 32 MiB),
/// after which the search index's 1 MiB arena pages, a new set per segment, came from
/// the heap and left it fragmented: a first start at 10k notes peaked at 55–80 MiB from
/// one run to the next, 49–50 MiB with the threshold fixed (at 100k, 101–129 → 90–93
/// MiB while indexing, for ~5% more CPU: the pages are mapped and zeroed anew).
pub(crate) fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only tunes the allocator, with documented parameters and values.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 512 * 1024);
    }
}

/// Returns the allocator's free memory to the system, after work that allocated a
/// lot for a while (an index pass, a list build over many notes).
pub(crate) fn give_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; it is thread-safe.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// libgit2 maps the history's packs in windows of up to 1 GiB, and keeps up to 8 GiB
/// of them mapped: every page of a pack a history read touched stayed in the server's
/// resident memory (23 MiB after a first start at 100k notes). Windows of 1 MiB, 8 MiB
/// of them at most, least recently used unmapped first. Call before starting threads.
pub(crate) fn limit_git_mapping() {
    // SAFETY: these set libgit2's global options; called from the main thread before
    // any other thread exists, as the functions require.
    let set = unsafe {
        git2::opts::set_mwindow_size(1 << 20)
            .and_then(|()| git2::opts::set_mwindow_mapped_limit(8 << 20))
    };
    if let Err(e) = set {
        crate::log::warn(&format!("history: cannot limit the mapped packs: {e}"));
    }
    cache_git_trees();
}

/// A commit reads its parent's tree and each folder tree on the way to a change
/// several times; libgit2 keeps parsed trees of up to 4 KiB only, so a folder of a few
/// thousand notes was read from the store and parsed again at each look (a third of the
/// committer's time when thousands of notes come into one folder). Trees up to 4 MiB
/// are kept, within 16 MiB for every object kept. And objects are not hashed again at
/// each read (git does not either; zlib checks each one's data as it inflates): the
/// hashing made another fifth of the committer's time.
fn cache_git_trees() {
    // SAFETY: as above, global options set before any other thread exists.
    let set = unsafe {
        git2::opts::set_cache_object_limit(git2::ObjectType::Tree, 4 << 20)
            .and_then(|()| git2::opts::set_cache_max_size(16 << 20))
    };
    if let Err(e) = set {
        crate::log::warn(&format!("history: cannot cache the store's trees: {e}"));
    }
    git2::opts::strict_hash_verification(false);
}
