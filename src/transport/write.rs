//! Writing an answer in slices, so that a client that does not read costs a
//! worker at most `WRITE_SLICE` (docs/http-layer.md, "Pipelining").
//!
//! Accepted sockets time out writes after `WRITE_SLICE` (listener.rs): a
//! write that makes no progress for that long returns, and the rest of the
//! answer is left to a thread of its own (serve.rs, `hand_off`), which keeps
//! writing for as long as the client takes a byte at least every
//! `--client-timeout`.

use std::io::{ErrorKind, Write};
use std::time::{Duration, Instant};

/// How long one write may wait for the client to take bytes. A client that
/// reads (nginx always does) takes each answer at once; this only ever runs
/// out for one that stopped reading.
pub const WRITE_SLICE: Duration = Duration::from_millis(200);

/// An answer and the writer to send it on, with how much has gone out.
pub struct Pending {
    writer: Box<dyn Write + Send>,
    bytes: Vec<u8>,
    sent: usize,
}

pub enum Written {
    /// All sent, or the client has gone (nothing left to tell it).
    Done,
    /// A slice passed without the client taking a byte.
    Stalled(Pending),
}

fn stalled(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

impl Pending {
    pub fn new(bytes: Vec<u8>, writer: Box<dyn Write + Send>) -> Pending {
        Pending {
            writer,
            bytes,
            sent: 0,
        }
    }

    /// Writes until all is sent or one slice passes without progress.
    pub fn push(mut self) -> Written {
        while self.sent < self.bytes.len() {
            match self.writer.write(&self.bytes[self.sent..]) {
                Ok(0) => return Written::Done,
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if stalled(&e) => return Written::Stalled(self),
                Err(e) => {
                    log::debug!("client went away before the answer: {e}");
                    return Written::Done;
                }
            }
        }
        // tiny_http buffers small writes (1 KiB): flush sends what is left.
        match self.writer.flush() {
            Err(e) if stalled(&e) => Written::Stalled(self),
            _ => Written::Done,
        }
    }

    /// Writes until all is sent, or until `patience` passes without the client
    /// taking a byte. False if it gave up.
    pub fn finish(mut self, patience: Duration) -> bool {
        let (mut progress_at, mut progress) = (Instant::now(), self.sent);
        loop {
            match self.push() {
                Written::Done => return true,
                Written::Stalled(p) => self = p,
            }
            if self.sent != progress {
                (progress_at, progress) = (Instant::now(), self.sent);
            } else if progress_at.elapsed() >= patience {
                return false;
            }
        }
    }
}
