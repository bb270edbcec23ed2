"""bench/medians.py ROWS.md UNIT...: the median of each case's figures over
the rounds of an alternated run (bench/alternate.sh, bench/heavy_typo.sh).

Each row of ROWS.md is `| round | case | figure | figure ... |`, one figure
a UNIT given here (such as "req/s" "p99 ms" "µs"); a line of another shape
is skipped. Prints one line a case, in the order cases first appear.
"""
import statistics
import sys

FORMATS = {"req/s": "{:.0f} req/s", "p99 ms": "p99 {:.2f} ms", "µs": "{:.1f} µs",
           "switches": "{:.2f} switches"}


def main(path, units):
    rows = {}
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 + len(units) or not cells[0].isdigit():
            continue
        rows.setdefault(cells[1], []).append([float(c) for c in cells[2:]])
    for name, runs in rows.items():
        med = [statistics.median(col) for col in zip(*runs)]
        shown = ", ".join(FORMATS[u].format(m) for u, m in zip(units, med))
        print(f"- {name}: {shown}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
