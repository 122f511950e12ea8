//! Group commit for operations that each end in the same durable writes: callers
//! arriving while one batch runs wait, and the next batch takes all of them at once,
//! so they share the writes instead of queueing one after another.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// A queue of requests `T`, each answered with an `R` by the batch that took it.
pub(crate) struct Batcher<T, R> {
    queue: Mutex<Queue<T, R>>,
    done: Condvar,
}

struct Queue<T, R> {
    waiting: Vec<(u64, T)>,
    /// Answers not yet taken by their callers; `None`: the batch panicked.
    answers: HashMap<u64, Option<R>>,
    next: u64,
    busy: bool,
}

impl<T, R> Default for Batcher<T, R> {
    fn default() -> Self {
        Batcher {
            queue: Mutex::new(Queue {
                waiting: Vec::new(),
                answers: HashMap::new(),
                next: 0,
                busy: false,
            }),
            done: Condvar::new(),
        }
    }
}

impl<T, R> Batcher<T, R> {
    fn queue(&self) -> MutexGuard<'_, Queue<T, R>> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `request` and returns its answer: `work` runs on this thread for every
    /// request waiting when no batch is under way (answering them in their order), or
    /// another caller's batch answers it. `lost` answers a request whose batch
    /// panicked.
    pub(crate) fn run(
        &self,
        request: T,
        work: impl Fn(Vec<T>) -> Vec<R>,
        lost: impl FnOnce() -> R,
    ) -> R {
        let mut queue = self.queue();
        let id = queue.next;
        queue.next += 1;
        queue.waiting.push((id, request));
        loop {
            if let Some(answer) = queue.answers.remove(&id) {
                return answer.unwrap_or_else(lost);
            }
            if queue.busy {
                queue = self
                    .done
                    .wait(queue)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            queue.busy = true;
            let (ids, requests): (Vec<u64>, Vec<T>) =
                std::mem::take(&mut queue.waiting).into_iter().unzip();
            drop(queue);
            let mut turn = Turn {
                batcher: self,
                ids,
                answers: None,
            };
            turn.answers = Some(work(requests));
            drop(turn);
            queue = self.queue();
        }
    }
}

/// A batch under way: when it ends, even by a panic, its answers are posted (each
/// `None` after a panic) and the waiting callers woken.
struct Turn<'a, T, R> {
    batcher: &'a Batcher<T, R>,
    ids: Vec<u64>,
    answers: Option<Vec<R>>,
}

impl<T, R> Drop for Turn<'_, T, R> {
    fn drop(&mut self) {
        let mut answers = self.answers.take().unwrap_or_default().into_iter();
        let mut queue = self.batcher.queue();
        for id in self.ids.drain(..) {
            queue.answers.insert(id, answers.next());
        }
        queue.busy = false;
        drop(queue);
        self.batcher.done.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn each_caller_gets_its_own_answer_and_waiting_callers_share_a_batch() {
        let batcher = Arc::new(Batcher::<usize, usize>::default());
        let batches = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..16)
            .map(|n| {
                let (batcher, batches) = (batcher.clone(), batches.clone());
                std::thread::spawn(move || {
                    for round in 0..10 {
                        let asked = n * 100 + round;
                        let answer = batcher.run(
                            asked,
                            |requests| {
                                batches.fetch_add(1, Ordering::SeqCst);
                                std::thread::sleep(std::time::Duration::from_millis(2));
                                requests.into_iter().map(|r| r * 2).collect()
                            },
                            || usize::MAX,
                        );
                        assert_eq!(answer, asked * 2);
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert!(batches.load(Ordering::SeqCst) < 160);
    }

    #[test]
    fn a_batch_that_panics_answers_its_callers_as_lost_and_the_next_one_runs() {
        let batcher = Batcher::<u8, u8>::default();
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            batcher.run(1, |_| panic!("the batch failed"), || 0)
        }));
        assert!(panicked.is_err());
        assert_eq!(batcher.run(2, |r| r, || 0), 2);
        let lost = std::thread::scope(|scope| {
            scope
                .spawn(|| batcher.run(3, |_| -> Vec<u8> { panic!("again") }, || 7))
                .join()
        });
        // The panic reaches the caller that ran the batch.
        assert!(lost.is_err());
    }
}
