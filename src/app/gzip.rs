//! gzip (RFC 1952) of answer bodies: a whole body with the worker's own
//! compressor, kept between answers; a file built into the binary once, at
//! the best level; and a streamed body (the export) as it is read.

use std::cell::RefCell;
use std::io::Read;

use flate2::{Compress, Compression, Crc, FlushCompress, Status};

/// The level of answers made per request, whole or streamed. With flate2 on
/// the seed, level 1 took a List page of 100 rows (16.8 KB) to 2.7 KB in
/// 35 µs, level 6 to 2.1 KB in 124 µs. An export at level 1 cost its thread
/// a quarter to a half more CPU (4.5 to 6.8 ms an export on the seed, 1 to
/// 2.7 ms more), and that thread is one core at most, at a lower priority
/// than the workers (transport/stream.rs).
pub const LEVEL: u32 = 1;

/// The level of bodies compressed once and kept (the pages' files and the
/// OpenAPI document): their cost is paid once per process.
const KEPT_LEVEL: u32 = 9;

/// The member header: magic, deflate, no flags, no time, no extra flags,
/// unknown system.
const HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];

/// Room for the header and the trailer (CRC-32 and length).
const FRAME_BYTES: usize = HEADER.len() + 8;

thread_local! {
    /// This thread's compressor: made once (about 300 KB of tables), reset
    /// for each answer.
    static COMPRESSOR: RefCell<Compress> = RefCell::new(Compress::new(Compression::new(LEVEL), false));
}

/// `body` gzipped at `LEVEL` with this thread's compressor; None if the
/// compressor fails (then the answer goes as it is).
pub fn gzip(body: &[u8]) -> Option<Vec<u8>> {
    COMPRESSOR.with_borrow_mut(|compressor| {
        compressor.reset();
        member(compressor, body)
    })
}

/// `body` gzipped at the best level, for a body kept for the process's life.
pub fn gzip_kept(body: &[u8]) -> Option<Vec<u8>> {
    member(
        &mut Compress::new(Compression::new(KEPT_LEVEL), false),
        body,
    )
}

/// One gzip member of `body`, made with a fresh or reset raw-deflate compressor.
fn member(compressor: &mut Compress, body: &[u8]) -> Option<Vec<u8>> {
    // Answers shrink three to ten times: the first guess rarely grows.
    let mut out = Vec::with_capacity(body.len() / 3 + FRAME_BYTES + 64);
    out.extend_from_slice(&HEADER);
    loop {
        let taken = usize::try_from(compressor.total_in()).ok()?;
        match compressor.compress_vec(&body[taken..], &mut out, FlushCompress::Finish) {
            Ok(Status::StreamEnd) => break,
            // Out of room: more, and on.
            Ok(Status::Ok | Status::BufError) => out.reserve(out.capacity().max(64)),
            Err(e) => {
                log::error!("gzip of an answer failed, so it goes uncompressed: {e}");
                return None;
            }
        }
    }
    let mut crc = Crc::new();
    crc.update(body);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    // The length modulo 2^32, as RFC 1952 has it.
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    Some(out)
}

/// A streamed body gzipped at `LEVEL` as it is read.
pub fn gzip_stream(body: Box<dyn Read + Send>) -> Box<dyn Read + Send> {
    Box::new(flate2::read::GzEncoder::new(body, Compression::new(LEVEL)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::read::GzDecoder;

    fn gunzip(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        GzDecoder::new(bytes).read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn each_answer_decompresses_to_its_body_with_the_one_compressor() {
        let page = "{\"id\":\"za-gp-soweto\",\"truth_score\":7.25},".repeat(400);
        let bodies: [&[u8]; 4] = [b"", b"x", page.as_bytes(), &[0xff; 70_000]];
        for body in bodies {
            let once = gzip(body).unwrap();
            assert_eq!(gunzip(&once), body, "{} bytes", body.len());
            let again = gzip(body).unwrap();
            assert_eq!(again, once, "a reset compressor makes the same bytes");
            assert_eq!(gunzip(&gzip_kept(body).unwrap()), body);
        }
        assert!(gzip(page.as_bytes()).unwrap().len() * 10 < page.len());
    }

    #[test]
    fn a_stream_decompresses_to_what_it_read() {
        let body: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let mut zipped = Vec::new();
        gzip_stream(Box::new(std::io::Cursor::new(body.clone())))
            .read_to_end(&mut zipped)
            .unwrap();
        assert_eq!(gunzip(&zipped), body);
    }
}
