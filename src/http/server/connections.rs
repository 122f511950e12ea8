//! The open connections of every event loop, under one cap: which ones are idle, which
//! to close to make room for a new client, and when a loop must wait before accepting.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// How long a new connection may stay silent before it can be closed to make room: a
/// client that has not sent a whole request head by then is the least useful one, but a
/// client that just connected deserves a chance to ask.
const SILENT_GRACE: Duration = Duration::from_secs(1);

/// The cap when none is given: half of the descriptors the process has left under the
/// open-file limit, after those it holds already (inherited ones included) and a reserve
/// for each event loop; the other half is for note files, the search index and the file
/// watcher. At least 16. Called once the index and the watcher are open.
pub(crate) fn default_max_connections(event_loops: usize) -> usize {
    let reserve = 8 + 4 * event_loops;
    let left = crate::limits::open_files().saturating_sub(descriptors_in_use() + reserve);
    (left / 2).max(16)
}

/// Descriptors this process holds now; 0 where that cannot be read.
fn descriptors_in_use() -> usize {
    // The listing's own descriptor is one of the entries.
    std::fs::read_dir("/proc/self/fd").map_or(0, |dir| dir.count().saturating_sub(1))
}

/// Every open connection of the process, shared by the event loops.
pub struct Connections {
    max: usize,
    registry: Mutex<Registry>,
    room: Arc<Room>,
    /// Failed accepts of every loop, logged at a bounded rate.
    pub(crate) accept_errors: super::accept::ErrorLog,
}

/// What a connection needs to tell waiting event loops it turned idle, kept apart from
/// the registry so that a request touches nothing shared between cores.
struct Room {
    /// Event loops waiting for room; requests that end only wake them when there are.
    waiting: AtomicUsize,
    changed: Notify,
}

impl Room {
    fn wake_waiters(&self) {
        if self.waiting.load(Ordering::Acquire) > 0 {
            self.changed.notify_waiters();
        }
    }
}

#[derive(Default)]
struct Registry {
    next_id: u64,
    open: HashMap<u64, Arc<Conn>>,
    /// Open connections already asked to close: they no longer count against the cap.
    closing: usize,
}

impl Registry {
    fn live(&self) -> usize {
        self.open.len() - self.closing
    }
}

/// One connection as the cap sees it.
pub(crate) struct Conn {
    room: Arc<Room>,
    opened: Instant,
    in_flight: AtomicU32,
    served: AtomicU64,
    /// When its last request ended, in milliseconds of the coarse clock.
    idle_since: AtomicU64,
    /// Set under the registry lock when it is asked to close.
    evicted: AtomicBool,
    close_mode: AtomicU8,
    close: Notify,
}

/// How a connection is asked to close.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Close {
    /// Finish the request in progress, if any, then close.
    Graceful = 1,
    /// Close at once when no request has started on it yet, else as `Graceful`.
    IfSilent = 2,
}

impl Conn {
    fn new(room: Arc<Room>, opened: Instant) -> Self {
        let idle_since = crate::ops::clock::coarse_millis();
        Conn {
            room,
            opened,
            in_flight: AtomicU32::new(0),
            served: AtomicU64::new(0),
            idle_since: AtomicU64::new(idle_since),
            evicted: AtomicBool::new(false),
            close_mode: AtomicU8::new(0),
            close: Notify::new(),
        }
    }

    /// Whether no request has ever started on it.
    pub(crate) fn is_silent(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) == 0 && self.served.load(Ordering::Acquire) == 0
    }

    /// Resolves when the connection is asked to close, with how.
    pub(crate) async fn close_requested(&self) -> Close {
        loop {
            let notified = self.close.notified();
            match self.close_mode.load(Ordering::Acquire) {
                1 => return Close::Graceful,
                2 => return Close::IfSilent,
                _ => notified.await,
            }
        }
    }

    fn ask_to_close(&self, how: Close) {
        self.close_mode.fetch_max(how as u8, Ordering::AcqRel);
        self.close.notify_one();
    }
}

/// A connection's place under the cap, released when the connection ends.
pub(crate) struct Lease {
    connections: Arc<Connections>,
    id: u64,
    pub(crate) conn: Arc<Conn>,
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut registry = self.connections.lock();
        if let Some(conn) = registry.open.remove(&self.id)
            && conn.evicted.load(Ordering::Relaxed)
        {
            registry.closing -= 1;
        }
        drop(registry);
        self.connections.room.wake_waiters();
    }
}

/// A request in progress on a connection; ending it makes the connection idle.
pub(crate) struct Busy {
    conn: Arc<Conn>,
}

impl Busy {
    pub(crate) fn begin(conn: &Arc<Conn>) -> Self {
        conn.in_flight.fetch_add(1, Ordering::AcqRel);
        Busy { conn: conn.clone() }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let conn = &self.conn;
        conn.idle_since
            .store(crate::ops::clock::coarse_millis(), Ordering::Release);
        conn.served.fetch_add(1, Ordering::AcqRel);
        if conn.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            conn.room.wake_waiters();
        }
    }
}

impl Connections {
    pub(crate) fn new(max: usize) -> Arc<Self> {
        Arc::new(Connections {
            max: max.max(1),
            registry: Mutex::default(),
            room: Arc::new(Room {
                waiting: AtomicUsize::new(0),
                changed: Notify::new(),
            }),
            accept_errors: super::accept::ErrorLog::default(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Registry> {
        // The registry stays consistent across a panic elsewhere: every change is one
        // insert or remove.
        self.registry
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether a new connection can be taken now: under the cap, or with a connection
    /// that can be closed to make room.
    pub(crate) fn has_room(&self) -> bool {
        let registry = self.lock();
        registry.live() < self.max || self.victim(&registry, Instant::now()).is_some()
    }

    /// Waits until `has_room`. Room opens when a connection closes or turns idle, or
    /// when a silent one has been silent long enough.
    pub(crate) async fn wait_for_room(&self) {
        loop {
            let notified = self.room.changed.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            self.room.waiting.fetch_add(1, Ordering::AcqRel);
            let ready = self.has_room();
            if !ready {
                // Silent connections become closable with time alone, which no event
                // announces.
                let _ = tokio::time::timeout(SILENT_GRACE / 10, notified).await;
            }
            self.room.waiting.fetch_sub(1, Ordering::AcqRel);
            if ready {
                return;
            }
        }
    }

    /// Registers a newly accepted connection, closing another one first when the cap is
    /// reached; `None` when the cap is reached and every connection is busy.
    pub(crate) fn admit(self: &Arc<Self>) -> Option<Lease> {
        let now = Instant::now();
        let mut registry = self.lock();
        if registry.live() >= self.max && !self.evict(&mut registry, now) {
            return None;
        }
        let id = registry.next_id;
        registry.next_id += 1;
        let conn = Arc::new(Conn::new(self.room.clone(), now));
        registry.open.insert(id, conn.clone());
        Some(Lease {
            connections: self.clone(),
            id,
            conn,
        })
    }

    /// Closes one connection to free its file descriptor, when one can go; returns
    /// whether one was asked to.
    pub(crate) fn evict_one(&self) -> bool {
        let mut registry = self.lock();
        self.evict(&mut registry, Instant::now())
    }

    /// Asks every connection to close: idle and silent ones at once, busy ones once
    /// their request is answered.
    pub(crate) fn close_all(&self) {
        let mut registry = self.lock();
        let Registry { open, closing, .. } = &mut *registry;
        for conn in open.values() {
            if !conn.evicted.swap(true, Ordering::Relaxed) {
                *closing += 1;
            }
            conn.ask_to_close(Close::IfSilent);
        }
    }

    fn evict(&self, registry: &mut Registry, now: Instant) -> bool {
        let Some((conn, how)) = self.victim(registry, now) else {
            return false;
        };
        conn.evicted.store(true, Ordering::Relaxed);
        registry.closing += 1;
        conn.ask_to_close(how);
        true
    }

    /// The connection to close to make room: the one idle the longest among those that
    /// answered a request and wait for the next; else the oldest that has sent nothing
    /// for `SILENT_GRACE`. Busy connections are never chosen. The idle times are in
    /// coarse milliseconds, which many connections can share: between those, the one
    /// opened first (the lowest id) goes.
    fn victim(&self, registry: &Registry, now: Instant) -> Option<(Arc<Conn>, Close)> {
        let mut idle: Option<((u64, u64), &Arc<Conn>)> = None;
        let mut silent: Option<((Instant, u64), &Arc<Conn>)> = None;
        for (&id, conn) in &registry.open {
            if conn.evicted.load(Ordering::Relaxed) || conn.in_flight.load(Ordering::Acquire) > 0 {
                continue;
            }
            if conn.served.load(Ordering::Acquire) > 0 {
                let key = (conn.idle_since.load(Ordering::Acquire), id);
                if idle.is_none_or(|(best, _)| key < best) {
                    idle = Some((key, conn));
                }
            } else if now.saturating_duration_since(conn.opened) >= SILENT_GRACE {
                let key = (conn.opened, id);
                if silent.is_none_or(|(best, _)| key < best) {
                    silent = Some((key, conn));
                }
            }
        }
        match (idle, silent) {
            (Some((_, conn)), _) => Some((conn.clone(), Close::Graceful)),
            (None, Some((_, conn))) => Some((conn.clone(), Close::IfSilent)),
            (None, None) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admit(connections: &Arc<Connections>) -> Lease {
        connections.admit().expect("room under the cap")
    }

    fn serve_one(lease: &Lease) {
        drop(Busy::begin(&lease.conn));
    }

    fn asked(lease: &Lease) -> Option<Close> {
        match lease.conn.close_mode.load(Ordering::Acquire) {
            1 => Some(Close::Graceful),
            2 => Some(Close::IfSilent),
            _ => None,
        }
    }

    #[test]
    fn at_the_cap_the_longest_idle_connection_is_closed_first() {
        let connections = Connections::new(3);
        let leases: Vec<_> = (0..3).map(|_| admit(&connections)).collect();
        // Served in the order 1, 0, 2: connection 1 has been idle the longest.
        serve_one(&leases[1]);
        std::thread::sleep(Duration::from_millis(5));
        serve_one(&leases[0]);
        serve_one(&leases[2]);
        assert!(connections.has_room());
        let newcomer = admit(&connections);
        assert_eq!(asked(&leases[1]), Some(Close::Graceful));
        assert_eq!(asked(&leases[0]), None);
        assert_eq!(asked(&leases[2]), None);
        assert_eq!(asked(&newcomer), None);
        // The closing connection no longer counts; once gone, its entry is too.
        assert_eq!(connections.lock().live(), 3);
        drop(leases);
        assert_eq!(connections.lock().open.len(), 1);
        assert_eq!(connections.lock().closing, 0);
    }

    #[test]
    fn busy_connections_are_never_closed_to_make_room() {
        let connections = Connections::new(2);
        let a = admit(&connections);
        let b = admit(&connections);
        let _busy_a = Busy::begin(&a.conn);
        let busy_b = Busy::begin(&b.conn);
        assert!(!connections.has_room());
        assert!(!connections.evict_one());
        assert!(connections.admit().is_none(), "the cap holds");
        drop(busy_b);
        assert!(connections.has_room());
        assert!(connections.evict_one());
        assert_eq!(asked(&a), None);
        assert_eq!(asked(&b), Some(Close::Graceful));
    }

    #[test]
    fn silent_connections_make_room_only_after_the_grace() {
        let connections = Connections::new(1);
        let silent = admit(&connections);
        assert!(!connections.has_room());
        let later = Instant::now() + SILENT_GRACE;
        let registry = connections.lock();
        let (victim, how) = connections.victim(&registry, later).expect("a victim");
        assert!(Arc::ptr_eq(&victim, &silent.conn));
        assert_eq!(how, Close::IfSilent);
    }

    #[test]
    fn idle_connections_go_before_silent_ones() {
        let connections = Connections::new(2);
        let silent = admit(&connections);
        let idle = admit(&connections);
        serve_one(&idle);
        let later = Instant::now() + SILENT_GRACE * 2;
        let mut registry = connections.lock();
        assert!(connections.evict(&mut registry, later));
        drop(registry);
        assert_eq!(asked(&idle), Some(Close::Graceful));
        assert_eq!(asked(&silent), None);
    }

    #[test]
    fn among_connections_idle_since_the_same_millisecond_the_first_opened_goes() {
        let connections = Connections::new(64);
        let leases: Vec<_> = (0..40).map(|_| admit(&connections)).collect();
        for lease in &leases {
            serve_one(lease);
            // The coarse clock gives many connections the same idle time.
            lease.conn.idle_since.store(7, Ordering::Release);
        }
        for _ in 0..10 {
            assert!(connections.evict_one());
        }
        assert!(
            leases[..10]
                .iter()
                .all(|lease| asked(lease) == Some(Close::Graceful))
        );
        assert!(leases[10..].iter().all(|lease| asked(lease).is_none()));
    }

    #[test]
    fn close_all_reaches_every_connection() {
        let connections = Connections::new(8);
        let leases: Vec<_> = (0..4).map(|_| admit(&connections)).collect();
        connections.close_all();
        assert!(
            leases
                .iter()
                .all(|lease| asked(lease) == Some(Close::IfSilent))
        );
        assert_eq!(connections.lock().live(), 0);
    }

    #[test]
    fn the_default_cap_leaves_room_for_files() {
        let cap = default_max_connections(2);
        assert!(cap >= 16);
        assert!(cap <= crate::limits::open_files().max(32));
        assert!(
            descriptors_in_use() >= 3,
            "stdin, stdout and stderr at least"
        );
    }
}
