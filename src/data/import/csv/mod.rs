//! The CSV format (RFC 4180): a header line naming the columns, then one row
//! per area. Each dimension takes three columns (`safety`, `safety_weight`,
//! `safety_sources` with `;` between identifiers); `history` holds
//! `DATE:SCORE` items separated by `;`. Lines starting with `#` are comments.
//! Files as spreadsheets write them are read too: `;` between cells (told
//! from the header line), decimal commas, rows of empty cells, an unnamed
//! last column; a file in another encoding is one problem naming it.
//! This module turns rows into `Draft`s and reports what cannot be read,
//! reading the file as a stream, and a row again from its bytes.

use std::io::{BufRead, Cursor, SeekFrom};

use csv::{ByteRecord, Position, ReaderBuilder, StringRecord, Trim};

use super::area::{Draft, DraftDimension, Row, Span};
use super::{ImportError, ROW_BYTES_MAX, too_long};
use crate::data::boundary;
use crate::domain::DIMENSIONS;
pub(super) use cells::Decimals;
use cells::{history, iso_date, list, other_names};
use records::{FIELDS_MAX, Next, Read, Records};

mod cells;
mod encoding;
mod records;

const REQUIRED: [&str; 6] = ["id", "name", "province", "municipality", "lat", "lng"];
const OPTIONAL: [&str; 4] = ["updated_at", "truth_score", "history", "other_names"];
/// The names of the boundary's column: its own, and the one ogr2ogr gives
/// it (`ogr2ogr -f CSV -lco GEOMETRY=AS_WKT`). A header has one at most.
const BOUNDARY_COLUMNS: [&str; 2] = ["boundary", "WKT"];
/// The columns a file with a boundary column may leave out: the centre is
/// then a point inside each row's boundary.
const CENTRE: [&str; 2] = ["lat", "lng"];

/// How a CSV file is read, beyond what it says itself: the import's flags
/// (docs/import.md, "CSV").
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CsvOptions {
    /// Columns read past, by their names in the header (`--ignore-column`).
    pub ignore_columns: Vec<String>,
    /// The separator (`--delimiter`); else `;` when the header line has one
    /// and no `,`, else `,`.
    pub delimiter: Option<u8>,
    /// Every decimal is written with a comma (`--decimal-comma`); else a
    /// file may write them either way, one way throughout.
    pub decimal_comma: bool,
}

/// The header: column names in file order, kept to read a row again. A
/// column with no name (None) is read past: the empty cells a spreadsheet
/// leaves after its last named column.
pub struct Header {
    columns: Vec<Option<String>>,
    /// How many columns a row may stop after: the named ones, when empty
    /// columns trail them.
    named: usize,
    /// Rows holding nothing but separators, skipped (the import's summary
    /// says how many).
    pub empty_rows: u64,
    delimiter: u8,
    decimals: Decimals,
    /// Rows that look separated by the other separator: the first's line, and how many.
    other_separator: Option<(u64, u64)>,
}

impl Header {
    fn index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.as_deref() == Some(name))
    }

    /// The notes of the import's summary about the rows read past.
    pub fn notes(&self) -> Vec<String> {
        match self.empty_rows {
            0 => vec![],
            1 => vec!["skipped 1 row of empty cells".into()],
            n => vec![format!("skipped {n} rows of empty cells")],
        }
    }
}

/// How a row is read again from its bytes: as `records` read it in the
/// whole file, with the same csv_core settings (RFC 4180 quotes, `#`
/// comments) and every field trimmed.
fn builder(delimiter: u8) -> ReaderBuilder {
    let mut b = ReaderBuilder::new();
    b.has_headers(false)
        .delimiter(delimiter)
        .flexible(true)
        .trim(Trim::All)
        .comment(Some(b'#'));
    b
}

/// Reads every row from start to end, handing each to `visit` with its
/// bytes' place in the file; returns the header, which `row_at` needs. A
/// header that cannot be used gives one `Row` with its problems and no
/// others: without the columns no row can be understood. A row past a cap
/// (`records`) is its own problem and is not held. An error reading the
/// file itself (not its content) stops the reading.
pub fn each_row(
    input: impl BufRead,
    options: &CsvOptions,
    mut visit: impl FnMut(Row, Span),
) -> Result<Option<Header>, ImportError> {
    let mut input = input;
    let cannot_read = ImportError::ReadFile;
    if let Some(problem) = encoding::utf16(input.fill_buf().map_err(cannot_read)?) {
        visit(unread(0, vec![problem]), Span::NONE);
        return Ok(None);
    }
    let mut records = Records::new(input);
    let Some((first, delimiter)) = first_record(&mut records, options).map_err(cannot_read)? else {
        return Ok(None);
    };
    let line = first.line;
    // A file in another encoding is one problem, not one a row.
    if let Some(problem) = not_utf8(&first) {
        visit(unread(line, vec![problem]), Span::NONE);
        return Ok(None);
    }
    let header = match header_of(first, options, delimiter) {
        Ok(header) => header,
        Err(problems) => {
            visit(unread(line, problems), Span::NONE);
            return Ok(None);
        }
    };
    let mut header = header;
    while let Some(next) = records.next(true).map_err(cannot_read)? {
        if let Some(problem) = not_utf8(&next) {
            visit(unread(next.line, vec![problem]), Span::NONE);
            return Ok(None);
        }
        let (line, span) = (
            next.line,
            Span {
                start: next.start,
                len: next.len,
            },
        );
        match held(next) {
            // A row Excel leaves behind when rows are deleted: only separators.
            Ok(record) if record.iter().all(str::is_empty) => header.empty_rows += 1,
            Ok(record) if other_separator(&header, &record) => {
                let (first, more) = header.other_separator.get_or_insert((line, 0));
                *more += u64::from(*first != line);
            }
            Ok(record) => visit(to_row(&header, &record), span),
            Err(problem) => visit(unread(line, vec![problem]), Span::NONE),
        }
    }
    for (line, problem) in file_problems(&header) {
        visit(unread(line, vec![problem]), Span::NONE);
    }
    Ok(Some(header))
}

/// The header's record, split at the file's separator: `options`' or the
/// one its bytes tell, which the records after it are split at too.
fn first_record<R: BufRead>(
    records: &mut Records<R>,
    options: &CsvOptions,
) -> std::io::Result<Option<(Next, u8)>> {
    records.keep_raw(true);
    let Some(mut first) = records.next(false)? else {
        return Ok(None);
    };
    let raw = records.keep_raw(false);
    let delimiter = match options.delimiter {
        Some(d) => d,
        None if raw.contains(&b';') && !raw.contains(&b',') => b';',
        None => b',',
    };
    if delimiter != b',' {
        records.set_delimiter(delimiter);
        if let Read::Held(record) = &mut first.read {
            *record = split_header(&raw, delimiter);
        }
    }
    Ok(Some((first, delimiter)))
}

/// The problems of the whole file, known once every row is read: rows at
/// the other separator, decimals written both ways.
fn file_problems(header: &Header) -> Vec<(u64, String)> {
    let mut problems = Vec::new();
    if let Some((line, more)) = header.other_separator {
        let (own, other) = match header.delimiter {
            b';' => ("';'", "','"),
            _ => ("','", "';'"),
        };
        let also = match more {
            0 => String::new(),
            1 => " (and 1 more line)".to_string(),
            n => format!(" (and {n} more lines)"),
        };
        let problem = format!(
            "this row is separated by {other} but the header by {own}{also}: \
             a file uses one separator throughout (or say which with --delimiter)"
        );
        problems.push((line, problem));
    }
    if let Some(problem) = header.decimals.mixed() {
        problems.push((0, problem));
    }
    problems
}

/// A row that could not be read, with why.
fn unread(line: u64, problems: Vec<String>) -> Row {
    Row {
        line,
        draft: None,
        problems,
    }
}

/// The header's fields split at `delimiter` from its bytes in the file, as
/// the rows after it are.
fn split_header(raw: &[u8], delimiter: u8) -> ByteRecord {
    let mut reader = builder(delimiter).from_reader(raw);
    let mut record = ByteRecord::new();
    match reader.read_byte_record(&mut record) {
        Ok(true) => record,
        _ => ByteRecord::new(),
    }
}

/// Whether a row whose fields do not match the header's reads right at the
/// other separator: a file that mixes them.
fn other_separator(header: &Header, r: &StringRecord) -> bool {
    if r.len() == header.columns.len() || r.len() == header.named {
        return false;
    }
    let own = if header.delimiter == b';' { ";" } else { "," };
    let other = if header.delimiter == b';' { ',' } else { ';' };
    let text = r.iter().collect::<Vec<_>>().join(own);
    let fields = text.split(other).count();
    fields == header.named || fields == header.columns.len()
}

/// The problem of a record that is not UTF-8, which names the file's encoding.
fn not_utf8(next: &Next) -> Option<String> {
    match &next.read {
        Read::Held(bytes) => encoding::not_utf8(bytes),
        _ => None,
    }
}

/// The header's column names, or its problems.
fn header_of(first: Next, options: &CsvOptions, delimiter: u8) -> Result<Header, Vec<String>> {
    match &first.read {
        Read::TooBig { .. } if first.len > ROW_BYTES_MAX => Err(vec![format!(
            "the header is more than {ROW_BYTES_MAX} bytes (16 MiB), the most a row may hold"
        )]),
        Read::TooBig { .. } => Err(vec![format!(
            "the header has more than {FIELDS_MAX} columns (see docs/import.md for the columns)"
        )]),
        _ => {
            let record = held(first).map_err(|problem| vec![problem])?;
            let names: Vec<&str> = record.iter().collect();
            let (columns, named) = columns_of(&names, options);
            let problems = header_problems(&names, &columns, named, options, delimiter);
            match problems.is_empty() {
                true => Ok(Header {
                    columns,
                    named,
                    empty_rows: 0,
                    delimiter,
                    decimals: Decimals {
                        comma: options.decimal_comma,
                        ..Decimals::default()
                    },
                    other_separator: None,
                }),
                false => Err(problems),
            }
        }
    }
}

/// The columns read (None for one read past: ignored, or empty after the
/// last name), and how many there are up to the last name.
fn columns_of(names: &[&str], options: &CsvOptions) -> (Vec<Option<String>>, usize) {
    // Empty cells after the last name are columns of nothing.
    let named = names
        .iter()
        .rposition(|c| !c.is_empty())
        .map_or(0, |i| i + 1);
    let ignored = |c: &str| options.ignore_columns.iter().any(|i| i == c);
    let columns = names
        .iter()
        .enumerate()
        .map(|(i, c)| (i < named && !ignored(c)).then(|| c.to_string()))
        .collect();
    (columns, named)
}

/// Every problem of the header as read at `delimiter`, beyond its caps.
fn header_problems(
    names: &[&str],
    columns: &[Option<String>],
    named: usize,
    options: &CsvOptions,
    delimiter: u8,
) -> Vec<String> {
    let mut problems = unnamed_columns(&names[..named]);
    for name in &options.ignore_columns {
        if !names.contains(&name.as_str()) {
            problems.push(format!(
                "--ignore-column '{name}': the header has no such column"
            ));
        }
    }
    let kept: Vec<&str> = columns.iter().flatten().map(String::as_str).collect();
    let other = if delimiter == b';' { ',' } else { ';' };
    match names.iter().any(|c| c.contains(other)) && options.delimiter.is_none() {
        true => problems.push(
            "the header separates its names with both ';' and ',': \
             a file uses one separator throughout (or say which with --delimiter)"
                .into(),
        ),
        false => problems.extend(check_header(&kept)),
    }
    problems
}

/// The record as text, trimmed as every CSV of an import is (`builder`), or
/// why it cannot be read.
fn held(next: Next) -> Result<StringRecord, String> {
    match next.read {
        Read::Held(bytes) => match StringRecord::from_byte_record(bytes) {
            Ok(mut record) => {
                record.trim();
                Ok(record)
            }
            Err(e) => Err(format!("cannot read this row: {}", e.utf8_error())),
        },
        Read::TooBig { .. } if next.len > ROW_BYTES_MAX => Err(too_long(next.len)),
        Read::TooBig { fields } => Err(format!(
            "{fields} fields, more than the {FIELDS_MAX} a row may have"
        )),
        Read::OpenQuote => Err(
            "a quoted field opened in this row is not closed before the end of the file: \
             a '\"' is missing"
                .into(),
        ),
    }
}

/// Reads rows again from their bytes (from a row's start up to the next
/// row), as `each_row` read them, with one csv reader for all: building a
/// reader costs more than reading a row. A row's line is not known here (0).
pub struct Rereader<'h> {
    header: &'h Header,
    reader: csv::Reader<Cursor<Vec<u8>>>,
    record: StringRecord,
}

impl<'h> Rereader<'h> {
    pub fn new(header: &'h Header) -> Rereader<'h> {
        Rereader {
            header,
            reader: builder(header.delimiter).from_reader(Cursor::new(Vec::new())),
            record: StringRecord::new(),
        }
    }

    pub fn row_at(&mut self, bytes: &[u8]) -> Row {
        let buf = self.reader.get_mut().get_mut();
        buf.clear();
        buf.extend_from_slice(bytes);
        let fail = |message: String| Row {
            line: 0,
            draft: None,
            problems: vec![message],
        };
        // Back to the start, with the reader's state and buffer reset.
        if let Err(e) = self.reader.seek_raw(SeekFrom::Start(0), Position::new()) {
            return fail(format!("cannot read this row: {e}"));
        }
        match self.reader.read_record(&mut self.record) {
            Ok(true) => to_row(self.header, &self.record),
            Ok(false) => fail("the row is no longer there".into()),
            Err(e) => unreadable(&e),
        }
    }
}

/// Every row of a file held in memory (the unit tests' reader).
#[cfg(test)]
pub fn read(bytes: &[u8]) -> Vec<Row> {
    let mut rows = Vec::new();
    each_row(bytes, &CsvOptions::default(), |row, _| rows.push(row))
        .expect("bytes in memory always read");
    rows
}

fn to_row(header: &Header, r: &StringRecord) -> Row {
    if r.len() != header.columns.len() && r.len() != header.named {
        return Row {
            line: line_of(r),
            draft: None,
            problems: vec![format!(
                "{} fields, but the header has {}",
                r.len(),
                header.named
            )],
        };
    }
    let (draft, mut problems) = row(header, r);
    if let Some(i) = (header.named..r.len()).find(|i| !r[*i].is_empty()) {
        problems.push(format!(
            "field {} holds '{}', but its column has no name in the header",
            i + 1,
            &r[i]
        ));
    }
    Row {
        line: line_of(r),
        draft: Some(draft),
        problems,
    }
}

fn line_of(r: &StringRecord) -> u64 {
    r.position().map_or(0, |p| p.line())
}

fn unreadable(e: &csv::Error) -> Row {
    let line = e.position().map_or(0, |p| p.line());
    Row {
        line,
        draft: None,
        problems: vec![format!("cannot read this row: {e}")],
    }
}

/// An empty name between named columns, which no row's cell can be about.
fn unnamed_columns(names: &[&str]) -> Vec<String> {
    let unnamed = names.iter().enumerate().filter(|(_, c)| c.is_empty());
    unnamed
        .map(|(i, _)| {
            format!(
                "column {} of the header has no name, between named ones",
                i + 1
            )
        })
        .collect()
}

/// Every problem of the header: unknown, repeated and missing columns, and
/// dimensions given with only some of their three columns.
fn check_header(names: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    let known = |c: &str| is_column(c) || BOUNDARY_COLUMNS.contains(&c);
    for (i, c) in names.iter().enumerate() {
        if c.is_empty() {
            continue; // unnamed_columns
        } else if !known(c) {
            problems.push(format!(
                "unknown column '{c}' (see docs/import.md for the columns; \
                 --ignore-column '{c}' reads past it)"
            ));
        } else if names[..i].contains(c) {
            problems.push(format!("column '{c}' appears twice"));
        }
    }
    let boundaries: Vec<&str> = BOUNDARY_COLUMNS
        .into_iter()
        .filter(|c| names.contains(c))
        .collect();
    if let [one, other] = boundaries[..] {
        problems.push(format!(
            "the header has both '{one}' and '{other}', two names of the boundary's column; keep one"
        ));
    }
    let needed = |c: &&&str| boundaries.is_empty() || !CENTRE.contains(c);
    for c in REQUIRED
        .iter()
        .filter(needed)
        .filter(|c| !names.contains(c))
    {
        problems.push(format!("the header lacks the column '{c}'"));
    }
    let mut any_dimension = false;
    for d in DIMENSIONS {
        let [score, weight, sources] = dimension_columns(d);
        let have = [&score, &weight, &sources].map(|c| names.contains(&c.as_str()));
        any_dimension |= have.iter().any(|h| *h);
        if have.iter().any(|h| *h) && !have.iter().all(|h| *h) {
            problems.push(format!(
                "dimension {d} needs all three columns: {score}, {weight}, {sources}"
            ));
        }
    }
    if !any_dimension {
        problems.push("the header has no dimension columns (for example safety, safety_weight, safety_sources)".into());
    }
    problems
}

/// A dimension's three columns: its score, weight and sources.
fn dimension_columns(d: &str) -> [String; 3] {
    [d.to_string(), format!("{d}_weight"), format!("{d}_sources")]
}

/// Whether `name` is one of an area's columns, not counting the boundary's:
/// what a CSV header and a GeoJSON feature's properties name.
pub(super) fn is_column(name: &str) -> bool {
    REQUIRED.contains(&name)
        || OPTIONAL.contains(&name)
        || DIMENSIONS
            .iter()
            .any(|d| dimension_columns(d).iter().any(|k| k == name))
}

/// One data row as a `Draft`, and what in it cannot be read: its boundary
/// cell (`boundary`, or ogr2ogr's `WKT`), then the columns `draft_of` reads.
fn row(header: &Header, r: &StringRecord) -> (Draft, Vec<String>) {
    let cell = |name: &str| header.index(name).map(|i| &r[i]).filter(|v| !v.is_empty());
    let (boundary, mut problems) = match BOUNDARY_COLUMNS.iter().find_map(|c| cell(c)) {
        None => (Ok(None), Vec::new()),
        Some(text) => (boundary::read_cell(text), Vec::new()),
    };
    // A boundary that cannot be read is the row's problem; lat and lng are
    // then not asked for as well, since the row meant to give a boundary.
    let given = !matches!(boundary, Ok(None));
    let (mut d, more) = draft_of(&cell, &header.decimals, line_of(r), given);
    problems.extend(more);
    match boundary {
        Ok(b) => d.boundary = b,
        Err(e) => problems.push(e.to_string()),
    }
    (d, problems)
}

/// The columns of one area, by name (`cell` gives a non-empty cell), as a
/// `Draft` and what in them cannot be read: a CSV row's cells, or a GeoJSON
/// feature's properties, which are the same columns. `line` names numbers in
/// the file-wide decimal check; `has_boundary` makes lat and lng optional.
pub(super) fn draft_of<'c>(
    cell: &dyn Fn(&str) -> Option<&'c str>,
    decimals: &Decimals,
    line: u64,
    has_boundary: bool,
) -> (Draft, Vec<String>) {
    let mut problems = Vec::new();
    let required_text = |name: &str, problems: &mut Vec<String>| {
        let value = cell(name).map(String::from);
        if value.is_none() {
            problems.push(format!("{name} is missing"));
        }
        value
    };
    let mut d = Draft {
        id: required_text("id", &mut problems),
        name: required_text("name", &mut problems),
        province: required_text("province", &mut problems),
        municipality: required_text("municipality", &mut problems),
        updated_at: cell("updated_at").map(iso_date),
        ..Draft::default()
    };
    let list_cell =
        |name: &str, problems: &mut Vec<String>| cell(name).and_then(|v| list(name, v, problems));
    d.other_names = list_cell("other_names", &mut problems).map_or_else(Vec::new, other_names);
    let coordinate = |name: &str, problems: &mut Vec<String>| match has_boundary {
        true => cell(name).and_then(|v| decimals.number((line, name), v, problems)),
        false => decimals.required((line, name), cell(name), problems),
    };
    d.lat = coordinate("lat", &mut problems);
    d.lng = coordinate("lng", &mut problems);
    d.truth_score =
        cell("truth_score").and_then(|v| decimals.number((line, "truth_score"), v, &mut problems));
    for name in DIMENSIONS {
        let weight_column = format!("{name}_weight");
        let sources_column = format!("{name}_sources");
        let (score, weight) = (cell(name), cell(&weight_column));
        if score.is_none() && weight.is_none() && cell(&sources_column).is_none() {
            continue; // this area does not have the dimension
        }
        let sources = list_cell(&sources_column, &mut problems);
        d.dimensions.push(DraftDimension {
            name: name.to_string(),
            score: decimals.required((line, name), score, &mut problems),
            weight: decimals.required((line, &weight_column), weight, &mut problems),
            sources: sources.map_or_else(Vec::new, |s| {
                s.split(';').map(|x| x.trim().to_string()).collect()
            }),
        });
    }
    d.history = list_cell("history", &mut problems)
        .map_or_else(Vec::new, |h| history(decimals, line, h, &mut problems));
    (d, problems)
}

#[cfg(test)]
mod tests;
