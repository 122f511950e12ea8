//! An amount shared between threads (merges running, bytes of documents queued) that
//! a thread can wait to see fall to a level: the parts held are counted until dropped,
//! and a drop wakes the waiters only when it takes the amount down past a level one of
//! them waits for (not at every drop: a reading waiting for hundreds of documents to be
//! indexed is woken once).

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

#[derive(Debug, Default)]
pub(crate) struct Gauge {
    state: Mutex<State>,
    fell: Condvar,
}

#[derive(Debug, Default)]
struct State {
    held: usize,
    /// The level each waiting thread waits for.
    awaited: Vec<usize>,
}

/// A part of a gauge's amount, counted until dropped.
#[derive(Debug)]
pub(crate) struct Held {
    amount: usize,
    gauge: Arc<Gauge>,
}

impl Gauge {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds `amount`, until the returned part is dropped.
    pub(crate) fn hold(self: &Arc<Self>, amount: usize) -> Held {
        self.state().held += amount;
        Held {
            amount,
            gauge: self.clone(),
        }
    }

    /// The amount held now.
    pub(crate) fn held(&self) -> usize {
        self.state().held
    }

    /// Waits until the amount is `level` or under, or for `longest`.
    pub(crate) fn wait_until_at_most(&self, level: usize, longest: Duration) {
        let mut state = self.state();
        if state.held <= level {
            return;
        }
        state.awaited.push(level);
        let (mut state, _) = self
            .fell
            .wait_timeout_while(state, longest, |state| state.held > level)
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = state.awaited.iter().position(|&l| l == level) {
            state.awaited.swap_remove(at);
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut state = self.gauge.state();
        let before = state.held;
        state.held = before.saturating_sub(self.amount);
        let now = state.held;
        if state
            .awaited
            .iter()
            .any(|&level| before > level && now <= level)
        {
            self.gauge.fell.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    #[test]
    fn a_wait_ends_when_the_amount_falls_to_its_level() {
        let gauge = Arc::new(Gauge::default());
        let (one, two) = (gauge.hold(600), gauge.hold(500));
        assert_eq!(gauge.held(), 1100);
        // Already there: no wait.
        let started = Instant::now();
        gauge.wait_until_at_most(1100, Duration::from_secs(5));
        assert!(started.elapsed() < Duration::from_secs(1));
        let taker = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            drop(one);
        });
        let started = Instant::now();
        gauge.wait_until_at_most(500, Duration::from_secs(5));
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(150), "{waited:?}");
        assert!(waited < Duration::from_secs(4), "{waited:?}");
        assert_eq!(gauge.held(), 500);
        taker.join().unwrap();
        // An amount never taken down (its thread gone) holds the wait to its longest.
        let started = Instant::now();
        gauge.wait_until_at_most(50, Duration::from_millis(100));
        assert!(started.elapsed() >= Duration::from_millis(100));
        drop(two);
        assert_eq!(gauge.held(), 0);
        assert!(gauge.state().awaited.is_empty());
    }

    #[test]
    fn waiting_for_none_ends_when_the_last_part_is_dropped() {
        let gauge = Arc::new(Gauge::default());
        let started = Instant::now();
        gauge.wait_until_at_most(0, Duration::from_secs(5));
        assert!(started.elapsed() < Duration::from_secs(1));
        let (first, second) = (gauge.hold(1), gauge.hold(1));
        let ended = std::thread::spawn(move || {
            drop(first);
            std::thread::sleep(Duration::from_millis(200));
            drop(second);
        });
        let started = Instant::now();
        gauge.wait_until_at_most(0, Duration::from_secs(5));
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(150), "{waited:?}");
        assert!(waited < Duration::from_secs(4), "{waited:?}");
        ended.join().unwrap();
        assert_eq!(gauge.held(), 0);
    }
}
