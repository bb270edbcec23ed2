"""The aims `make bench` checks, and the tables they are read from (used by bench/report.py).

Owns every number a run is judged by: the ratios to nginx serving the same bytes at each size,
the p99 limits, and the rest of RESULTS.md's "Targets" table.
The aims themselves are written down in docs/testing.md ("Benchmarks and contract").
"""

# (Get Area, List page 1) as a share of nginx's req/s on the same bytes, by number of areas.
NGINX_AIMS = {"1000": (0.7, 0.5), "100000": (0.55, 0.4)}
P99_LIMIT_MS = 5  # every case, quiet, at 100,000 areas
P99_LIMIT_MILLION_MS = 10  # the million-area tier's
MILLION = 1_000_000
AIMED = ("get_area", "list_first")
# The area at a point: its p99 at every size, and its CPU a request against
# Get Area's at the smaller size (docs/testing.md, "Benchmarks and contract").
AT_CASES = ("area_at_inside", "area_at_near", "area_at_nearest")
AT_P99_LIMIT_MS = 5
AT_CPU_RATIO = 1.5
# Scores in context: statistics' p99 at every size, include=rank's CPU a
# request against Get Area's at the larger size, and List by 100 ids' CPU a
# request at the smaller (docs/testing.md, "Benchmarks and contract").
STATS_CASES = ("stats_all_and_province", "stats_municipality")
STATS_P99_LIMIT_MS = 5
RANK_CPU_RATIO = 1.2
IDS_CPU_LIMIT_US = 300


def nginx_table(w, rows, names, floor, n, small):
    """The server against nginx at each size; returns {(size, case): ratio}."""
    w("## Server / nginx (requests per second, same bytes)\n")
    w("| areas | case | server req/s | nginx req/s | ratio |")
    w("|---:|---|---:|---:|---:|")
    ratios = {}
    for size in (small, n):
        for case in AIMED:
            s, g = rows.get((size, case)), rows.get((f"nginx-{size}", case))
            if s and g and g["rps"] > 0:
                ratios[(size, case)] = s["rps"] / g["rps"]
                w(f"| {size} | {names[case]} | {s['rps']:.0f} | {g['rps']:.0f} | {ratios[(size, case)]:.2f} |")
    g = rows.get((f"nginx-{n}", "get_area"))
    health = rows.get((n, floor[0]))
    if health and g and g["rps"] > 0:
        w(f"| {n} | {floor[1]}, against nginx's Get Area bytes | {health['rps']:.0f} | {g['rps']:.0f} "
          f"| {health['rps'] / g['rps']:.2f} |")
    alone = rows.get((f"floor-{n}", "get_area"))
    if alone and g and g["rps"] > 0:
        w(f"| {n} | the HTTP layer alone, no application code, same bytes as Get Area | {alone['rps']:.0f} "
          f"| {g['rps']:.0f} | {alone['rps'] / g['rps']:.2f} |")
        w("\nThe HTTP layer alone has no application code at all: it bounds what any endpoint can reach "
          "with this design, and no endpoint's ratio can exceed its.")
    return ratios


def verdict(ok):
    return "met" if ok else "**missed**"


def write(w, meta, rows, names, ratios, growth, n, small, rss_limit, f200_limit, mb):
    w("\n## Targets\n")
    w("| target | measured | verdict |")
    w("|---|---|---|")
    for (size, case), ratio in sorted(ratios.items(), key=lambda kv: (int(kv[0][0]), kv[0][1])):
        aim = NGINX_AIMS.get(size)
        if aim:
            want = aim[AIMED.index(case)]
            w(f"| {names[case]} ≥ {want} of nginx req/s at {size} | {ratio:.2f} | {verdict(ratio >= want)} |")
    big = {c: rows[(n, c)] for c in names if (n, c) in rows}
    dead = [names[c] for c, r in big.items() if r["requests"] == 0]
    if dead:
        w(f"| every case answered at {n} | {len(dead)} cases got no answer at all: {', '.join(dead)} | **missed** |")
    p99_limit = P99_LIMIT_MILLION_MS if int(n) >= MILLION else P99_LIMIT_MS
    p99_row(w, big, names, p99_limit, f"at {n}")
    at_point(w, rows, names, n, small)
    in_context(w, rows, names, n, small)
    bad = sum(r["non2xx"] for r in big.values())
    sock = sum(max(r["sock"], 0) for r in big.values())
    w(f"| zero non-2xx at {n} | {bad} | {verdict(bad == 0)} |")
    w(f"| zero socket errors at {n} | {sock}{' + refused connections' if dead else ''} "
      f"| {verdict(sock == 0 and not dead)} |")
    first, deep = big.get("list_first"), big.get("list_deep")
    if first and deep and first["requests"] and deep["requests"]:
        cost = deep["p50"] / first["p50"] if first["p50"] else float("inf")
        w(f"| deep page ≤ 2x first page (p50) | {cost:.2f}x ({deep['p50']:.2f} vs {first['p50']:.2f} ms; "
          f"req/s {deep['rps']:.0f} vs {first['rps']:.0f}) | {verdict(cost <= 2)} |")
    grown = [f"{names[c]} {g:.1f}x" for c, g in growth.items() if g > 2]
    w(f"| no p50 grows > 2x from {small} to {n} | worst {max(growth.values(), default=0):.2f}x"
      f"{'; over: ' + ', '.join(grown) if grown else ''} | {verdict(not grown)} |")
    peak = max((r["hwm"] for r in big.values()), default=0)
    w(f"| peak RSS ≤ {rss_limit // 1024} MiB at {n} | {mb(peak)} | {verdict(peak <= rss_limit)} |")
    now = big.get("healthz", {}).get("rss") or max((r["rss"] for r in big.values()), default=0)
    w(f"| RSS after the last case < {rss_limit // 1024} MiB at {n} | {mb(now)} | {verdict(now < rss_limit)} |")
    fu99 = meta.get(f"first_use_{n}_heavy_p99")
    if fu99:
        w(f"| a heavy word's first use p99 ≤ 10 ms at {n} | {fu99} ms (max {meta.get(f'first_use_{n}_heavy_max')} ms) "
          f"| {verdict(float(fu99) <= 10)} |")
    export_peak = int(meta.get("export_rss_peak_kb", 0))
    if export_peak:
        w(f"| RSS < {rss_limit // 1024} MiB at {n} while {meta.get('export_clients')} clients download the export "
          f"| {mb(export_peak)} | {verdict(export_peak < rss_limit)} |")
    f200 = meta.get("first200_" + n)
    if f200:
        w(f"| serve → first 200 ≤ {f200_limit} ms at {n} | {f200} ms | {verdict(float(f200) <= f200_limit)} |")
    if meta.get("after", "1") == "1":
        w("\nThe axum peer's ratio is in bench/RESULTS-layer-run.md (same run).")


def at_point(w, rows, names, n, small):
    """The area at a point's own aims: p99, and CPU beside Get Area's."""
    at = {c: rows[(n, c)] for c in AT_CASES if (n, c) in rows}
    if at:
        p99_row(w, at, names, AT_P99_LIMIT_MS, f"for the area at a point at {n}")
    get = rows.get((small, "get_area"))
    for case in AT_CASES:
        r = rows.get((small, case))
        if r and get and get["cpu_us"]:
            ratio = r["cpu_us"] / get["cpu_us"]
            w(f"| {names[case]}: CPU/request ≤ {AT_CPU_RATIO}x Get Area's at {small} | {r['cpu_us']} vs "
              f"{get['cpu_us']} µs: {ratio:.2f}x | {verdict(ratio <= AT_CPU_RATIO)} |")


def in_context(w, rows, names, n, small):
    """Scores in context's own aims: statistics' p99, include=rank's CPU
    beside Get Area's, and List by 100 ids' CPU."""
    stats = {c: rows[(n, c)] for c in STATS_CASES if (n, c) in rows}
    if stats:
        p99_row(w, stats, names, STATS_P99_LIMIT_MS, f"for area statistics at {n}")
    get, rank = rows.get((n, "get_area")), rows.get((n, "get_area_rank"))
    if get and rank and get["cpu_us"]:
        ratio = rank["cpu_us"] / get["cpu_us"]
        w(f"| {names['get_area_rank']}: CPU/request ≤ {RANK_CPU_RATIO}x Get Area's at {n} | {rank['cpu_us']} vs "
          f"{get['cpu_us']} µs: {ratio:.2f}x | {verdict(ratio <= RANK_CPU_RATIO)} |")
    ids = rows.get((small, "list_ids_100"))
    if ids:
        w(f"| {names['list_ids_100']}: CPU/request ≤ {IDS_CPU_LIMIT_US} µs at {small} | {ids['cpu_us']} µs "
          f"| {verdict(ids['cpu_us'] <= IDS_CPU_LIMIT_US)} |")


def p99_row(w, cases, names, limit, where):
    slow = [f"{names[c]} {r['p99']:.1f} ms{stolen(r)}" for c, r in cases.items() if r["p99"] > limit]
    w(f"| every case p99 ≤ {limit} ms {where} | worst {max((r['p99'] for r in cases.values()), default=0):.2f} ms"
      f"{'; over: ' + ', '.join(slow) if slow else ''} | {verdict(not slow)} |")


def stolen(row):
    """A case's host steal, said beside its p99 where there was any."""
    return f" (host steal {row['steal']} ms)" if row.get("steal") else ""
