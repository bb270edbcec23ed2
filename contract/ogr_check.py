#!/usr/bin/env python3
"""GDAL's ogrinfo reads the GeoJSON and CSV answers of Search and the export,
and every GeoJSON form with boundaries.

    python3 ogr_check.py BASE_URL KEY WORK_DIR

Each answer is saved to a file in WORK_DIR (with the extension ogrinfo uses
to pick its driver) and summarised with `ogrinfo -ro -al -so`; the summary
must name as many features as the API's total, the fields of the format, and
points whose extent lies in South Africa (which catches lat and lng swapped).
With boundaries the layer must be of polygons, and GDAL's SQLite dialect
must find ST_IsValid true for every feature.
Standard library only, beside ogrinfo itself.
"""

import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

BASE, KEY, WORK = sys.argv[1], sys.argv[2], Path(sys.argv[3])
LIST_FIELDS = ["id", "name", "province", "province_slug", "municipality", "truth_score", "updated_at"]
DIMENSIONS = ["safety", "infrastructure", "service_delivery", "market", "amenities", "environment", "sentiment"]
# South Africa's mainland, generously: lng 16 to 33, lat -35 to -22.
SOUTH_AFRICA = (16.0, -35.0, 33.0, -22.0)
# GDAL reads CSV points from the lat and lng columns when told their names.
CSV_POINTS = ["-oo", "X_POSSIBLE_NAMES=lng", "-oo", "Y_POSSIBLE_NAMES=lat", "-oo", "AUTODETECT_TYPE=YES"]


def fail(what):
    raise SystemExit(f"ogr check FAILED: {what}")


def save(path_and_query, name):
    request = urllib.request.Request(BASE + path_and_query, headers={"Authorization": f"Bearer {KEY}"})
    with urllib.request.urlopen(request, timeout=30) as r:
        body = r.read()
        headers = r.headers
    (WORK / name).write_bytes(body)
    return body, headers


def summary(name, options=()):
    out = subprocess.run(
        ["ogrinfo", "-ro", "-al", "-so", *options, str(WORK / name)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    count = re.search(r"^Feature Count: (\d+)$", out, re.M)
    geometry = re.search(r"^Geometry: (.+)$", out, re.M)
    extent = re.search(r"^Extent: \(([-\d.]+), ([-\d.]+)\) - \(([-\d.]+), ([-\d.]+)\)$", out, re.M)
    # A field's type, with its subtype when it has one: String(JSON) for an object.
    fields = dict(re.findall(r"^(\w+): (\w+(?:\(\w+\))?) \(", out, re.M))
    if not (count and geometry and extent):
        fail(f"{name}: ogrinfo said\n{out}")
    lines = [count.group(0), geometry.group(0), extent.group(0)]
    return int(count.group(1)), geometry.group(1), tuple(map(float, extent.groups())), fields, lines


def expect(name, total, field_names, options=(), geometries=("Point",)):
    count, geometry, (west, south, east, north), fields, lines = summary(name, options)
    print(f"ogr check: {name}: " + "; ".join(lines))
    if count != total:
        fail(f"{name}: Feature Count {count}, the API's total {total}")
    if geometry not in geometries:
        fail(f"{name}: geometry {geometry}, not one of {geometries}")
    w, s, e, n = SOUTH_AFRICA
    if not (w <= west <= east <= e and s <= south <= north <= n):
        fail(f"{name}: extent {(west, south, east, north)} is not in South Africa")
    missing = [f for f in field_names if f not in fields]
    if missing:
        fail(f"{name}: fields {missing} missing from {sorted(fields)}")
    if "truth_score" in field_names and fields.get("truth_score") != "Real":
        fail(f"{name}: truth_score is {fields.get('truth_score')}, not Real")
    return fields


# A search whose every match fits on one page, so that the page is the total;
# each format at its own path.
query = "?q=johannesburg&limit=50"
body, headers = save("/v1/areas/search.geojson" + query, "search.geojson")
total = int(headers["X-Total-Count"])
if not 0 < total <= 50:
    fail(f"q=johannesburg matches {total} areas: pick a search with 1 to 50")
if json.loads(body)["total"] != total:
    fail("GeoJSON total differs from X-Total-Count")
fields = expect("search.geojson", total, LIST_FIELDS + ["match"])
# How each item matched is an object: GDAL keeps it as JSON text.
if fields["match"] != "String(JSON)":
    fail(f"search.geojson: match is {fields['match']}, not String(JSON)")
_, headers = save("/v1/areas/search.csv" + query, "search.csv")
fields = expect("search.csv", int(headers["X-Total-Count"]), LIST_FIELDS + ["lat", "lng"], CSV_POINTS)
if "match" in fields:
    fail("search.csv: CSV keeps its columns, without match")

# List by ids: the areas found, with missing as a foreign member GDAL reads past.
body, headers = save("/v1/areas.geojson?ids=soweto,no-such-area,stellenbosch", "list_ids.geojson")
if json.loads(body)["missing"] != ["no-such-area"] or headers["X-Missing-Ids"] != "no-such-area":
    fail("list_ids.geojson: missing is not the unknown id")
expect("list_ids.geojson", int(headers["X-Total-Count"]), LIST_FIELDS)
_, headers = save("/v1/areas.csv?ids=soweto,no-such-area,stellenbosch", "list_ids.csv")
expect("list_ids.csv", 2, LIST_FIELDS + ["lat", "lng"], CSV_POINTS)

body, _ = save("/v1/areas/export.geojson", "export.geojson")
total = json.loads(body)["total"]
expect("export.geojson", total, LIST_FIELDS + DIMENSIONS)
save("/v1/areas/export.csv", "export.csv")
expect("export.csv", total, LIST_FIELDS + ["lat", "lng"] + DIMENSIONS, CSV_POINTS)
# Boundaries: a polygon layer, every feature valid as GEOS judges it.
POLYGONS = ("Polygon", "Multi Polygon")


def invalid_features(name):
    """Features that ST_IsValid does not call valid: counted as all but the
    valid ones, so that an ST_IsValid that answers NULL (GDAL without GEOS)
    counts every feature against the file."""
    layer = Path(name).stem
    sql = f'SELECT count(*) - sum(ST_IsValid(geometry) = 1) AS invalid FROM "{layer}"'
    out = subprocess.run(
        ["ogrinfo", "-ro", "-dialect", "SQLite", "-sql", sql, str(WORK / name)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = re.search(r"invalid \(Integer\) = (\d+)", out)
    if not found:
        fail(f"{name}: ST_IsValid gave no count:\n{out}")
    return int(found.group(1))


for path, name in [
    ("/v1/areas/export.geojson?geometry=boundary", "export_boundaries.geojson"),
    ("/v1/areas/export.geojson?geometry=boundary&simplify=1000", "export_simplified.geojson"),
    ("/v1/areas/search.geojson?q=johannesburg&limit=50&geometry=boundary", "search_boundaries.geojson"),
    ("/v1/areas.geojson?province=gauteng&limit=100&geometry=boundary&simplify=250", "list_boundaries.geojson"),
]:
    body, _ = save(path, name)
    total = len(json.loads(body)["features"])
    expect(name, total, LIST_FIELDS, geometries=POLYGONS)
    invalid = invalid_features(name)
    print(f"ogr check: {name}: {invalid} of {total} features not ST_IsValid")
    if invalid:
        fail(f"{name}: {invalid} features are not valid")
body, _ = save("/v1/areas/soweto?include=boundary", "soweto.json")
(WORK / "soweto_boundary.geojson").write_text(json.dumps(json.loads(body)["boundary"]))
expect("soweto_boundary.geojson", 1, [], geometries=POLYGONS)
if invalid_features("soweto_boundary.geojson"):
    fail("Get Area's boundary is not valid")
print("ogr check: PASS")
