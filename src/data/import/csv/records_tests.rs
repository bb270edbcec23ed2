//! Unit tests of the bounded CSV record reader: fields, positions, caps.

use super::*;

fn all(bytes: &[u8]) -> Vec<Next> {
    let mut records = Records::new(bytes);
    let mut out = Vec::new();
    while let Some(next) = records.next(true).unwrap() {
        out.push(next);
    }
    out
}

fn fields(next: &Next) -> Vec<String> {
    match &next.read {
        Read::Held(r) => r
            .iter()
            .map(|f| String::from_utf8_lossy(f).into())
            .collect(),
        Read::TooBig { .. } => vec!["<too big>".into()],
        Read::OpenQuote => vec!["<open quote>".into()],
    }
}

#[test]
fn records_start_at_their_own_byte_and_line_past_comments_and_blank_lines() {
    let text = b"\xef\xbb\xbfa,b\r\n# note\n\n\"x\ny\",z\n# end\n";
    let records = all(text);
    assert_eq!(records.len(), 2);
    assert_eq!(fields(&records[0]), ["a", "b"]);
    assert_eq!((records[0].start, records[0].line), (3, 1));
    assert_eq!(fields(&records[1]), ["x\ny", "z"]);
    let start = text.windows(2).position(|w| w == b"\"x").unwrap() as u64;
    assert_eq!((records[1].start, records[1].line), (start, 4));
    assert_eq!(records[1].len, b"\"x\ny\",z\n".len() as u64);
}

#[test]
fn a_last_record_without_a_line_break_is_whole_and_an_open_quote_is_not() {
    let records = all(b"a,b\nc,\"d\"");
    assert_eq!(fields(&records[1]), ["c", "d"]);
    let records = all(b"a,b\nc,\"d,e\nf\n");
    assert!(matches!(records[1].read, Read::OpenQuote));
    assert_eq!(records[1].line, 2);
}

#[test]
fn a_record_past_a_cap_is_measured_and_the_next_one_read() {
    let long = ROW_BYTES_MAX as usize + 10;
    let mut text = b"a,b\n\"".to_vec();
    text.extend(std::iter::repeat_n(b'x', long));
    text.extend_from_slice(b"\"\nc,d\n");
    let commas = ",".repeat(FIELDS_MAX + 5);
    text.extend_from_slice(format!("{commas}\ne,f\n").as_bytes());
    let records = all(&text);
    assert_eq!(records.len(), 5);
    assert!(matches!(records[1].read, Read::TooBig { fields: 1 }));
    assert_eq!(records[1].len, long as u64 + 3);
    assert_eq!(fields(&records[2]), ["c", "d"]);
    assert_eq!(records[2].line, 3);
    assert!(matches!(records[3].read, Read::TooBig { fields } if fields == FIELDS_MAX as u64 + 6));
    assert_eq!(fields(&records[4]), ["e", "f"]);
}

#[test]
fn unmeasured_a_record_is_left_as_soon_as_it_passes_the_cap() {
    let text = vec![0u8; 2 * ROW_BYTES_MAX as usize];
    let mut records = Records::new(&text[..]);
    let first = records.next(false).unwrap().unwrap();
    assert!(matches!(first.read, Read::TooBig { .. }));
    assert!(first.len < text.len() as u64, "{}", first.len);
}

#[test]
fn lines_are_the_files_lines_whatever_ends_them() {
    let lines = |text: &[u8]| all(text).iter().map(|n| n.line).collect::<Vec<_>>();
    assert_eq!(lines(b"a,b\r\nc,d\r\n\r\ne,f\r\n"), [1, 2, 4]);
    assert_eq!(lines(b"a,b\rc,d\r# note\re,f\r"), [1, 2, 4]);
    assert_eq!(lines(b"a,b\nc,d\r\ne,f\n"), [1, 2, 3]);
    // A quoted line break counts, as an editor shows it.
    assert_eq!(lines(b"a,b\r\n\"c\r\nd\",e\r\nf,g\r\n"), [1, 2, 4]);
}
