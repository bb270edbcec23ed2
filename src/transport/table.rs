//! The connection table: every open connection by key, with the counts per
//! client address, and apart from it the lingering closes of connections
//! refused at a cap. A refused connection never takes a place in the table,
//! so refusals cannot crowd out the clients the caps let in; its lingering
//! close (conn.rs) still lets it read its 503 before the close. The
//! lingering closes are bounded (`MAX_LINGERING`, and the descriptors the
//! table leaves): past the bound the oldest is cut short (`Conn::cut`).
//!
//! At `--max-connections` the longest-idle connection closes to make room.
//! The idle ones are listed once, by how long they have been idle
//! (`idlest`), and each accept at the cap takes from the end of the list,
//! checking that the one taken is still idle since the same time; the
//! table is looked through again only when the list runs out. A connection
//! that becomes idle after the listing became so later than every
//! connection listed, so the list's end is still the longest idle.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use super::conn::Conn;
use super::limits::PerAddress;

pub(super) type Cell = Arc<Mutex<Conn>>;

/// A connection in the table, by its key.
pub(super) struct Entry {
    pub(super) key: usize,
    pub(super) cell: Cell,
}

/// An idle connection as listed for the cap: idle since when, and its key.
/// Ordered by the time first, so a sorted list has the longest idle at one end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Idle {
    pub(super) since: Instant,
    pub(super) key: usize,
}

/// Lingering closes of refused connections kept at once, at most.
pub const MAX_LINGERING: usize = 1024;

/// Every connection by key (keys grow with each accept, so the first key
/// of `lingering` is its oldest).
#[derive(Default)]
pub struct Table {
    inner: Mutex<Inner>,
    pub(super) next: AtomicUsize,
    /// Open connections idle when last listed, with the time each has been
    /// idle since, the longest idle last.
    idlest: Mutex<Vec<Idle>>,
}

#[derive(Default)]
pub(super) struct Inner {
    /// The connections the caps count.
    pub(super) open: HashMap<usize, Cell>,
    pub(super) per_address: PerAddress,
    /// Refused connections in their lingering close, counted by no cap.
    pub(super) lingering: BTreeMap<usize, Cell>,
}

impl Inner {
    /// Takes out the oldest lingering closes past `MAX_LINGERING` and past
    /// what `room` descriptors leave beside the open connections; the
    /// caller cuts them short, outside the table's lock.
    pub(super) fn past_bound(&mut self, room: usize) -> Vec<Entry> {
        let bound = MAX_LINGERING.min(room.saturating_sub(self.open.len()));
        let mut cut = Vec::new();
        while self.lingering.len() > bound {
            match self.lingering.pop_first() {
                Some((key, cell)) => cut.push(Entry { key, cell }),
                None => break,
            }
        }
        cut
    }
}

impl Entry {
    fn of((key, cell): (&usize, &Cell)) -> Entry {
        Entry {
            key: *key,
            cell: cell.clone(),
        }
    }
}

impl Table {
    pub(super) fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Open connections: what `--max-connections` counts.
    pub fn len(&self) -> usize {
        self.lock().open.len()
    }

    pub fn lingering(&self) -> usize {
        self.lock().lingering.len()
    }

    /// Every connection, open or lingering after a refusal.
    pub(super) fn snapshot(&self) -> Vec<Entry> {
        let inner = self.lock();
        let all = inner.open.iter().chain(inner.lingering.iter());
        all.map(Entry::of).collect()
    }

    /// The open connections only.
    pub(super) fn open(&self) -> Vec<Entry> {
        let inner = self.lock();
        inner.open.iter().map(Entry::of).collect()
    }

    pub(super) fn get(&self, key: usize) -> Option<Cell> {
        let inner = self.lock();
        inner
            .open
            .get(&key)
            .or_else(|| inner.lingering.get(&key))
            .cloned()
    }

    /// The idle connections to close first at the cap (see the note above).
    pub(super) fn idlest(&self) -> MutexGuard<'_, Vec<Idle>> {
        self.idlest.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Lists the open connections idle now (one a worker holds is not),
    /// the longest idle last.
    pub(super) fn list_idle(&self) -> Vec<Idle> {
        let mut idle: Vec<_> = self
            .open()
            .into_iter()
            .filter_map(|Entry { key, cell }| {
                let c = cell.try_lock().ok()?;
                c.idle_since().map(|since| Idle { since, key })
            })
            .collect();
        idle.sort_unstable_by(|a, b| b.cmp(a));
        idle
    }

    /// Takes `c` out; an open connection gives its address's place back.
    pub(super) fn remove(&self, key: usize, c: &Conn) {
        let mut inner = self.lock();
        if c.refused {
            inner.lingering.remove(&key);
        } else if inner.open.remove(&key).is_some()
            && let Some(a) = c.addr
        {
            inner.per_address.give_back(a);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn lingering_closes_past_the_bound_go_oldest_first() {
        // One connection stands for them all: the bound counts entries.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let stream = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let peer = stream.local_addr().unwrap();
        let one: Cell = Arc::new(Mutex::new(Conn::new(stream, peer, false, None)));
        let mut inner = Inner::default();
        for key in 0..MAX_LINGERING + 2 {
            inner.lingering.insert(key, one.clone());
        }
        let cut: Vec<usize> = inner.past_bound(usize::MAX).iter().map(|c| c.key).collect();
        assert_eq!(cut, [0, 1]);
        // Ten descriptors of room, eight taken by open connections: two lingering.
        for key in 0..8 {
            inner.open.insert(100_000 + key, one.clone());
        }
        let cut = inner.past_bound(10);
        assert_eq!(cut.len(), MAX_LINGERING - 2);
        let kept: Vec<usize> = inner.lingering.keys().copied().collect();
        assert_eq!(kept, [MAX_LINGERING, MAX_LINGERING + 1], "the newest stay");
        assert_eq!(inner.past_bound(5).len(), 2, "no room: none lingers");
    }
}
