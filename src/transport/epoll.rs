//! The readiness set: one epoll instance that every worker waits on at the
//! same time, each wait taking one event. Listeners and connections are
//! registered with one-shot interest (EPOLLONESHOT): an event goes to one
//! waiter, and its descriptor reports nothing more until that worker re-arms
//! it after its turn, so no two workers ever hold the same connection. The
//! kernel wakes one waiter for each event, and a worker coming back from a
//! turn takes what is ready without sleeping: no worker hands off to another.
//!
//! Each registration carries a key, never a pointer: a key is given once
//! (table.rs), so an event taken just before its connection closed finds
//! nothing under its key, even when the descriptor's number is used again.

use std::io;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};

/// What a registration waits for, besides errors and hang-ups (always).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interest {
    Read,
    Write,
    /// Either: a writable socket reports at once, so the turn comes back soon.
    Both,
}

impl Interest {
    fn bits(self) -> u32 {
        let read = (libc::EPOLLIN | libc::EPOLLRDHUP) as u32;
        let write = libc::EPOLLOUT as u32;
        let wanted = match self {
            Interest::Read => read,
            Interest::Write => write,
            Interest::Both => read | write,
        };
        wanted | libc::EPOLLONESHOT as u32
    }
}

pub struct Epoll(OwnedFd);

impl Epoll {
    pub fn new() -> io::Result<Epoll> {
        // SAFETY: takes no pointer; returns a new descriptor or -1.
        let fd = checked(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
        // SAFETY: `fd` was just opened and nothing else owns it.
        Ok(Epoll(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Registers `fd` under `key`, armed once for `interest`.
    pub fn add(&self, fd: impl AsFd, key: usize, interest: Interest) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_ADD, fd, key, interest.bits())
    }

    /// Arms `fd` again, once, after the turn its last event gave.
    pub fn rearm(&self, fd: impl AsFd, key: usize, interest: Interest) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_MOD, fd, key, interest.bits())
    }

    /// Registers `fd` level-triggered and for every waiter: while it stays
    /// readable, each wait reports it (the stop event, timers.rs).
    pub fn add_always(&self, fd: impl AsFd, key: usize) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_ADD, fd, key, libc::EPOLLIN as u32)
    }

    /// Takes `fd` out of the set. Needed before a close even though the
    /// kernel drops a closed descriptor's registration itself: it does so
    /// only when no copy of it (an export's thread holds one) is left open.
    pub fn delete(&self, fd: impl AsFd) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_DEL, fd, 0, 0)
    }

    /// Waits, for as long as it takes, for one event: its key. None when a
    /// signal interrupted the wait.
    pub fn wait_one(&self) -> io::Result<Option<usize>> {
        let mut event = libc::epoll_event { events: 0, u64: 0 };
        // SAFETY: room for exactly the one event asked for.
        let n = unsafe { libc::epoll_wait(self.0.as_raw_fd(), &mut event, 1, -1) };
        match checked(n) {
            Ok(0) => Ok(None),
            Ok(_) => Ok(Some({ event.u64 } as usize)),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn ctl(&self, op: i32, fd: impl AsFd, key: usize, events: u32) -> io::Result<()> {
        let mut event = libc::epoll_event {
            events,
            u64: key as u64,
        };
        let fd = fd.as_fd().as_raw_fd();
        // SAFETY: `event` outlives the call, which copies it (and, for
        // EPOLL_CTL_DEL, ignores it).
        checked(unsafe { libc::epoll_ctl(self.0.as_raw_fd(), op, fd, &mut event) }).map(drop)
    }
}

/// A libc call's result: -1 is the error in errno.
pub(super) fn checked(n: i32) -> io::Result<i32> {
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};
    use std::sync::Arc;
    use std::thread;
    use std::time::Duration;

    #[test]
    fn a_one_shot_event_goes_to_one_waiter_until_re_armed() {
        let set = Arc::new(Epoll::new().unwrap());
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        set.add(&server, 7, Interest::Read).unwrap();
        client.write_all(b"x").unwrap();
        let waiters: Vec<_> = (0..2)
            .map(|_| {
                let set = set.clone();
                thread::spawn(move || set.wait_one().unwrap())
            })
            .collect();
        thread::sleep(Duration::from_millis(200));
        let done: Vec<_> = waiters.iter().filter(|w| w.is_finished()).collect();
        assert_eq!(
            done.len(),
            1,
            "one waiter takes the event, the other waits on"
        );
        // Still readable (the byte was never read): re-armed, it goes to the other.
        set.rearm(&server, 7, Interest::Read).unwrap();
        let keys: Vec<_> = waiters.into_iter().map(|w| w.join().unwrap()).collect();
        assert_eq!(keys, [Some(7), Some(7)]);
    }
}
