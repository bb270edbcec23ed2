#!/usr/bin/env python3
"""Makes seed/boundaries.csv: a generated boundary for each seed place, since no
public source ships suburb polygons for them. They are NOT official
boundaries: each is the cell of the places nearest to its own centre (the
Voronoi diagram of the seed's centres), clipped to South Africa's land.

    make seed-boundaries        # a pinned shapely in tools/.venv-boundaries, then this

or, with shapely at hand and Natural Earth's countries already downloaded:

    python3 tools/seed_boundaries.py [path/to/countries-10m.json]

South Africa is Natural Earth's 1:10m Admin 0 polygon (world-atlas's
countries-10m.json, TopoJSON), so that coastal addresses fall on land:
its mainland only (the Prince Edward Islands, 1,700 km south-east, are left
out), with Lesotho a hole in it, as Natural Earth draws it. Positions are
rounded to 5 decimals (about a metre) with GEOS's precision reduction, which
keeps each cell valid, and each cell is written as WKT, exteriors
counter-clockwise (RFC 7946's orientation). The tool checks each cell is
valid, holds its place's centre or lies within CENTRE_SLACK_KM of it, and
that no two cells overlap, and prints the cells' statistics.
"""

import csv
import json
import math
import os
import sys

import shapely

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from build_land import decode_arcs, fetch_topology, ring  # noqa: E402
from shapely.geometry import MultiPoint, MultiPolygon, Point, Polygon
from shapely.geometry.polygon import orient
from shapely.ops import nearest_points

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SEED = os.path.join(ROOT, "seed", "za-areas.csv")
OUT = os.path.join(ROOT, "seed", "boundaries.csv")

SOURCE_FILE = "countries-10m.json"
# Natural Earth's ISO 3166-1 numeric code for South Africa, world-atlas's ids.
SOUTH_AFRICA = "710"
# The mainland lies north of this latitude; the Prince Edward Islands south.
MAINLAND_SOUTH = -36.0
# Degrees: 1e-5 is about 1.1 m.
GRID = 1e-5
# src/data/boundary/mod.rs, CENTRE_SLACK_KM: how far a centre may lie outside.
CENTRE_SLACK_KM = 2.0
EARTH_RADIUS_KM = 6371.0088


def mainland(topology):
    """South Africa's mainland polygon, Lesotho a hole in it."""
    arcs = decode_arcs(topology)
    country = next(g for g in topology["objects"]["countries"]["geometries"]
                   if str(g.get("id")) == SOUTH_AFRICA)
    polygons = country["arcs"] if country["type"] == "MultiPolygon" else [country["arcs"]]
    parts = [Polygon(ring(arcs, p[0]), [ring(arcs, h) for h in p[1:]]) for p in polygons]
    parts = [p for p in parts if p.bounds[1] > MAINLAND_SOUTH]
    land = shapely.make_valid(shapely.union_all(parts))
    assert land.geom_type == "Polygon" and len(land.interiors) >= 1, \
        "the mainland is one polygon with Lesotho as a hole"
    return land


def places():
    with open(SEED, newline="", encoding="utf-8") as f:
        return [(r["id"], float(r["lat"]), float(r["lng"])) for r in csv.DictReader(f)]


def haversine_km(lat1, lng1, lat2, lng2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = (math.sin((p2 - p1) / 2) ** 2
         + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lng2 - lng1) / 2) ** 2)
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(a)))


def outside_km(cell, lat, lng):
    """How far a centre lies outside its cell, in km (0 inside)."""
    point = Point(lng, lat)
    if cell.covers(point):
        return 0.0
    nearest = nearest_points(cell, point)[0]
    return haversine_km(lat, lng, nearest.y, nearest.x)


def cells(land, seed):
    """Each place's Voronoi cell, clipped to land, reduced to GRID, oriented."""
    points = MultiPoint([(lng, lat) for _, lat, lng in seed])
    diagram = shapely.voronoi_polygons(points, extend_to=land.envelope.buffer(1.0), ordered=True)
    out = []
    for (place, lat, lng), cell in zip(seed, diagram.geoms):
        clipped = shapely.set_precision(cell.intersection(land), GRID)
        polygons = [g for g in getattr(clipped, "geoms", [clipped]) if g.geom_type == "Polygon"]
        if not polygons:
            sys.exit(f"{place}: its cell has no land")
        shape = polygons[0] if len(polygons) == 1 else MultiPolygon(polygons)
        shape = orient(shape, 1.0) if shape.geom_type == "Polygon" else MultiPolygon(
            [orient(p, 1.0) for p in shape.geoms])
        out.append((place, lat, lng, shape))
    return out


def check(out):
    """Every cell valid and near its centre, and no two overlapping."""
    tree = shapely.STRtree([shape for *_, shape in out])
    for i, (place, lat, lng, shape) in enumerate(out):
        if not shape.is_valid:
            sys.exit(f"{place}: {shapely.is_valid_reason(shape)}")
        km = outside_km(shape, lat, lng)
        if km > CENTRE_SLACK_KM:
            sys.exit(f"{place}: the centre is {km:.2f} km outside its cell")
        for j in tree.query(shape):
            if j != i and shape.intersection(out[j][3]).area > 0:
                sys.exit(f"{place} and {out[j][0]} overlap")


def main():
    if len(sys.argv) > 1:
        with open(sys.argv[1]) as f:
            topology = json.load(f)
    else:
        topology = fetch_topology(SOURCE_FILE)
    out = cells(mainland(topology), places())
    check(out)
    with open(OUT, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "boundary"])
        for place, _, _, shape in out:
            w.writerow([place, shapely.to_wkt(shape, rounding_precision=5, trim=True)])
    vertices = [shapely.get_num_coordinates(shape) for *_, shape in out]
    multi = sum(1 for *_, s in out if s.geom_type == "MultiPolygon")
    inside = sum(1 for _, lat, lng, s in out if s.covers(Point(lng, lat)))
    print(f"{len(out)} cells ({multi} MultiPolygons), {sum(vertices)} positions "
          f"(at most {max(vertices)} a cell), {inside} holding their centre, "
          f"{os.path.getsize(OUT)} bytes in {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
