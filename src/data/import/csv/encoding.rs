//! The one problem of a CSV file that is not UTF-8: which encoding its bytes
//! look like, and how to save the file as UTF-8. Spreadsheets on Windows
//! save "CSV" in Windows-1252 and "Unicode Text" in UTF-16; import reads
//! UTF-8 only, so a guess here is only named, never decoded into areas.

use csv::ByteRecord;

/// How to save a spreadsheet as UTF-8, said with every such problem, ending
/// with the `iconv` that converts from `encoding`.
fn save_as_utf8(encoding: &str) -> String {
    format!(
        "save it as UTF-8 and import it again (in Excel: Save As → CSV UTF-8 (Comma \
         delimited); in LibreOffice: Save As → Text CSV, Character set Unicode (UTF-8); \
         or iconv -f {encoding} -t UTF-8)"
    )
}

/// Windows-1252's characters for the bytes 0x80 to 0x9F, where it differs
/// from Latin-1; `\0` where it has none.
const WINDOWS_1252_80_9F: [char; 32] = [
    '€', '\0', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\0', 'Ž', '\0', '\0', '‘',
    '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\0', 'ž', 'Ÿ',
];

/// The problem of a file starting with a UTF-16 byte-order mark, if it does.
pub fn utf16(start: &[u8]) -> Option<String> {
    (start.starts_with(b"\xff\xfe") || start.starts_with(b"\xfe\xff")).then(|| {
        format!(
            "the file is not UTF-8: it is UTF-16 (it starts with UTF-16's byte-order mark, \
             as Excel's \"Unicode Text\" is saved); {}",
            save_as_utf8("UTF-16")
        )
    })
}

/// The problem of a record that is not UTF-8, if it is not.
pub fn not_utf8(record: &ByteRecord) -> Option<String> {
    let (field, at) = record
        .iter()
        .find_map(|f| std::str::from_utf8(f).err().map(|e| (f, e.valid_up_to())))?;
    let guess = match windows_1252(word_around(field, at)) {
        Some(word) => format!(
            "it looks like Windows-1252, as Excel saves \"CSV (Comma delimited)\" \
             (byte 0x{:02X} reads as '{word}' in it)",
            field[at]
        ),
        None => format!("byte 0x{:02X} is no UTF-8", field[at]),
    };
    // Windows-1252 is the likely one even unrecognised: Excel's CSV on Windows.
    let save = save_as_utf8("WINDOWS-1252");
    Some(format!("the file is not UTF-8: {guess}; {save}"))
}

/// The word of `field` holding byte `at`, at most 40 bytes of it.
fn word_around(field: &[u8], at: usize) -> &[u8] {
    let space = |b: &u8| b.is_ascii_whitespace();
    let start = field[..at].iter().rposition(space).map_or(0, |i| i + 1);
    let end = field[at..]
        .iter()
        .position(space)
        .map_or(field.len(), |i| at + i);
    let start = start.max(at.saturating_sub(20));
    &field[start..end.min(at + 20)]
}

/// `bytes` read as Windows-1252, unless it has a byte that encoding lacks.
fn windows_1252(bytes: &[u8]) -> Option<String> {
    bytes
        .iter()
        .map(|&b| match b {
            0x80..=0x9F => Some(WINDOWS_1252_80_9F[usize::from(b - 0x80)]).filter(|c| *c != '\0'),
            _ => Some(char::from(b)),
        })
        .collect()
}
