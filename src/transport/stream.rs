//! A streamed answer (the export) on a thread of its own, at a lower
//! priority: the head, then the body in chunks as it is read, then the last
//! chunk and the close. A body that fails to read mid-way ends without its
//! last chunk, so the client can tell. At most `MAX_EXPORTS` run
//! (app/exports.rs), so a client that takes its answer too slowly is closed
//! (reset, not lingered: what the kernel holds for it is dropped with it):
//! one that takes nothing for `--client-timeout`, or less than the pace of
//! export_pace.rs. Both are logged and counted in `area_exports_too_slow_total`.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::export_pace::{Pace, TooSlow, Watch};
use super::layer::Shared;
use super::limits::{LINGER_BYTES, LINGER_FOR};
use super::service::Streamed;

/// How much of a streamed body is read and sent at a time.
const CHUNK: usize = 64 * 1024;
/// How long one write waits on the client at most before the thread looks
/// at its pace and timeout.
const WRITE_WAIT: Duration = Duration::from_millis(250);

/// Why an export ended before its end.
enum Stop {
    /// Nothing taken for `--client-timeout`.
    Stalled,
    TooSlow(TooSlow),
    /// The client went away, or the socket failed.
    Failed(std::io::Error),
}

/// Starts the thread; Err when it cannot be started (the caller answers 503).
pub fn spawn(shared: &Arc<Shared>, socket: TcpStream, streamed: Streamed) -> Result<(), ()> {
    shared.streams.fetch_add(1, Ordering::SeqCst);
    let shared2 = shared.clone();
    let started = std::thread::Builder::new()
        .name("stream".into())
        .spawn(move || {
            yield_to_workers();
            let mut out = Writer {
                socket: &socket,
                watch: Watch::new(shared2.bounds.limits.export_pace),
                client_timeout: shared2.bounds.client_timeout,
                progress_at: Instant::now(),
            };
            match send(&mut out, streamed) {
                Ok(()) => linger(&socket),
                Err(Stop::Failed(e)) => {
                    log::debug!("an export ended early: {e}");
                    linger(&socket);
                }
                Err(stop) => {
                    too_slow(&shared2, &stop, shared2.bounds.limits.export_pace);
                    reset(&socket);
                }
            }
            shared2.streams.fetch_sub(1, Ordering::SeqCst);
        });
    started.map(|_| ()).map_err(|e| {
        shared.streams.fetch_sub(1, Ordering::SeqCst);
        log::error!("cannot start a thread for an export: {e}");
    })
}

/// The body is dropped (its export slot and database connection given
/// back) when this returns, before any close.
fn send(out: &mut Writer, streamed: Streamed) -> Result<(), Stop> {
    out.socket.set_nonblocking(false).map_err(Stop::Failed)?;
    out.socket
        .set_write_timeout(Some(WRITE_WAIT))
        .map_err(Stop::Failed)?;
    out.write_all(&streamed.head)?;
    let mut body = streamed.body;
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = match body.read(&mut chunk) {
            Ok(n) => n,
            Err(e) => {
                log::error!("a streamed answer stopped: {e}");
                return Ok(());
            }
        };
        if n == 0 {
            // Given back before the client can see the end, so a client
            // that starts its next export at once finds its slot free.
            drop(body);
            return out.write_all(b"0\r\n\r\n");
        }
        let framed = [format!("{n:x}\r\n").as_bytes(), &chunk[..n], b"\r\n"].concat();
        out.write_all(&framed)?;
    }
}

/// The socket, and how the client has taken what was written so far.
struct Writer<'a> {
    socket: &'a TcpStream,
    watch: Watch,
    client_timeout: Duration,
    /// When the client last took a byte.
    progress_at: Instant,
}

impl Writer<'_> {
    fn write_all(&mut self, mut bytes: &[u8]) -> Result<(), Stop> {
        while !bytes.is_empty() {
            let started = Instant::now();
            let written = self.socket.write(bytes);
            let took = started.elapsed();
            let sent = match written {
                Ok(0) => return Err(Stop::Failed(ErrorKind::WriteZero.into())),
                Ok(n) => {
                    bytes = &bytes[n..];
                    self.progress_at = Instant::now();
                    n
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) =>
                {
                    0
                }
                Err(e) => return Err(Stop::Failed(e)),
            };
            self.watch.wrote(sent, took).map_err(Stop::TooSlow)?;
            if self.progress_at.elapsed() >= self.client_timeout {
                return Err(Stop::Stalled);
            }
        }
        Ok(())
    }
}

fn too_slow(shared: &Shared, stop: &Stop, pace: Pace) {
    shared
        .answering
        .counts
        .exports_too_slow
        .fetch_add(1, Ordering::Relaxed);
    match stop {
        Stop::TooSlow(TooSlow { took, over }) => log::info!(
            "an export closed: its client took {took} bytes in {:.1} s of waiting, \
             under {} bytes a second",
            over.as_secs_f64(),
            pace.min_rate
        ),
        _ => log::info!(
            "an export closed: its client took nothing for {} s",
            shared.bounds.client_timeout.as_secs()
        ),
    }
}

/// Closes with a reset: the client is not taking the answer, and what the
/// kernel still holds for it would otherwise wait on it.
fn reset(socket: &TcpStream) {
    let _ = socket2::SockRef::from(socket).set_linger(Some(Duration::ZERO));
}

/// Shuts the sending side and reads what still comes, briefly, so that the
/// close does not reset the end of the answer away.
fn linger(mut socket: &TcpStream) {
    let _ = socket.shutdown(Shutdown::Write);
    let _ = socket.set_read_timeout(Some(LINGER_FOR));
    let mut scratch = [0u8; 8192];
    let mut read = 0;
    while read < LINGER_BYTES {
        match socket.read(&mut scratch) {
            Ok(0) | Err(_) => return,
            Ok(n) => read += n,
        }
    }
}

/// The nice value of a thread that streams an answer. Making an export is
/// CPU work (reading and formatting every area); at nice 0, four of them on
/// two cores took Get Area's p99 beside them from 1.6 ms to 318 ms at
/// 100,000 areas, and at nice 10 to 20 ms (bench/RESULTS.md, "Export"): the
/// scheduler gives the workers the CPU first, and the exports what is left.
const STREAM_NICE: i32 = 10;

/// Lowers the calling thread's priority. On Linux the nice value belongs to
/// each thread, and setpriority with PRIO_PROCESS and 0 sets the caller's.
#[cfg(target_os = "linux")]
fn yield_to_workers() {
    // SAFETY: setpriority takes no pointer and changes only the scheduling
    // priority of this thread.
    if unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, STREAM_NICE) } != 0 {
        let e = std::io::Error::last_os_error();
        log::debug!("a streaming thread keeps its priority: {e}");
    }
}

#[cfg(not(target_os = "linux"))]
fn yield_to_workers() {}
