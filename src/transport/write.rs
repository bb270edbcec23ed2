//! Writing an answer in slices, so that a client that does not read costs a
//! worker at most `WRITE_SLICE` (docs/http-layer.md, "Pipelining").
//!
//! Accepted sockets time out writes after `WRITE_SLICE` (listener.rs): a
//! write that makes no progress for that long returns, and the rest of the
//! answer is left to a thread of its own (serve.rs, `hand_off`), which keeps
//! writing for as long as the client takes a byte at least every
//! `--client-timeout`.

use std::io::{ErrorKind, Read, Write};
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
    /// Bytes sent in all, across the chunks of a stream: the measure of
    /// progress (`sent` starts again at each chunk).
    total: u64,
    /// A streamed body failed to read.
    broken: bool,
    /// The rest of a streamed answer, read and framed as HTTP/1.1 chunks
    /// once `bytes` (the head, then each chunk) is out.
    stream: Option<Box<dyn Read + Send>>,
}

/// How much of a streamed body is read and sent at a time.
const CHUNK: usize = 64 * 1024;

pub enum Written {
    /// All sent, or the client has gone (nothing left to tell it).
    Done,
    /// A streamed body could not be read to its end: the answer is cut short
    /// and the connection must not carry another.
    Broken,
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
            total: 0,
            broken: false,
            stream: None,
        }
    }

    /// A head to send, then `body` as it is read.
    pub fn streamed(
        head: Vec<u8>,
        writer: Box<dyn Write + Send>,
        body: Box<dyn Read + Send>,
    ) -> Pending {
        Pending {
            stream: Some(body),
            ..Pending::new(head, writer)
        }
    }

    pub fn is_streamed(&self) -> bool {
        self.stream.is_some()
    }

    /// Makes the next chunk of the stream into `bytes`; false at the end, or
    /// when the body cannot be read (then the answer is cut short, and the
    /// client, missing the last chunk, can tell).
    fn refill(&mut self) -> bool {
        let Some(body) = self.stream.as_mut() else {
            return false;
        };
        let mut chunk = vec![0; CHUNK];
        let n = match body.read(&mut chunk) {
            Ok(n) => n,
            Err(e) => {
                log::error!("a streamed answer stopped: {e}");
                self.stream = None;
                self.broken = true;
                return false;
            }
        };
        chunk.truncate(n);
        self.bytes = match n {
            0 => b"0\r\n\r\n".to_vec(),
            _ => [format!("{n:x}\r\n").as_bytes(), &chunk, b"\r\n"].concat(),
        };
        self.sent = 0;
        if n == 0 {
            self.stream = None;
        }
        !self.bytes.is_empty()
    }

    /// Writes until all is sent or one slice passes without progress.
    pub fn push(mut self) -> Written {
        while self.sent < self.bytes.len() || self.refill() {
            match self.writer.write(&self.bytes[self.sent..]) {
                Ok(0) => return Written::Done,
                Ok(n) => {
                    self.sent += n;
                    self.total += n as u64;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if stalled(&e) => return Written::Stalled(self),
                Err(e) => {
                    log::debug!("client went away before the answer: {e}");
                    return Written::Done;
                }
            }
        }
        if self.broken {
            return Written::Broken;
        }
        // tiny_http buffers small writes (1 KiB): flush sends what is left.
        match self.writer.flush() {
            Err(e) if stalled(&e) => Written::Stalled(self),
            _ => Written::Done,
        }
    }

    /// Writes until all is sent, or until `patience` passes without the client
    /// taking a byte. False if it gave up, or the answer was cut short.
    pub fn finish(mut self, patience: Duration) -> bool {
        let (mut progress_at, mut progress) = (Instant::now(), self.total);
        loop {
            match self.push() {
                Written::Done => return true,
                Written::Broken => return false,
                Written::Stalled(p) => self = p,
            }
            if self.total != progress {
                (progress_at, progress) = (Instant::now(), self.total);
            } else if progress_at.elapsed() >= patience {
                return false;
            }
        }
    }
}
