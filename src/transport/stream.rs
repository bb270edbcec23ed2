//! A streamed answer (the export) on a thread of its own, at a lower
//! priority, for as long as the client takes a byte every `--client-timeout`:
//! the head, then the body in chunks as it is read, then the last chunk and
//! the close. A body that fails to read mid-way ends without its last chunk,
//! so the client can tell. At most `MAX_EXPORTS` run (app/exports.rs).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::layer::Shared;
use super::limits::{LINGER_BYTES, LINGER_FOR};
use super::respond::Streamed;

/// How much of a streamed body is read and sent at a time.
const CHUNK: usize = 64 * 1024;

/// Starts the thread; Err when it cannot be started (the caller answers 503).
pub fn spawn(shared: &Arc<Shared>, socket: TcpStream, streamed: Streamed) -> Result<(), ()> {
    shared.streams.fetch_add(1, Ordering::SeqCst);
    let shared2 = shared.clone();
    let started = std::thread::Builder::new()
        .name("stream".into())
        .spawn(move || {
            yield_to_workers();
            let timeout = shared2.client_timeout;
            if let Err(e) = send(&socket, streamed, timeout) {
                log::debug!("an export ended early: {e}");
            }
            linger(&socket);
            shared2.streams.fetch_sub(1, Ordering::SeqCst);
        });
    started.map(|_| ()).map_err(|e| {
        shared.streams.fetch_sub(1, Ordering::SeqCst);
        log::error!("cannot start a thread for an export: {e}");
    })
}

fn send(mut socket: &TcpStream, streamed: Streamed, timeout: Duration) -> std::io::Result<()> {
    socket.set_nonblocking(false)?;
    socket.set_write_timeout(Some(timeout))?;
    socket.write_all(&streamed.head)?;
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
            // The body holds the export's slot and a database connection:
            // both are given back before the client can see the end, so a
            // client that starts its next export at once finds its slot free.
            drop(body);
            return socket.write_all(b"0\r\n\r\n");
        }
        let framed = [format!("{n:x}\r\n").as_bytes(), &chunk[..n], b"\r\n"].concat();
        socket.write_all(&framed)?;
    }
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
    const PRIO_PROCESS: i32 = 0;
    unsafe extern "C" {
        fn setpriority(which: i32, who: u32, prio: i32) -> i32;
    }
    // SAFETY: setpriority takes no pointer and changes only the scheduling
    // priority of this thread.
    if unsafe { setpriority(PRIO_PROCESS, 0, STREAM_NICE) } != 0 {
        let e = std::io::Error::last_os_error();
        log::debug!("a streaming thread keeps its priority: {e}");
    }
}

#[cfg(not(target_os = "linux"))]
fn yield_to_workers() {}
