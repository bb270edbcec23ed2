#!/usr/bin/env python3
"""Request lists for bench/run.sh: one file of request targets per case.

Usage: cases.py DB OUTDIR

Reads ids, names and provinces straight from the database (read-only) and
writes OUTDIR/<case>.txt, one request target per line, shuffled with a fixed
seed so every run asks the same things in the same order. Each list holds many
different ids, queries or points, so that what wrk measures is the server
answering, not one answer it happens to have cached.
"""

import bisect
import json
import random
import re
import sqlite3
from collections import Counter
import sys
from urllib.parse import quote, quote_plus

JOBURG = (-26.2041, 28.0473)
# How many targets per case: enough that 16 connections cycle through
# thousands of distinct requests.
COUNT = 4000
ORDERINGS = [(s, o) for s in ("name", "truth_score", "updated_at") for o in ("asc", "desc")]


def near(rng, centre, km):
    """A point within about `km` of centre, 5 decimals like the seed."""
    lat = centre[0] + rng.uniform(-km, km) / 111.2
    lng = centre[1] + rng.uniform(-km, km) / 99.7  # km per degree of longitude at 26°S
    return round(lat, 5), round(lng, 5)


# A word is heavy when it matches at least this share of the areas
# (anywhere: name, municipality or province).
HEAVY_SHARE = 0.05


def heavy_words(db):
    """The words of at least 3 letters matching HEAVY_SHARE of the areas, commonest first."""
    counts = Counter()
    total = 0
    for text in db.execute("SELECT name || ' ' || municipality || ' ' || province FROM areas"):
        total += 1
        counts.update(sorted({w for w in re.split(r"[^a-z]+", text[0].lower()) if len(w) >= 3}))
    return [w for w, c in counts.most_common() if c >= HEAVY_SHARE * total]


def box_near(rng, centre):
    """A viewport of 0.1 to 0.6 degrees a side near centre: west,south,east,north."""
    lat, lng = near(rng, centre, 10)
    half_lat, half_lng = rng.uniform(0.05, 0.3), rng.uniform(0.05, 0.3)
    return f"{lng - half_lng:.4f},{lat - half_lat:.4f},{lng + half_lng:.4f},{lat + half_lat:.4f}"


def main(db_path, outdir):
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    rows = db.execute("SELECT id, name, province_slug FROM areas ORDER BY area_no").fetchall()
    heavy = heavy_words(db)
    total = len(rows)
    gauteng_total = sum(1 for r in rows if r[2] == "gauteng")
    rng = random.Random(20261122)
    ids = [quote(r[0], safe="") for r in rows]

    def sample_ids(k):
        return [rng.choice(ids) for _ in range(k)]

    # First words of Gauteng names: real words that sit near Johannesburg.
    gauteng_words = sorted({r[1].split()[0] for r in rows if r[2] == "gauteng"})
    prefixes = sorted({r[1][:3] for r in rows if len(r[1]) >= 3 and r[1][:3].isalpha()})
    deep = max(total - 20, 0)

    cases = {
        "get_area": [f"/v1/areas/{i}" for i in sample_ids(COUNT)],
        "get_area_nearby": [f"/v1/areas/{i}?include=nearby" for i in sample_ids(COUNT)],
        # One first page per ordering: the list's first page can only vary by its ordering.
        "list_first": [f"/v1/areas?sort={s}&order={o}" for s, o in ORDERINGS],
        "list_deep": [f"/v1/areas?sort={s}&order={o}&offset={deep}" for s, o in ORDERINGS],
        "list_score_desc": [
            f"/v1/areas?sort=truth_score&order=desc&offset={20 * rng.randrange(max(total // 20, 1))}"
            for _ in range(COUNT)
        ],
        "list_gauteng": [
            f"/v1/areas?province=gauteng&offset={20 * rng.randrange(max(gauteng_total // 20, 1))}"
            for _ in range(COUNT)
        ],
        "search_q_prefix3": [f"/v1/areas/search?q={quote_plus(rng.choice(prefixes))}" for _ in range(COUNT)],
        "search_q_name": [
            f"/v1/areas/search?q={quote_plus(rows[rng.randrange(total)][1])}" for _ in range(COUNT)
        ],
        "search_geo_r10": [
            "/v1/areas/search?lat={}&lng={}&radius=10".format(*near(rng, JOBURG, 5)) for _ in range(COUNT)
        ],
        "search_geo_r50": [
            "/v1/areas/search?lat={}&lng={}&radius=50".format(*near(rng, JOBURG, 5)) for _ in range(COUNT)
        ],
        "search_q_geo_min": [
            "/v1/areas/search?q={}&lat={}&lng={}&radius=50&min_score={}".format(
                quote_plus(rng.choice(gauteng_words)), *near(rng, JOBURG, 5), rng.choice(["4", "5", "5.5", "6"])
            )
            for _ in range(COUNT)
        ],
        # The heaviest words (west, central, municipality, ...) within a 50 km
        # circle and above a floor: many word matches, few in the shape.
        "search_q_heavy_geo_min": [
            "/v1/areas/search?q={}&lat={}&lng={}&radius=50&min_score={}".format(
                rng.choice(heavy), *near(rng, JOBURG, 5), rng.choice(["4", "5", "5.5", "6"])
            )
            for _ in range(COUNT)
        ],
        "search_min_score": [
            f"/v1/areas/search?min_score={rng.choice(['9.5', '9', '8', '6.5', '5', '2'])}" for _ in range(COUNT)
        ],
        "search_bbox": [f"/v1/areas/search?bbox={box_near(rng, JOBURG)}" for _ in range(COUNT)],
        "compare_5": [
            "/v1/areas/compare?ids=" + ",".join(rng.sample(ids, 5)) for _ in range(COUNT)
        ],
        "history_1y_daily": [f"/v1/areas/{i}/history?period=1y&granularity=daily" for i in sample_ids(COUNT)],
        "history_1y_weekly": [f"/v1/areas/{i}/history?period=1y&granularity=weekly" for i in sample_ids(COUNT)],
        "history_1y_monthly": [f"/v1/areas/{i}/history?period=1y&granularity=monthly" for i in sample_ids(COUNT)],
        # Not an issue case: the server's floor, a request with no key check
        # and no body to build, through the same listener and workers.
        "healthz": ["/healthz"],
    }
    # Asked once each, on a server that has not seen them (bench/first_use.py):
    # every distinct 3-letter prefix and every heavy word.
    cases["first_use"] = sorted(set(cases["search_q_prefix3"]) | {f"/v1/areas/search?q={w}" for w in heavy})
    rng.shuffle(cases["first_use"])
    # Search within a province (docs/api.md, "Search Areas"), above a floor (a
    # page in ten deep, 5,000 matches in) and with a 3-letter prefix. Drawn
    # with a generator of their own, so that the lists above stay as they were.
    more = random.Random(20261126)
    slugs = sorted({r[2] for r in rows})
    cases["search_province_min"] = [
        "/v1/areas/search?province={}&min_score={}&offset={}".format(
            more.choice(slugs), more.choice(["9.5", "9", "8", "7", "6.5", "5", "2"]), more.choice([0] * 9 + [5000])
        )
        for _ in range(COUNT)
    ]
    cases["search_province_prefix3"] = [
        f"/v1/areas/search?q={quote_plus(more.choice(prefixes))}&province={more.choice(slugs)}" for _ in range(COUNT)
    ]
    forgiving_cases(db, rows, cases)
    boundary_cases(db, rows, cases)
    context_cases(db, rows, cases)
    for name, targets in cases.items():
        with open(f"{outdir}/{name}.txt", "w", encoding="utf-8") as f:
            f.write("\n".join(targets) + "\n")
    print(" ".join(cases))


class Boxes:
    """The boundaries' boxes in memory, by their west edge, to tell whether
    any holds a point: a scan of the table a point would take minutes at a
    million areas."""

    def __init__(self, db):
        self.boxes = sorted(db.execute("SELECT min_lng, max_lng, min_lat, max_lat FROM area_boundary_boxes"))
        self.wests = [b[0] for b in self.boxes]
        self.widest = max((b[1] - b[0] for b in self.boxes), default=0)

    def hold(self, lat, lng):
        first = bisect.bisect_left(self.wests, lng - self.widest)
        last = bisect.bisect_right(self.wests, lng)
        return any(b[1] >= lng and b[2] <= lat <= b[3] for b in self.boxes[first:last])


def boundary_cases(db, rows, cases):
    """The area at a point (docs/api.md, "The area at a point") and GeoJSON
    with boundaries: a point inside a boundary (an area's centre, which
    init's cells hold), one just outside every boundary (150 m beyond a
    cell's easternmost vertex, where no cell's box reaches), and, for a copy
    of the dataset without boundaries (bench/run.sh), the nearest centre. A
    generator of their own, so the lists above stay as they were."""
    rng = random.Random(20261202)
    total = len(rows)
    centres = db.execute("SELECT lat, lng FROM areas WHERE area_no IN (%s)" % ",".join(
        str(1 + rng.randrange(total)) for _ in range(COUNT))).fetchall()
    cases["area_at_inside"] = [f"/v1/areas/at?lat={lat}&lng={lng}" for lat, lng in centres]
    cases["area_at_nearest"] = [
        "/v1/areas/at?lat={}&lng={}".format(*near(rng, (lat, lng), 2)) for lat, lng in centres
    ]
    boxes = Boxes(db)
    near_points = []
    for _ in range(COUNT * 5):
        if len(near_points) >= COUNT:
            break
        found = db.execute(
            "SELECT geometry FROM area_boundaries WHERE area_no = ?", (1 + rng.randrange(total),)
        ).fetchone()
        if not found:
            continue
        shape = json.loads(found[0])
        polygons = shape["coordinates"] if shape["type"] == "MultiPolygon" else [shape["coordinates"]]
        lng, lat = max((p for polygon in polygons for p in polygon[0]), key=lambda p: p[0])
        lng += 0.0015  # about 150 m at South Africa's latitudes
        if not boxes.hold(lat, lng):
            near_points.append(f"/v1/areas/at?lat={lat:.6f}&lng={lng:.6f}")
    cases["area_at_near"] = near_points or cases["area_at_inside"]
    cases["list_geojson_boundary"] = [
        f"/v1/areas.geojson?geometry=boundary&limit=100&offset={100 * rng.randrange(max(total // 100, 1))}"
        for _ in range(COUNT)
    ]
    # What the explorer asks for a view: a padded box, boundaries simplified for its zoom.
    cases["search_bbox_boundary"] = [
        f"/v1/areas/search.geojson?bbox={box_near(rng, JOBURG)}&geometry=boundary&simplify=250&limit=50"
        for _ in range(COUNT)
    ]


def context_cases(db, rows, cases):
    """Scores in context (docs/api.md, "Area statistics" and "An area's
    standing"): statistics of every grouping, one or several measures and
    pages of municipalities, an area's standing on Get Area and Compare, and
    List by 100 ids. A generator of their own, so the lists above stay as they were."""
    rng = random.Random(20261203)
    ids = [quote(r[0], safe="") for r in rows]
    slugs = sorted({r[2] for r in rows})
    # kind 2: a municipality (src/data/stats/write.rs, MUNICIPALITY).
    municipalities = db.execute("SELECT count(*) FROM stats_groups WHERE kind = 2").fetchone()[0]
    # The measures the build stored statistics of: the truth_score and every dimension.
    stored = [m for (m,) in db.execute("SELECT DISTINCT measure FROM group_stats ORDER BY measure")]

    def measures():
        return ",".join(rng.sample(stored, rng.choice([1, 1, 3, len(stored)])))

    cases["stats_all_and_province"] = [
        rng.choice([f"/v1/areas/stats?measures={measures()}",
                    f"/v1/areas/stats?province={rng.choice(slugs)}&measures={measures()}",
                    f"/v1/areas/stats?group_by=province&measures={measures()}"])
        for _ in range(COUNT)
    ]
    cases["stats_municipality"] = [
        rng.choice([
            f"/v1/areas/stats?group_by=municipality&measures={measures()}&limit={rng.choice([20, 50, 100])}"
            f"&offset={rng.randrange(max(municipalities, 1))}",
            f"/v1/areas/stats?group_by=municipality&province={rng.choice(slugs)}&measures={measures()}",
        ])
        for _ in range(COUNT)
    ]
    cases["get_area_rank"] = [f"/v1/areas/{rng.choice(ids)}?include=rank" for _ in range(COUNT)]
    cases["compare_5_rank"] = [
        "/v1/areas/compare?include=rank&ids=" + ",".join(rng.sample(ids, 5)) for _ in range(COUNT)
    ]
    cases["list_ids_100"] = ["/v1/areas?ids=" + ",".join(rng.sample(ids, 100)) for _ in range(COUNT)]


def misspell(rng, word, edits):
    """The word with `edits` random edits (insert, drop, change, swap)."""
    w = list(word.lower())
    for _ in range(edits):
        i = rng.randrange(len(w))
        kind = rng.randrange(4)
        if kind == 0:
            w.insert(i, rng.choice("aeiosnt"))
        elif kind == 1 and len(w) > 1:
            del w[i]
        elif kind == 2 and i + 1 < len(w):
            w[i], w[i + 1] = w[i + 1], w[i]
        else:
            w[i] = rng.choice("aeiosnt")
    return "".join(w)


def forgiving_cases(db, rows, cases):
    """Forgiving search (docs/api.md, "Search Areas"), the names as people type
    them: a name with one typo in a word of 5 to 8 letters, with two in a word
    of 9 or more, two words joined, an other name; and today's two text cases
    with match=exact, to compare with the strict search. A generator of their
    own, so the lists above stay as they were."""
    rng = random.Random(20261127)
    names = [r[1] for r in rows]

    def with_typos(lo, hi, edits):
        while True:
            words = rng.choice(names).split()
            at = [i for i, w in enumerate(words) if lo <= len(w) <= hi and w.isalpha()]
            if at:
                i = rng.choice(at)
                words[i] = misspell(rng, words[i], edits)
                return quote_plus(" ".join(words))

    def joined():
        while True:
            words = rng.choice(names).split()
            if len(words) >= 2 and all(len(w) >= 2 for w in words[:2]):
                return quote_plus(" ".join([words[0] + words[1]] + words[2:]))

    # A file of schema version 3 or before has no other names (bench/alternate.sh against an older build).
    has_others = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'area_other_names'").fetchone()
    others = [r[0] for r in db.execute("SELECT name FROM area_other_names ORDER BY area_no LIMIT 200000")] if has_others else []
    cases["search_q_typo1"] = [f"/v1/areas/search?q={with_typos(5, 8, 1)}" for _ in range(COUNT)]
    cases["search_q_typo2"] = [f"/v1/areas/search?q={with_typos(9, 99, 2)}" for _ in range(COUNT)]
    cases["search_q_joined"] = [f"/v1/areas/search?q={joined()}" for _ in range(COUNT)]
    if others:
        cases["search_q_other_name"] = [
            f"/v1/areas/search?q={quote_plus(rng.choice(others))}" for _ in range(COUNT)
        ]
    cases["search_q_prefix3_exact"] = [t + "&match=exact" for t in cases["search_q_prefix3"]]
    cases["search_q_name_exact"] = [t + "&match=exact" for t in cases["search_q_name"]]


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: cases.py DB OUTDIR")
    main(sys.argv[1], sys.argv[2])
