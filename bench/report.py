#!/usr/bin/env python3
"""bench/RESULTS.md from the raw results of bench/run.sh.

Usage: report.py META RESULTS_TSV N SMALL_N  (Markdown on stdout)

META holds `key value` lines (machine, build times, start-to-first-200, log
counts); RESULTS_TSV one row per wrk run: label, req/s, p50 ms, p99 ms,
non-2xx, socket errors, requests, VmHWM kB, VmRSS kB, other CPU %, CPU µs a
request, host steal in CPU ms (older rows lack the last two). This file
owns the layout of RESULTS.md and the check of every target (docs/testing.md, "Benchmarks and contract").
"""

import sys

import targets

NAMES = {
    "get_area": "Get Area",
    "get_area_nearby": "Get Area include=nearby",
    "list_first": "List Areas first page",
    "list_deep": "List Areas deep page (offset N-20)",
    "list_score_desc": "List Areas sort=truth_score&order=desc",
    "list_gauteng": "List Areas province=gauteng",
    "search_q_prefix3": "Search q (3-letter prefix)",
    "search_q_name": "Search q (full name)",
    "search_geo_r10": "Search lat/lng radius 10 (Johannesburg)",
    "search_geo_r50": "Search lat/lng radius 50 (Johannesburg)",
    "search_q_geo_min": "Search q + lat/lng + min_score",
    "search_q_heavy_geo_min": "Search heavy word + lat/lng radius 50 + min_score",
    "search_min_score": "Search min_score alone",
    "search_bbox": "Search bbox (0.1-0.6° viewports near Johannesburg)",
    "search_province_min": "Search province + min_score (some deep pages)",
    "search_province_prefix3": "Search province + q (3-letter prefix)",
    "search_q_typo1": "Search q (full name, one typo)",
    "search_q_typo2": "Search q (full name, two typos in a long word)",
    "search_q_joined": "Search q (full name, two words joined)",
    "search_q_other_name": "Search q (an other name)",
    "search_q_prefix3_exact": "Search q (3-letter prefix) match=exact",
    "search_q_name_exact": "Search q (full name) match=exact",
    "compare_5": "Compare 5 ids",
    "history_1y_daily": "History 1y daily",
    "history_1y_weekly": "History 1y weekly",
    "history_1y_monthly": "History 1y monthly",
    "area_at_inside": "The area at a point, inside a boundary",
    "area_at_near": "The area at a point, just outside a boundary (near_boundary)",
    "area_at_nearest": "The area at a point, nearest centre (a copy without boundaries)",
    "list_geojson_boundary": "List GeoJSON geometry=boundary, 100 a page",
    "search_bbox_boundary": "Search GeoJSON bbox + geometry=boundary&simplify=250 (the explorer's view)",
    "stats_all_and_province": "Area statistics: every area, a province, by province",
    "stats_municipality": "Area statistics by municipality (pages, a province's)",
    "get_area_rank": "Get Area include=rank",
    "compare_5_rank": "Compare 5 ids include=rank",
    "list_ids_100": "List Areas by 100 ids",
}
# Measured beside the cases but not one of them: the server's pipeline with no
# key check and no body to build. Not a strict floor: it takes its own SQLite
# lock for its one query, which the API's read transaction does once per request.
FLOOR = ("healthz", "GET /healthz (for reference, not a target case)")
RSS_LIMIT_KB = 64 * 1024  # 64 MB read as 64 MiB
FIRST200_LIMIT_MS = 200
# The million-area tier's own limits (docs/testing.md, "Benchmarks and contract").
MILLION = 1_000_000
RSS_LIMIT_MILLION_KB = 128 * 1024
FIRST200_LIMIT_MILLION_MS = 1000
NOISY_PCT = 10  # other processes' CPU above this share of the machine marks a row


def read(meta_path, tsv_path):
    meta = {}
    for line in open(meta_path, encoding="utf-8"):
        key, _, value = line.rstrip("\n").partition(" ")
        meta[key] = value
    rows = {}
    for line in open(tsv_path, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        size, case = f[0].split(" ", 1)
        rows[(size, case)] = {
            "rps": float(f[1]), "p50": float(f[2]), "p99": float(f[3]), "non2xx": int(f[4]),
            "sock": int(f[5]), "requests": int(f[6]), "hwm": int(f[7] or 0), "rss": int(f[8] or 0),
            "other": int(f[9] or 0), "cpu_us": int(f[10] or 0) if len(f) > 10 else 0,
            "steal": int(f[11] or 0) if len(f) > 11 else 0,
        }
    return meta, rows


def mb(kb):
    return f"{kb / 1024:.1f} MiB"


def first_use(meta, size):
    """The first-use run's lines, or nothing when it did not run."""
    key = f"first_use_{size}"
    if key + "_all_n" not in meta:
        return []
    lines = [f"| {size} | {label} | {meta[f'{key}_{label}_n']} | {meta[f'{key}_{label}_p50']} "
             f"| {meta[f'{key}_{label}_p99']} | {meta[f'{key}_{label}_max']} |" for label in ("all", "heavy")]
    return lines


def same_run_files(meta):
    """Which of the other result files this run wrote, as its header names them."""
    gzip = "Every case with `Accept-Encoding: gzip` (bytes and CPU per request): bench/RESULTS-gzip.md."
    if meta.get("after", "1") != "1":
        return (f"{gzip} This run stopped there (BENCH_AFTER=0): bench/RESULTS-layer-run.md, "
                "RESULTS-redis.md, RESULTS-strangers.md and RESULTS-soak.md are earlier runs', "
                "each naming its commit.")
    after = ("The same run's HTTP layer beside nginx and the axum peer, and held connections: "
             "bench/RESULTS-layer-run.md; Get Area with and without Redis: bench/RESULTS-redis.md; "
             "requests without a valid key: bench/RESULTS-strangers.md;")
    if meta.get("soak_secs", "1800") == "0":
        return (f"{after} no soak (BENCH_SOAK_SECS=0): bench/RESULTS-soak.md is an earlier run's, "
                f"and names its commit. {gzip}")
    minutes = int(meta.get("soak_secs", "1800")) // 60
    return f"{after} its {minutes}-minute soak: bench/RESULTS-soak.md. {gzip}"


def main(meta_path, tsv_path, n, small):
    meta, rows = read(meta_path, tsv_path)
    rss_limit = RSS_LIMIT_MILLION_KB if int(n) >= MILLION else RSS_LIMIT_KB
    f200_limit = FIRST200_LIMIT_MILLION_MS if int(n) >= MILLION else FIRST200_LIMIT_MS
    out = []
    w = out.append
    w("# Benchmark results\n")
    w("Written by `make bench` (bench/run.sh); do not edit by hand. Findings and profiles: bench/PROFILE.md.\n")
    w(f"{same_run_files(meta)} Earlier runs, read: bench/RESULTS-layer.md, bench/RESULTS-hardening.md.\n")
    w("## Machine\n")
    for key in ("cores", "cpu", "memory", "kernel", "date", "commit", "wrk", "nginx"):
        w(f"- {key}: {meta.get(key, '?')}")
    w(f"- load average before / after the run: {meta.get('load_before', '?')} / {meta.get('load_after', '?')}")
    w(f"- wrk: 1 thread, 16 connections, {meta.get('duration', '?')} s per case after a short warm-up;"
      " the server runs with its default workers (2 per CPU) and logs every request to a file"
      f" (request logging on, log level {meta.get('server_log_level', '?')});"
      " the database file is read into the OS page cache before each case when the cache can hold it"
      " (when not, the cases read it from disk as they go)")
    w(f"- databases: {n} and {small} areas from `init --synthetic` with 400 days of history; `init` time and peak RSS: "
      f"{meta.get('build_' + n, '?')} ({n}), {meta.get('build_' + small, '?')} ({small})\n")
    if meta.get("serve_args"):
        w(f"**Non-default server flags in this run:** `serve {meta['serve_args']}` (see bench/PROFILE.md for why).\n")
    for size in (n, small):
        if meta.get("refusing_" + size):
            w(f"**At {size} areas the running server refused connections from case "
              f"'{NAMES.get(meta['refusing_' + size], meta['refusing_' + size])}' on:** its listener had stopped "
              "accepting; every later row at that size measures connection refusals, not the API.\n")
    noisy = [k for k, r in rows.items() if r["other"] > NOISY_PCT]
    if noisy:
        w(f"**Noisy run:** other processes used more than {NOISY_PCT}% of the machine's CPU during "
          f"{len(noisy)} of {len(rows)} cases (column 'other CPU'). Compare ratios within this run, "
          "not absolute numbers across runs.\n")
    else:
        w(f"Quiet run: no case saw other processes use more than {NOISY_PCT}% of the machine's CPU.\n")

    w(f"## Results at {n} areas\n")
    w("| case | req/s | p50 ms | p99 ms | non-2xx | socket errors | peak RSS (VmHWM) | CPU µs/req | other CPU "
      "| host steal ms |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for case, name in NAMES.items():
        r = rows.get((n, case))
        if r:
            if r["requests"] == 0:
                w(f"| {name} | 0 | - | - | - | refused | {mb(r['hwm'])} | - | {r['other']}% | {r['steal']} |")
                continue
            w(f"| {name} | {r['rps']:.0f} | {r['p50']:.2f} | {r['p99']:.2f} | {r['non2xx']} | {r['sock']} "
              f"| {mb(r['hwm'])} | {r['cpu_us']} | {r['other']}% | {r['steal']} |")
    r = rows.get((n, FLOOR[0]))
    if r and r["requests"]:
        w(f"| {FLOOR[1]} | {r['rps']:.0f} | {r['p50']:.2f} | {r['p99']:.2f} | {r['non2xx']} | {r['sock']} "
          f"| {mb(r['hwm'])} | {r['cpu_us']} | {r['other']}% | {r['steal']} |")
    r = rows.get((f"floor-{n}", "get_area"))
    if r and r["requests"]:
        w(f"| the layer alone (examples/layer_floor.rs), same bytes as Get Area | {r['rps']:.0f} "
          f"| {r['p50']:.2f} | {r['p99']:.2f} | {r['non2xx']} | {r['sock']} | - | {r['cpu_us']} | {r['other']}% | {r['steal']} |")
    for case in ("get_area", "list_first"):
        r = rows.get((f"nginx-{n}", case))
        if r:
            w(f"| nginx, same bytes as {NAMES[case]} | {r['rps']:.0f} | {r['p50']:.2f} | {r['p99']:.2f} "
              f"| {r['non2xx']} | {r['sock']} | (nginx) | {r['cpu_us']} | {r['other']}% | {r['steal']} |")
    w("\nPeak RSS is the server's VmHWM read after each case, so it only grows down the table. "
      "non-2xx is wrk's count of answers with status 400 or above. CPU µs/req is the server process's "
      "user+system CPU time during the case divided by the requests answered (10 ms tick resolution); "
      "other CPU is what processes other than the server and wrk used, as a share of the machine; "
      "host steal is the CPU time the hypervisor gave to other machines while this one's cores wanted to run "
      "(/proc/stat, both cores summed): it comes in stalls of about 100 ms, of one core or both, which "
      "can push a case's p99 past 20 ms (bench/PROFILE.md, \"Host steal\").\n")

    ratios = targets.nginx_table(w, rows, NAMES, FLOOR, n, small)
    w(f"\n## p50 growth from {small} to {n} areas\n")
    w(f"| case | p50 ms at {small} | p50 ms at {n} | growth | CPU µs/req at {small} | CPU µs/req at {n} |")
    w("|---|---:|---:|---:|---:|---:|")
    growth = {}
    for case, name in NAMES.items():
        a, b = rows.get((small, case)), rows.get((n, case))
        if a and b and a["requests"] and b["requests"]:
            growth[case] = b["p50"] / a["p50"] if a["p50"] > 0 else float("inf")
            w(f"| {name} | {a['p50']:.2f} | {b['p50']:.2f} | {growth[case]:.2f}x | {a['cpu_us']} | {b['cpu_us']} |")

    fu = first_use(meta, n) + first_use(meta, small)
    if fu:
        w("\n## A word's first use\n")
        w("Right after the server starts, before any case, every distinct 3-letter prefix of the names "
          "and every heavy word (one matching 5% of the areas or more) is searched once, one request at a "
          "time on one connection (bench/first_use.py): the cost of reading a word's matches before the "
          "server keeps them. 'heavy' are the searches with a total of 256 or more.\n")
        w("| areas | searches | count | p50 ms | p99 ms | max ms |")
        w("|---:|---|---:|---:|---:|---:|")
        for line in fu:
            w(line)

    w("\n## Start to first 200\n")
    w(f"- {n} areas: {meta.get('first200_' + n, '?')} ms; {small} areas: {meta.get('first200_' + small, '?')} ms"
      " (from just before `serve` starts to the first 200 of GET /v1/areas, polled every 0.5 ms)\n")

    if meta.get("export_clients"):
        w(f"## Export at {n} areas, {meta['export_clients']} clients downloading at once\n")
        w(f"Each client downloads `GET /v1/areas/export?format=json` again and again for "
          f"{meta.get('duration', '?')} s while wrk (1 thread, 16 connections) asks for Get Area beside them.\n")
        w(f"- one download: {int(meta.get('export_bytes_json', 0)) / 1e6:.1f} MB as JSON, "
          f"{int(meta.get('export_bytes_csv', 0)) / 1e6:.1f} MB as CSV")
        w(f"- downloads finished: {meta.get('export_downloads', '?')}, failed: {meta.get('export_failures', '?')}; "
          f"time of one: median {meta.get('export_seconds_median', '?')} s, slowest {meta.get('export_seconds_max', '?')} s")
        w(f"- server RSS while they ran: peak {mb(int(meta.get('export_rss_peak_kb', 0)))}")
        w(f"- Get Area beside them: {meta.get('export_get_area_rps', '?')} req/s, "
          f"p99 {meta.get('export_get_area_p99_ms', '?')} ms, non-2xx {meta.get('export_get_area_non2xx', '?')}\n")

    simplified = meta.get("simplified_export_" + n, "").split()
    if len(simplified) == 3:
        seconds, size, hwm = simplified
        w(f"## Export with boundaries at {n} areas\n")
        w(f"`GET /v1/areas/export.geojson?geometry=boundary&simplify=1000`, one client: {float(seconds):.2f} s for "
          f"{int(size) / 1e6:.1f} MB; the server's peak RSS after it {mb(int(hwm))}.\n")

    targets.write(w, meta, rows, NAMES, ratios, growth, n, small, rss_limit, f200_limit, mb)
    logged = {k[4:]: v for k, v in meta.items() if k.startswith("log_") and v not in ("0", "")}
    if logged:
        w("\nServer log lines at WARN or ERROR during cases: "
          + ", ".join(f"{k}: {v}" for k, v in logged.items()))
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: report.py META RESULTS_TSV N SMALL_N")
    main(*sys.argv[1:])
