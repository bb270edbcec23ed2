#!/usr/bin/env python3
"""Makes web/land.json, the land and country borders the explorer's map draws
under its dots (web/map.js), from Natural Earth's 1:50m countries as the npm
package world-atlas ships them (TopoJSON, countries-50m.json).

Run by hand when the region or the source changes; the server and the pages
never run it, and the output is committed:

    python3 tools/build_land.py                      # npm installs world-atlas into a temp dir
    python3 tools/build_land.py path/to/countries-50m.json

Only southern Africa's region (REGION) is kept: land polygons are clipped to
it, and borders are the arcs two countries share, cut where they leave it.
Coordinates are quantized to UNIT degrees and written as a ring's first point
(from the region's south-west corner) followed by differences, so the file
is small and the page decodes it with a running sum.
"""

import json
import os
import subprocess
import sys
import tempfile

WORLD_ATLAS = "world-atlas@2.0.2"
SOURCE_FILE = "countries-50m.json"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "web", "land.json")

# West, south, east, north, in degrees: South Africa and the countries around
# it, with room to pan and zoom out a little.
REGION = (4.0, -40.0, 48.0, -10.0)
# 0.001 degrees is about 110 m: finer than the 1:50m source's own detail.
UNIT = 0.001

SOURCE = (
    "Natural Earth 1:50m Admin 0 countries (public domain, naturalearthdata.com), "
    f"as TopoJSON in the npm package {WORLD_ATLAS} ({SOURCE_FILE}); "
    f"clipped to {list(REGION)} (west, south, east, north) by tools/build_land.py"
)
LICENCE = (
    "Natural Earth data is in the public domain. world-atlas is under the ISC licence: "
    "Copyright 2013-2019 Michael Bostock. Permission to use, copy, modify, and/or "
    "distribute this software for any purpose with or without fee is hereby granted, "
    "provided that the above copyright notice and this permission notice appear in all "
    'copies. THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES '
    "WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY "
    "AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY SPECIAL, DIRECT, "
    "INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF "
    "USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS "
    "ACTION, ARISING OUT OF OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE."
)


def fetch_topology(source_file=SOURCE_FILE):
    """One of world-atlas's files from npm, installed into a temporary directory."""
    with tempfile.TemporaryDirectory(prefix="world-atlas.") as tmp:
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", tmp, WORLD_ATLAS],
            check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(tmp, "node_modules", "world-atlas", source_file)) as f:
            return json.load(f)


def decode_arcs(topology):
    """TopoJSON's quantized, delta-encoded arcs as lists of (lng, lat)."""
    (sx, sy), (tx, ty) = topology["transform"]["scale"], topology["transform"]["translate"]
    arcs = []
    for arc in topology["arcs"]:
        x = y = 0
        points = []
        for dx, dy in arc:
            x += dx
            y += dy
            points.append((x * sx + tx, y * sy + ty))
        arcs.append(points)
    return arcs


def ring(arcs, indexes):
    """A ring joined from arcs; a negative index ~i is arc i reversed."""
    points = []
    for i in indexes:
        arc = arcs[i] if i >= 0 else arcs[~i][::-1]
        points.extend(arc if not points else arc[1:])
    return points


def clip_ring(points):
    """The ring clipped to REGION (Sutherland-Hodgman, one edge at a time)."""
    west, south, east, north = REGION
    edges = [
        (lambda p: p[0] >= west, lambda a, b: cut_x(a, b, west)),
        (lambda p: p[0] <= east, lambda a, b: cut_x(a, b, east)),
        (lambda p: p[1] >= south, lambda a, b: cut_y(a, b, south)),
        (lambda p: p[1] <= north, lambda a, b: cut_y(a, b, north)),
    ]
    for inside, cut in edges:
        if not points:
            break
        out = []
        for i, here in enumerate(points):
            before = points[i - 1]
            if inside(here):
                if not inside(before):
                    out.append(cut(before, here))
                out.append(here)
            elif inside(before):
                out.append(cut(before, here))
        points = out
    return points


def cut_x(a, b, x):
    return (x, a[1] + (b[1] - a[1]) * (x - a[0]) / (b[0] - a[0]))


def cut_y(a, b, y):
    return (a[0] + (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]), y)


def inside_region(p):
    west, south, east, north = REGION
    return west <= p[0] <= east and south <= p[1] <= north


def pieces_inside(line):
    """The parts of a line within REGION, each with the points just outside
    it, so that a border runs on to the region's edge."""
    pieces, current = [], []
    for i, p in enumerate(line):
        near = inside_region(p) or (i > 0 and inside_region(line[i - 1])) or (
            i + 1 < len(line) and inside_region(line[i + 1]))
        if near:
            current.append(p)
        elif current:
            pieces.append(current)
            current = []
    if current:
        pieces.append(current)
    return [piece for piece in pieces if len(piece) > 1]


def encode(points):
    """First point from the region's corner, then differences, in UNITs;
    points that round to the one before are dropped."""
    west, south = REGION[0], REGION[1]
    out, last = [], None
    for lng, lat in points:
        q = (round((lng - west) / UNIT), round((lat - south) / UNIT))
        if q == last:
            continue
        out.extend(q if last is None else (q[0] - last[0], q[1] - last[1]))
        last = q
    return out


def land_rings(topology, arcs):
    rings = []
    for geometry in topology["objects"]["land"]["geometries"]:
        polygons = geometry["arcs"] if geometry["type"] == "MultiPolygon" else [geometry["arcs"]]
        for polygon in polygons:
            for indexes in polygon:
                clipped = clip_ring(ring(arcs, indexes))
                if len(clipped) >= 3:
                    rings.append(clipped)
    return rings


def border_lines(topology, arcs):
    """Arcs that two countries share: the borders between them, not coasts."""
    users = {}
    for geometry in topology["objects"]["countries"]["geometries"]:
        polygons = geometry.get("arcs", [])
        if geometry["type"] == "Polygon":
            polygons = [polygons]
        for polygon in polygons:
            for indexes in polygon:
                for i in indexes:
                    users.setdefault(i if i >= 0 else ~i, set()).add(id(geometry))
    lines = []
    for i, who in sorted(users.items()):
        if len(who) > 1:
            lines.extend(pieces_inside(arcs[i]))
    return lines


def main():
    if len(sys.argv) > 1:
        with open(sys.argv[1]) as f:
            topology = json.load(f)
    else:
        topology = fetch_topology()
    arcs = decode_arcs(topology)
    land = [encode(r) for r in land_rings(topology, arcs)]
    borders = [encode(line) for line in border_lines(topology, arcs)]
    document = {
        "source": SOURCE,
        "licence": LICENCE,
        "region": list(REGION),
        "unit": UNIT,
        "encoding": "each ring or line: x0, y0 in units east and north of the region's "
                    "south-west corner, then dx, dy from the point before",
        "land": [r for r in land if len(r) >= 6],
        "borders": [b for b in borders if len(b) >= 4],
    }
    with open(OUT, "w") as f:
        json.dump(document, f, separators=(",", ":"))
        f.write("\n")
    print(f"{os.path.relpath(OUT)}: {len(document['land'])} land rings, "
          f"{len(document['borders'])} border lines, {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main()
