//! The records of an import's CSV, read in bounded memory: `csv_core` splits
//! the stream into fields, written into buffers that never grow past one
//! row's cap (`ROW_BYTES_MAX` bytes, `FIELDS_MAX` fields). A record past
//! either is read to its end and only measured, so that a field of a
//! gigabyte costs no more memory than a short one. Comment and blank lines
//! between records are skipped here, so that a record's place in the file
//! starts at its own first byte and its line is its own. A quoted field still
//! open at the end of the file is told apart from a last record that merely
//! lacks its line break.

use std::io::{self, BufRead};

use csv::{ByteRecord, Position};
use csv_core::{ReadRecordResult, Reader};

use super::ROW_BYTES_MAX;

/// The most fields a record may have: far more than the columns an import
/// knows, and few enough that their ends stay small however a row is made.
pub const FIELDS_MAX: usize = 1024;

const BYTE_ORDER_MARK: &[u8] = b"\xef\xbb\xbf";
const COMMENT: u8 = b'#';

/// One record: where it starts (byte and line), its bytes in the file, and
/// what was read of it.
pub struct Next {
    pub start: u64,
    pub line: u64,
    pub len: u64,
    pub read: Read,
}

pub enum Read {
    /// Within the caps: the fields, untrimmed, with the record's position.
    Held(ByteRecord),
    /// Past a cap, not held: how many fields it has (`len` has its bytes).
    /// With `measure` off, reading stopped at the cap and `len` and `fields`
    /// count only what was read by then.
    TooBig { fields: u64 },
    /// A quoted field opened in this record is not closed before the end of
    /// the file, which would otherwise end the record silently.
    OpenQuote,
}

/// Reads records one at a time from `input`.
pub struct Records<R> {
    input: R,
    core: Reader,
    byte: u64,
    line: u64,
    /// Whether the last byte read was a `\r`, so that the `\n` of a CRLF
    /// is not counted as a second line break.
    after_cr: bool,
    fields: Vec<u8>,
    ends: Vec<usize>,
    /// The bytes of the records read while kept (`keep_raw`): the header's,
    /// to tell its separator.
    raw: Option<Vec<u8>>,
    /// Where the fields of a record that is not held are written, and dropped.
    scratch: Vec<u8>,
    scratch_ends: Vec<usize>,
}

/// How a record is being read: into the buffers, or only counted; and
/// whether the end of the input found a quoted field open.
#[derive(Default)]
struct Progress {
    len: u64,
    out: usize,
    nends: usize,
    fields: u64,
    held: bool,
    break_given: bool,
    open_quote: bool,
}

impl<R: BufRead> Records<R> {
    pub fn new(input: R) -> Records<R> {
        let core = csv_core::ReaderBuilder::new()
            .comment(Some(COMMENT))
            .build();
        Records {
            input,
            core,
            byte: 0,
            line: 1,
            after_cr: false,
            raw: None,
            fields: vec![0; 4096],
            ends: vec![0; 64],
            scratch: vec![0; 64 * 1024],
            scratch_ends: vec![0; 1024],
        }
    }

    /// Keeps the bytes of the records read from now on (`on`), or stops
    /// and returns those kept. Only bytes within the row cap are kept.
    pub fn keep_raw(&mut self, on: bool) -> Vec<u8> {
        let kept = self.raw.take().unwrap_or_default();
        if on {
            self.raw = Some(Vec::new());
        }
        kept
    }

    /// Splits the records from the next one on at `delimiter` (between
    /// records, so that csv_core starts afresh).
    pub fn set_delimiter(&mut self, delimiter: u8) {
        self.core = csv_core::ReaderBuilder::new()
            .comment(Some(COMMENT))
            .delimiter(delimiter)
            .build();
    }

    /// The next record, None at the end of the input. With `measure` off, a
    /// record past a cap is left as soon as it passes it (the header, which
    /// ends the reading when it cannot be used).
    pub fn next(&mut self, measure: bool) -> io::Result<Option<Next>> {
        self.skip_ignored()?;
        let (start, line) = (self.byte, self.line);
        let mut p = Progress {
            held: true,
            ..Progress::default()
        };
        loop {
            let res = self.step(&mut p)?;
            if p.len > ROW_BYTES_MAX || p.fields > FIELDS_MAX as u64 {
                p.held = false;
            }
            if !p.held && !measure {
                return Ok(Some(self.ended(start, line, &p)));
            }
            match res {
                ReadRecordResult::InputEmpty => {}
                ReadRecordResult::OutputFull => {
                    p.held &= grow(&mut self.fields, ROW_BYTES_MAX as usize)
                }
                ReadRecordResult::OutputEndsFull => p.held &= grow(&mut self.ends, FIELDS_MAX),
                ReadRecordResult::Record => {
                    return Ok(Some(self.ended(start, line, &p)));
                }
                ReadRecordResult::End => return Ok(None),
            }
        }
    }

    /// Hands csv_core what input there is, into the buffers while the record
    /// is held, else into the scratch ones, and counts what it took.
    fn step(&mut self, p: &mut Progress) -> io::Result<ReadRecordResult> {
        let input = fill(&mut self.input)?;
        // At the end of the input a line break is given in its place, once:
        // it ends the record as the end would, unless a quoted field is
        // open, which takes it in and so shows itself.
        let give_break = input.is_empty() && p.len > 0 && !p.break_given;
        let chunk: &[u8] = if give_break { b"\n" } else { input };
        let (res, nin, nout, nend) = match p.held {
            true => {
                self.core
                    .read_record(chunk, &mut self.fields[p.out..], &mut self.ends[p.nends..])
            }
            false => self
                .core
                .read_record(chunk, &mut self.scratch, &mut self.scratch_ends),
        };
        if give_break {
            p.break_given = nin > 0;
            p.open_quote = p.break_given && !matches!(res, ReadRecordResult::Record);
        } else {
            if let Some(raw) = self.raw.as_mut().filter(|_| p.held) {
                raw.extend_from_slice(&chunk[..nin]);
            }
            self.count_lines(nin);
            self.input.consume(nin);
            self.byte += nin as u64;
            p.len += nin as u64;
        }
        p.fields += nend as u64;
        if p.held {
            p.out += nout;
            p.nends += nend;
        }
        Ok(res)
    }

    /// What was read of a record once it ended (or, not measured, passed a cap).
    fn ended(&self, start: u64, line: u64, p: &Progress) -> Next {
        let read = if p.open_quote {
            Read::OpenQuote
        } else if !p.held {
            Read::TooBig { fields: p.fields }
        } else {
            let mut record = ByteRecord::with_capacity(p.out, p.nends);
            let mut from = 0;
            for &end in &self.ends[..p.nends] {
                record.push_field(&self.fields[from..end]);
                from = end;
            }
            let mut position = Position::new();
            position.set_byte(start).set_line(line);
            record.set_position(Some(position));
            Read::Held(record)
        };
        Next {
            start,
            line,
            len: p.len,
            read,
        }
    }

    /// Skips what lies between records and csv_core would skip too: the
    /// byte-order mark at the start, blank lines and comment lines.
    fn skip_ignored(&mut self) -> io::Result<()> {
        if self.byte == 0 && fill(&mut self.input)?.starts_with(BYTE_ORDER_MARK) {
            self.input.consume(BYTE_ORDER_MARK.len());
            self.byte += BYTE_ORDER_MARK.len() as u64;
        }
        loop {
            match fill(&mut self.input)?.first() {
                Some(b'\n' | b'\r') => self.skip(1),
                Some(&COMMENT) => self.skip_comment()?,
                _ => return Ok(()),
            }
        }
    }

    fn skip(&mut self, bytes: usize) {
        self.count_lines(bytes);
        self.input.consume(bytes);
        self.byte += bytes as u64;
    }

    /// Counts the line breaks in the next `n` buffered bytes, before they are
    /// consumed: each `\r\n`, `\n` or lone `\r` (the three endings csv_core
    /// ends a record at) is one, so that a line is a line of the file in an
    /// editor whatever wrote it (Excel and Sheets end lines with CRLF).
    fn count_lines(&mut self, n: usize) {
        let Ok(buf) = self.input.fill_buf() else {
            return;
        };
        for &b in &buf[..n.min(buf.len())] {
            match b {
                b'\r' => self.line += 1,
                b'\n' if !self.after_cr => self.line += 1,
                _ => {}
            }
            self.after_cr = b == b'\r';
        }
    }

    /// Skips a comment line up to its line break (`\r` or `\n`, as csv_core
    /// ends one), holding none of it.
    fn skip_comment(&mut self) -> io::Result<()> {
        loop {
            let chunk = fill(&mut self.input)?;
            if chunk.is_empty() {
                return Ok(());
            }
            match chunk.iter().position(|b| matches!(b, b'\n' | b'\r')) {
                Some(i) => {
                    self.skip(i);
                    return Ok(());
                }
                None => {
                    let n = chunk.len();
                    self.skip(n);
                }
            }
        }
    }
}

/// The buffered input, retried when a signal interrupts the read.
fn fill(input: &mut impl BufRead) -> io::Result<&[u8]> {
    loop {
        match input.fill_buf() {
            // The borrow checker cannot see that the loop ends here, so the
            // buffer is asked for again outside the match.
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    input.fill_buf()
}

/// Doubles `buf`, up to `max`; false when it is already there.
fn grow<T: Default + Clone>(buf: &mut Vec<T>, max: usize) -> bool {
    if buf.len() >= max {
        return false;
    }
    let len = (buf.len() * 2).min(max);
    buf.resize(len, T::default());
    true
}

#[cfg(test)]
#[path = "records_tests.rs"]
mod tests;
