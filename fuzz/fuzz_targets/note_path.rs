//! Any note path either is refused or names a file strictly inside the notes folder.
//! (URLs are percent-decoded once before this, in `http`; property tests cover that step.)
#![no_main]

use libfuzzer_sys::fuzz_target;
use notes::ops::NotePath;

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = std::str::from_utf8(data) else { return };
    if let Ok(path) = NotePath::parse(raw) {
        let s = path.as_str();
        assert!(!s.starts_with('/') && s.ends_with(".md"), "{s:?}");
        assert!(s.split('/').all(|seg| !seg.is_empty() && seg != "." && seg != ".."), "{s:?}");
        assert_eq!(NotePath::parse(s).map(|p| p.as_str().to_string()).ok().as_deref(), Some(s));
    }
});
