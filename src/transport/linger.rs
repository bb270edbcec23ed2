//! The lingering close (RFC 9112, section 9.6): after a connection's last
//! answer its sending side is shut, and what the client still sends is read
//! and dropped, for `LINGER_FOR` or `LINGER_BYTES` at most, before the
//! close. A close with unread bytes would reset the connection, and a reset
//! can destroy the answer before the client has read it.

use std::io::{ErrorKind, Read};
use std::net::Shutdown;

use super::conn::{self, Conn, Next};
use super::limits::LINGER_BYTES;
use super::phase::Phase;

/// Shuts the sending side and starts reading what still comes.
pub fn begin(c: &mut Conn) -> Next {
    let _ = c.stream.shutdown(Shutdown::Write);
    c.start_lingering();
    read_and_drop(c)
}

/// Reads what has come and drops it: Close at the client's end or the
/// bound, Readable while more may come.
pub fn read_and_drop(c: &mut Conn) -> Next {
    let mut scratch = [0u8; 8192];
    loop {
        match c.stream.read(&mut scratch) {
            Ok(0) => return Next::Close,
            Ok(n) => {
                let Phase::Lingering { read, .. } = &mut c.phase else {
                    return Next::Close;
                };
                *read += n;
                if *read >= LINGER_BYTES {
                    return Next::Close;
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Next::Readable,
            Err(_) => return Next::Close,
        }
    }
}

/// Ends a lingering close early, without waiting: what is left of the
/// answer is written if the socket takes it, and what the client has sent
/// so far is read, so that the close that follows is a FIN wherever the
/// client has sent nothing more.
pub fn cut(c: &mut Conn) {
    if let Phase::Lingering { .. } = c.phase {
        let _ = read_and_drop(c);
    } else {
        let _ = conn::flush(c);
        let _ = begin(c);
    }
}
