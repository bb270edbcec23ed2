#!/usr/bin/env python3
"""A word's first use, for bench/run.sh: each search asked once, in order.

Usage: first_use.py HOST:PORT KEY PATHS_FILE SIZE  (meta lines on stdout)

wrk cycles through its list, so after the first seconds every word it asks
is kept by the server (src/search/matches/match_cache.rs). This asks each target once,
on one kept-alive connection, on a server that has not yet seen them, and
times each answer from request to last byte. A search is counted heavy when
its total reaches HEAVY, the count from which the server keeps a word's list.
"""

import http.client
import json
import sys
import time

HEAVY = 256


def percentile(values, p):
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main(addr, key, paths_file, size):
    host, port = addr.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    every, heavy, failed = [], [], 0
    for path in open(paths_file, encoding="utf-8").read().split():
        started = time.perf_counter()
        conn.request("GET", path, headers={"Authorization": f"Bearer {key}"})
        response = conn.getresponse()
        body = response.read()
        ms = (time.perf_counter() - started) * 1000
        if response.status != 200:
            failed += 1
            continue
        every.append(ms)
        if json.loads(body)["total"] >= HEAVY:
            heavy.append(ms)
    for label, values in (("all", every), ("heavy", heavy)):
        print(f"first_use_{size}_{label}_n {len(values)}")
        for p in (50, 99):
            print(f"first_use_{size}_{label}_p{p} {percentile(values, p):.2f}")
        print(f"first_use_{size}_{label}_max {max(values, default=0):.2f}")
    print(f"first_use_{size}_failed {failed}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: first_use.py HOST:PORT KEY PATHS_FILE SIZE")
    main(*sys.argv[1:])
