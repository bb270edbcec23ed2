//! Which representation a client gets: JSON unless it asks for another, with
//! `format=` (which wins) or with the Accept header.
//!
//! Accept is read as RFC 9110 describes it: media ranges with optional
//! q-values. The served type with the highest q wins, the first listed on a
//! tie; a range this server does not make (`*/*`, `text/html`) counts for
//! nothing, and nothing acceptable means JSON, never 406: a browser's or a
//! library's default Accept must not turn into an error.

/// A representation of a list of areas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    GeoJson,
    Csv,
    NdJson,
}

/// What each GeoJSON feature's geometry is (`geometry=`, on the GeoJSON
/// paths only): the area's centre as a Point, or its boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Geometry {
    Point,
    Boundary,
}

impl Format {
    /// Every format, with its `format=` name, media type and file extension.
    pub const ALL: [(Format, &'static str, &'static str, &'static str); 4] = [
        (Format::Json, "json", "application/json", "json"),
        (
            Format::GeoJson,
            "geojson",
            "application/geo+json",
            "geojson",
        ),
        (Format::Csv, "csv", "text/csv", "csv"),
        (Format::NdJson, "ndjson", "application/x-ndjson", "ndjson"),
    ];

    fn row(self) -> (Format, &'static str, &'static str, &'static str) {
        *Format::ALL
            .iter()
            .find(|(f, ..)| *f == self)
            .expect("every format is listed")
    }

    /// Its `format=` value.
    pub fn name(self) -> &'static str {
        self.row().1
    }

    pub fn media_type(self) -> &'static str {
        self.row().2
    }

    pub fn extension(self) -> &'static str {
        self.row().3
    }

    /// The Content-Type header: text types say their charset.
    pub const fn content_type(self) -> &'static str {
        match self {
            Format::Json => "application/json; charset=utf-8",
            Format::GeoJson => "application/geo+json",
            Format::Csv => "text/csv; charset=utf-8",
            Format::NdJson => "application/x-ndjson",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.iter().find(|r| r.1 == name).map(|r| r.0)
    }
}

/// The representation an answer is in, and whether the request chose it
/// (with `format=` or Accept, at the endpoint's JSON path) or its path did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Representation {
    pub format: Format,
    pub negotiated: bool,
}

impl Representation {
    /// At a format's own path (`path_format`), that format, whatever the
    /// request says; at the endpoint's path, `negotiate`'s choice.
    pub fn of(
        path_format: Option<Format>,
        param: Option<Format>,
        accept: Option<&str>,
        offered: &[Format],
    ) -> Representation {
        match path_format {
            Some(format) => Representation {
                format,
                negotiated: false,
            },
            None => Representation {
                format: negotiate(param, accept, offered),
                negotiated: true,
            },
        }
    }

    /// The answer's Vary (before Accept-Encoding): the key, and Accept where
    /// Accept could choose.
    pub fn vary(self) -> &'static str {
        if self.negotiated {
            "Authorization, Accept"
        } else {
            "Authorization"
        }
    }
}

/// The format for a request: `format=` if given (already checked against
/// `offered`), else the best of `offered` that Accept names, else JSON.
pub fn negotiate(param: Option<Format>, accept: Option<&str>, offered: &[Format]) -> Format {
    param
        .or_else(|| accept.and_then(|a| best_accepted(a, offered)))
        .unwrap_or(Format::Json)
}

fn best_accepted(accept: &str, offered: &[Format]) -> Option<Format> {
    let mut best: Option<(Format, f64)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or("").trim();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
            .find_map(|v| v.trim().parse::<f64>().ok())
            .unwrap_or(1.0);
        let Some(format) = offered
            .iter()
            .copied()
            .find(|f| f.media_type().eq_ignore_ascii_case(media))
        else {
            continue;
        };
        if q > 0.0 && best.is_none_or(|(_, b)| q > b) {
            best = Some((format, q));
        }
    }
    best.map(|(f, _)| f)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTS: [Format; 3] = [Format::Json, Format::GeoJson, Format::Csv];

    #[test]
    fn the_format_parameter_wins_over_accept() {
        let csv = negotiate(Some(Format::Csv), Some("application/geo+json"), &LISTS);
        assert_eq!(csv, Format::Csv);
    }

    #[test]
    fn accept_picks_the_highest_q_and_the_first_on_a_tie() {
        let pick = |a| negotiate(None, Some(a), &LISTS);
        assert_eq!(pick("text/csv"), Format::Csv);
        assert_eq!(pick("Application/GEO+json"), Format::GeoJson);
        assert_eq!(
            pick("text/csv;q=0.5, application/geo+json"),
            Format::GeoJson
        );
        assert_eq!(pick("text/csv, application/geo+json"), Format::Csv);
        assert_eq!(
            pick("text/csv; charset=utf-8; q=0.9, */*;q=0.1"),
            Format::Csv
        );
        assert_eq!(
            pick("text/csv;q=0"),
            Format::Json,
            "q=0 means not acceptable"
        );
    }

    #[test]
    fn a_format_path_is_not_negotiated() {
        let at_path = Representation::of(
            Some(Format::Csv),
            None,
            Some("application/geo+json"),
            &LISTS,
        );
        assert_eq!(at_path.format, Format::Csv);
        assert_eq!(at_path.vary(), "Authorization");
        let negotiated = Representation::of(None, None, Some("application/geo+json"), &LISTS);
        assert_eq!(negotiated.format, Format::GeoJson);
        assert_eq!(negotiated.vary(), "Authorization, Accept");
    }

    #[test]
    fn anything_else_gets_json() {
        let pick = |a| negotiate(None, a, &LISTS);
        assert_eq!(pick(None), Format::Json);
        assert_eq!(pick(Some("*/*")), Format::Json);
        assert_eq!(pick(Some("text/html,application/xhtml+xml")), Format::Json);
        assert_eq!(
            pick(Some("application/x-ndjson")),
            Format::Json,
            "not offered here"
        );
        assert_eq!(pick(Some(";;,,q=")), Format::Json);
    }
}
