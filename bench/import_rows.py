#!/usr/bin/env python3
"""Writes an import file of N generated areas, for measuring `import`.

usage: bench/import_rows.py N FILE.csv|FILE.jsonl

The same N always gives the same file. Each row is shaped like the
examples in docs/import.md: two dimensions, one history point two months
before updated_at (the importer fills 62 daily scores from it), about 140
bytes of CSV, so 400,000 rows make a CSV of about 55 MB (JSON Lines: 120 MB). Ids are not in file
order, so the import has to sort them. Names, places and scores are all
made up.
"""

import json
import random
import sys

PROVINCES = [
    "eastern-cape", "free-state", "gauteng", "kwazulu-natal", "limpopo",
    "mpumalanga", "north-west", "northern-cape", "western-cape",
]
WORDS = ["river", "hill", "park", "vale", "ridge", "bay", "glen", "heights", "view", "dale"]
SUFFIXES = ["North", "South", "East", "West", "Central"]
COLUMNS = [
    "id", "name", "province", "municipality", "lat", "lng", "updated_at",
    "safety", "safety_weight", "safety_sources",
    "market", "market_weight", "market_sources", "history",
]


def area(i, rng):
    word = WORDS[(i * 7) % len(WORDS)]
    suffix = SUFFIXES[i % len(SUFFIXES)]
    safety = rng.randint(100, 950) / 100
    market = rng.randint(100, 950) / 100
    return {
        "id": f"{word}-{suffix.lower()}-{i}",
        "name": f"{word.title()} {suffix} {i}",
        "province": PROVINCES[i % len(PROVINCES)],
        "municipality": f"Metro {i % 250}",
        "lat": round(rng.uniform(-34.5, -22.5), 5),
        "lng": round(rng.uniform(17.0, 32.5), 5),
        "updated_at": "2026-11-01",
        "dimensions": {
            "safety": {"score": safety, "weight": 0.6, "sources": ["saps"]},
            "market": {"score": market, "weight": 0.4, "sources": ["deeds"]},
        },
        "history": [
            {"date": "2026-09-01", "truth_score": rng.randint(100, 950) / 100},
        ],
    }


def csv_row(a):
    d = a["dimensions"]
    cells = [
        a["id"], a["name"], a["province"], a["municipality"], a["lat"], a["lng"], a["updated_at"],
        d["safety"]["score"], d["safety"]["weight"], ";".join(d["safety"]["sources"]),
        d["market"]["score"], d["market"]["weight"], ";".join(d["market"]["sources"]),
        ";".join(f"{p['date']}:{p['truth_score']}" for p in a["history"]),
    ]
    return ",".join(str(c) for c in cells)


def main():
    if len(sys.argv) != 3 or not sys.argv[2].endswith((".csv", ".jsonl")):
        sys.exit(__doc__)
    n, path = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(20261123)
    with open(path, "w", encoding="utf-8") as out:
        if path.endswith(".csv"):
            out.write(",".join(COLUMNS) + "\n")
            for i in range(n):
                out.write(csv_row(area(i, rng)) + "\n")
        else:
            for i in range(n):
                out.write(json.dumps(area(i, rng), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
