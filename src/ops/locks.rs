//! Per-key locks: writers to one note (or to the public record) take turns, writers to
//! different notes never wait for each other. An entry is dropped once nobody uses it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

#[derive(Default)]
pub(crate) struct KeyedLocks {
    map: Mutex<HashMap<String, Arc<Mutex<()>>>>,
}

impl KeyedLocks {
    /// Runs `f` while holding the lock of `key`.
    pub(crate) fn with<T>(&self, key: &str, f: impl FnOnce() -> T) -> T {
        let slot = {
            let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
            map.entry(key.to_string()).or_default().clone()
        };
        let result = {
            let _held = slot.lock().unwrap_or_else(PoisonError::into_inner);
            f()
        };
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        // Clones are only made under the map lock: two references (the map's and
        // ours) mean nobody else waits for this key.
        if Arc::strong_count(&slot) == 2 {
            map.remove(key);
        }
        result
    }

    /// Runs `f` while holding the locks of all `keys`, taken in sorted order: two
    /// callers locking overlapping sets take their common keys in the same order, so
    /// neither can hold one the other waits for while waiting for one it holds.
    pub(crate) fn with_all<T>(&self, keys: &[&str], f: impl FnOnce() -> T) -> T {
        let mut keys = keys.to_vec();
        keys.sort_unstable();
        keys.dedup();
        self.nested(&keys, f)
    }

    fn nested<T>(&self, keys: &[&str], f: impl FnOnce() -> T) -> T {
        match keys.split_first() {
            None => f(),
            Some((first, rest)) => self.with(first, || self.nested(rest, f)),
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.map.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn one_key_serialises_and_entries_are_dropped() {
        let locks = Arc::new(KeyedLocks::default());
        let inside = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let (locks, inside) = (locks.clone(), inside.clone());
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        locks.with("k", || {
                            assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0);
                            inside.fetch_sub(1, Ordering::SeqCst);
                        });
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(locks.len(), 0);
    }

    #[test]
    fn sets_of_keys_in_any_order_never_deadlock() {
        let locks = Arc::new(KeyedLocks::default());
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let locks = locks.clone();
                std::thread::spawn(move || {
                    let mut keys = vec!["a", "b", "c", "b"];
                    keys.rotate_left(i);
                    for _ in 0..200 {
                        locks.with_all(&keys, std::thread::yield_now);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(locks.len(), 0);
    }
}
