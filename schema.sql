-- The database the server reads. `area-scoring init` runs this file on an empty
-- database, then loads seed/ and fills the derived tables at the end of this file.
-- The server opens the file read-only: nothing here changes while it serves.
-- API keys and plans are not here: they live in the keys file
-- (src/access/key_file.rs), which `area-scoring keys` and `plans` edit.

PRAGMA application_id = 1095910721; -- 0x41524541, "AREA": marks the file as ours
PRAGMA user_version = 10;           -- the schema version, db::SCHEMA_VERSION

-- Areas. area_no is assigned in ascending id order, so ordering by area_no is
-- ordering by id: the tie-breaker every listing uses.
CREATE TABLE areas (
    area_no       INTEGER PRIMARY KEY,
    id            TEXT    NOT NULL UNIQUE,
    name          TEXT    NOT NULL,
    province_slug TEXT    NOT NULL,
    province      TEXT    NOT NULL,
    municipality  TEXT    NOT NULL,
    lat           REAL    NOT NULL CHECK (lat BETWEEN -90 AND 90),
    lng           REAL    NOT NULL CHECK (lng BETWEEN -180 AND 180),
    truth_score   REAL    NOT NULL CHECK (truth_score BETWEEN 0 AND 10),
    updated_at    TEXT    NOT NULL
);
-- Search by minimum score alone walks this index from the top.
CREATE INDEX areas_by_score ON areas (truth_score DESC, area_no);

-- An area's other names (former names, short forms, other spellings), in the
-- order given; search matches them (src/search/query/forgiving.rs) and Get Area
-- shows them. Validated on import: at most 20, none folding to the name.
CREATE TABLE area_other_names (
    area_no  INTEGER NOT NULL REFERENCES areas (area_no),
    position INTEGER NOT NULL,
    name     TEXT    NOT NULL,
    PRIMARY KEY (area_no, position)
) WITHOUT ROWID;

-- Each area's score by dimension; the weights of one area sum to 1.
CREATE TABLE area_dimensions (
    area_no   INTEGER NOT NULL REFERENCES areas (area_no),
    dimension TEXT    NOT NULL CHECK (dimension IN ('safety', 'infrastructure',
                  'service_delivery', 'market', 'amenities', 'environment', 'sentiment')),
    score     REAL    NOT NULL CHECK (score BETWEEN 0 AND 10),
    weight    REAL    NOT NULL CHECK (weight > 0 AND weight <= 1),
    PRIMARY KEY (area_no, dimension)
) WITHOUT ROWID;

-- The identifiers of the data sources behind each dimension score, in order.
CREATE TABLE dimension_sources (
    area_no   INTEGER NOT NULL,
    dimension TEXT    NOT NULL,
    position  INTEGER NOT NULL,
    source    TEXT    NOT NULL,
    PRIMARY KEY (area_no, dimension, position),
    FOREIGN KEY (area_no, dimension) REFERENCES area_dimensions (area_no, dimension)
) WITHOUT ROWID;

-- Daily truth_score history. day counts days since 1970-01-01 (UTC).
CREATE TABLE history (
    area_no     INTEGER NOT NULL REFERENCES areas (area_no),
    day         INTEGER NOT NULL,
    truth_score REAL    NOT NULL CHECK (truth_score BETWEEN 0 AND 10),
    PRIMARY KEY (area_no, day)
) WITHOUT ROWID;

-- Each area's boundary, if it has one (src/data/boundary/store.rs writes
-- these three tables as each area is written; nothing is computed per
-- request). geometry is GeoJSON geometry text in RFC 7946's orientation,
-- a Polygon or a MultiPolygon as it was imported; area_m2 its geodesic
-- area, which orders the boundaries that hold one point (smallest first).
CREATE TABLE area_boundaries (
    area_no  INTEGER PRIMARY KEY REFERENCES areas (area_no),
    area_m2  REAL    NOT NULL,
    vertices INTEGER NOT NULL,
    geometry TEXT    NOT NULL
);

-- Each boundary simplified at the tolerances of SIMPLIFY_TOLERANCES_M
-- (src/data/boundary/simplify.rs), one row only where the simplified form
-- differs from the full one: a query falls back to area_boundaries.
CREATE TABLE area_boundary_simplified (
    area_no     INTEGER NOT NULL,
    tolerance_m INTEGER NOT NULL,
    geometry    TEXT    NOT NULL,
    PRIMARY KEY (area_no, tolerance_m)
) WITHOUT ROWID;

-- Each boundary's bounding box, and the grid cells its box meets once grown
-- by the area at a point's reach beside a boundary: a point's candidates
-- are the boundaries of its own cell at each grid level, one index seek a
-- level (src/data/boundary/cells.rs states the grid).
CREATE TABLE area_boundary_boxes (
    area_no INTEGER PRIMARY KEY,
    min_lng REAL    NOT NULL,
    max_lng REAL    NOT NULL,
    min_lat REAL    NOT NULL,
    max_lat REAL    NOT NULL
);
CREATE TABLE area_boundary_cells (
    cell    INTEGER NOT NULL,
    area_no INTEGER NOT NULL,
    PRIMARY KEY (cell, area_no)
) WITHOUT ROWID;

-- Derived tables, rebuilt from the ones above after every load -----------------

-- Search relevance within a tier (src/api/search.rs): shorter names first,
-- ties by area_no. rank is 1 for the shortest name and is the full-text
-- index's rowid, so FTS5, which walks its matches in rowid order, yields them
-- best first and a page of a common word stops after `limit` rows.
CREATE TABLE search_rank (
    rank    INTEGER PRIMARY KEY,
    area_no INTEGER NOT NULL UNIQUE
);

-- Full-text index over name, municipality and province, by search rank.
-- remove_diacritics 2 folds case and diacritics: 'danielskuil' finds
-- Daniëlskuil. Every word of a search is a prefix term; without a prefix
-- index FTS5 merges the doclists of every token that starts with it (at
-- 100,000 areas, 'soweto north 12' took 1.6 ms with no prefix index and
-- 0.3 ms with 1 to 8; a full name with 'extension', 9 letters, took 0.98 ms
-- with 1 to 8 and 0.22 ms with 1 to 12, for an index 12% larger).
-- Contentless: search reads only rowids. (detail = column would shrink the
-- doclists, but it refuses phrases, and a typed word can tokenize into two.)
CREATE VIRTUAL TABLE areas_fts USING fts5 (
    name, municipality, province,
    content = '',
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '1 2 3 4 5 6 7 8 9 10 11 12'
);

-- The other names, one row each, tokenized as areas_fts is. The rowid is
-- rank * OTHER_NAME_SLOTS + position (src/search/words/vocabulary.rs), so rowid
-- order is search rank order and each name is its own phrase: a split word
-- never matches across two names.
CREATE VIRTUAL TABLE other_names_fts USING fts5 (
    name,
    content = '',
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '1 2 3 4 5 6 7 8 9 10 11 12'
);

-- Every two neighbouring words of a column of areas_fts (each of at least
-- SPLIT_PART_MIN letters, src/search/words/mod.rs), joined by '_' into
-- one term ("ivory_park"), by search rank; and the same of other_names_fts,
-- by its rowids (src/search/matches/joined_words.rs). A search word that
-- splits in two is one lookup here, where a phrase of areas_fts stepped
-- through the common word's whole list. '_' is a token character here alone.
CREATE VIRTUAL TABLE joined_fts USING fts5 (
    name, municipality, province,
    content = '',
    tokenize = "unicode61 remove_diacritics 2 tokenchars '_'"
);

CREATE VIRTUAL TABLE other_joined_fts USING fts5 (
    name,
    content = '',
    tokenize = "unicode61 remove_diacritics 2 tokenchars '_'"
);

-- The matches of every heavy word, read off areas_fts once at load and stored
-- in the form the server keeps them (src/search/matches/word_store/): each query
-- (a prefix anywhere, the same in the name) names a set; a set is a list of
-- search ranks (by_rank, 4 bytes each, little-endian), or three bitmaps (by
-- rank, by grid position, in score order). word_store's one row says which
-- orders the bitmaps follow and for how many areas.
CREATE TABLE word_sets (
    set_no      INTEGER PRIMARY KEY,
    matches     INTEGER NOT NULL,
    by_rank     BLOB    NOT NULL,
    by_position BLOB,
    by_score    BLOB
);

CREATE TABLE word_queries (
    query  TEXT    PRIMARY KEY,
    set_no INTEGER NOT NULL REFERENCES word_sets (set_no)
) WITHOUT ROWID;

CREATE TABLE word_store (
    layout INTEGER NOT NULL,
    areas  INTEGER NOT NULL
);

-- Every word search can match, with where it occurs and the areas of each word
-- of the other names, read off the full-text tables once at load and stored
-- in the form the server keeps them (src/search/words/vocabulary_store.rs,
-- which says how the parts are laid out): one row. Opening the file then
-- reads a few megabytes, not every posting of the full-text index.
CREATE TABLE search_words (
    layout        INTEGER NOT NULL,
    words         BLOB    NOT NULL,
    starts        BLOB    NOT NULL,
    kinds         BLOB    NOT NULL,
    other_entries BLOB    NOT NULL,
    other_lists   BLOB    NOT NULL
);

-- areas_by_position, a covering index over the centre points and what search
-- needs of each area (score and province), is created by src/data/load.rs
-- (AREAS_BY_POSITION) once the areas are in, so that its pages lie together:
-- the server reads it whole when it opens the file, and from a cold disk cache
-- at 100,000 areas that took 520 ms while it was built row by row among the
-- history pages.

-- Each area's Get Area body without nearby and history, serialized once at
-- load by src/data/stored.rs: Get Area is then one lookup instead of two
-- queries over four B-trees and a serialization per request.
CREATE TABLE area_detail (
    area_no INTEGER PRIMARY KEY,
    body    TEXT NOT NULL
);

-- Each area's list form (docs/api.md, "List Areas") as JSON, serialized once
-- at load by src/data/stored.rs: a List page is then these bytes joined,
-- without reading and writing six columns a row per request.
CREATE TABLE area_list_form (
    area_no INTEGER PRIMARY KEY,
    body    TEXT NOT NULL
);

-- Each area's last year of daily scores in one row, written at load by
-- src/data/recent_history.rs (which says how they are packed): a year of
-- history is then one lookup instead of 365 rows.
CREATE TABLE recent_history (
    area_no  INTEGER PRIMARY KEY,
    last_day INTEGER NOT NULL,
    scores   BLOB    NOT NULL
);

-- Every List Areas ordering, precomputed: `ordering` is a code from the fixed
-- table in src/api/areas.rs (sort column and direction), province_slug is ''
-- for all provinces. A page at any offset is then an index seek, not a scan.
CREATE TABLE area_order (
    ordering      INTEGER NOT NULL,
    province_slug TEXT    NOT NULL,
    position      INTEGER NOT NULL,
    area_no       INTEGER NOT NULL,
    PRIMARY KEY (ordering, province_slug, position)
) WITHOUT ROWID;

-- Area statistics (GET /v1/areas/stats), written after the areas by
-- src/data/stats/write.rs: nothing is computed per request. A group is every
-- area (kind 0), a province (kind 1; all nine, empty or not) or a
-- municipality of a province (kind 2: keyed by both, since two provinces may
-- hold municipalities of one name). position is its place among its kind's
-- groups in name order (municipality COLLATE NOCASE, then the province
-- slug), in_province among those of its province, both from 0: a page at
-- any offset is an index seek.
CREATE TABLE stats_groups (
    group_no      INTEGER PRIMARY KEY,
    kind          INTEGER NOT NULL,
    province_slug TEXT    NOT NULL,   -- '' for every area
    municipality  TEXT    NOT NULL,   -- '' but for a municipality
    position      INTEGER NOT NULL,
    in_province   INTEGER NOT NULL
);
CREATE UNIQUE INDEX stats_groups_by_position ON stats_groups (kind, position);
CREATE UNIQUE INDEX stats_groups_in_province ON stats_groups (kind, province_slug, in_province);

-- Each group's statistics of each measure (truth_score and every dimension),
-- exact, in whole hundredths: count, mean, extremes and type-7 quantiles
-- (src/data/stats/summary.rs). An area without a dimension is not counted
-- for it; a measure no area of the group has is count 0 and NULLs.
CREATE TABLE group_stats (
    group_no INTEGER NOT NULL,
    measure  TEXT    NOT NULL,
    count    INTEGER NOT NULL,
    mean     INTEGER,
    min      INTEGER,
    max      INTEGER,
    p10      INTEGER,
    p25      INTEGER,
    p50      INTEGER,
    p75      INTEGER,
    p90      INTEGER,
    body     TEXT    NOT NULL,    -- the measure's JSON object as served (summary.rs, Summary::json)
    PRIMARY KEY (group_no, measure)
) WITHOUT ROWID;

-- How many areas of a scope ('' for the nation, or a province slug) hold
-- each score of each measure, in whole hundredths, with how many lie below
-- it and how many have the measure at all: an area's rank and percentile
-- (include=rank) from one row. At most 10 scopes x 8 measures x 1001 scores;
-- the server reads it whole when it opens the file (src/data/stats/standings.rs).
CREATE TABLE score_counts (
    scope   TEXT    NOT NULL,
    measure TEXT    NOT NULL,
    score   INTEGER NOT NULL,
    lower   INTEGER NOT NULL,
    equal   INTEGER NOT NULL,
    total   INTEGER NOT NULL,
    PRIMARY KEY (scope, measure, score)
) WITHOUT ROWID;

-- What the file says of itself, one row a key, written with the derived
-- tables by src/data/identity.rs: made_at (RFC 3339 UTC), source_file (the
-- imported file's name, or 'seed', 'synthetic'), source_sha256 (of its
-- bytes; NULL for synthetic areas), read_with (the flags that change what
-- the same bytes make, '' for none), build and areas. A file without this
-- table opens all the same, its identity unknown.
CREATE TABLE dataset_info (
    key   TEXT PRIMARY KEY,
    value
) WITHOUT ROWID;
