//! The hooks the integration tests set through `NOTES_TEST_*` variables (a fixed clock,
//! crash points, shortened limits). They exist only with the `test-hooks` feature, which
//! `cargo test` turns on (the package is its own dev-dependency with it); a build for
//! use reads none of them.

/// The value of the hook variable `name`; always `None` without the feature.
pub(crate) fn var(name: &str) -> Option<String> {
    #[cfg(feature = "test-hooks")]
    {
        std::env::var(name).ok()
    }
    #[cfg(not(feature = "test-hooks"))]
    {
        let _ = name;
        None
    }
}
