#!/usr/bin/env python3
"""The export under load, for bench/run.sh: four clients download the whole
export at once, again and again, while wrk measures Get Area beside them.

Usage: export.py ADDR KEYS SERVER_PID GET_AREA_PATHS DURATION_S >> meta

KEYS is a comma-separated list of four keys on the growth plan or above, one
for each client: one key may stream two exports at once (docs/api.md, "Export
Areas"). wrk asks for Get Area with the first.

Prints `export_*` lines for bench/report.py: the size of one download (CSV
and JSON), the median and slowest time of one, how many finished, the
server's peak RSS while they ran (VmRSS sampled every 50 ms; VmHWM would
include the start-up), and Get Area's req/s and p99 during them.
Only ADDR (on 127.0.0.1) is contacted; every loop ends after DURATION_S.
"""

import http.client
import statistics
import subprocess
import sys
import threading
import time

CLIENTS = 4


def download(addr, key, target):
    """One whole download: (bytes, seconds)."""
    host, port = addr.split(":")
    started = time.monotonic()
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    conn.request("GET", target, headers={"Authorization": f"Bearer {key}"})
    response = conn.getresponse()
    if response.status != 200:
        raise RuntimeError(f"{target} answered {response.status}: {response.read(300)!r}")
    size = 0
    while chunk := response.read(1 << 16):
        size += len(chunk)
    conn.close()
    return size, time.monotonic() - started


def rss_kb(pid):
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main(addr, keys, pid, paths, duration):
    keys = keys.split(",")
    assert len(keys) >= CLIENTS, f"one key a client: {CLIENTS} keys"
    key = keys[0]
    sizes = {fmt: download(addr, key, f"/v1/areas/export?format={fmt}")[0] for fmt in ("csv", "json")}
    stop = time.monotonic() + duration
    times, failures, peak = [], [], [rss_kb(pid)]

    def client(own_key):
        while time.monotonic() < stop:
            try:
                times.append(download(addr, own_key, "/v1/areas/export?format=json")[1])
            except Exception as e:  # a failed download is a result, not a crash
                failures.append(str(e))

    def sample():
        while time.monotonic() < stop:
            peak.append(rss_kb(pid))
            time.sleep(0.05)

    threads = [threading.Thread(target=client, args=(k,)) for k in keys[:CLIENTS]]
    threads.append(threading.Thread(target=sample))
    for t in threads:
        t.start()
    wrk = subprocess.run(
        ["wrk", "-t1", "-c16", f"-d{duration}s", "--timeout", "5s", "-s", "bench/rotate.lua",
         f"http://{addr}", "--", paths, key],
        capture_output=True, text=True, check=False)
    for t in threads:
        t.join()
    result = next((l.split()[1:] for l in wrk.stdout.splitlines() if l.startswith("RESULT ")), None)
    print(f"export_clients {CLIENTS}")
    print(f"export_bytes_json {sizes['json']}")
    print(f"export_bytes_csv {sizes['csv']}")
    print(f"export_downloads {len(times)}")
    print(f"export_failures {len(failures)}{' (' + failures[0][:120] + ')' if failures else ''}")
    if times:
        print(f"export_seconds_median {statistics.median(times):.2f}")
        print(f"export_seconds_max {max(times):.2f}")
    print(f"export_rss_peak_kb {max(peak)}")
    if result:
        print(f"export_get_area_rps {result[0]}")
        print(f"export_get_area_p99_ms {result[2]}")
        print(f"export_get_area_non2xx {result[3]}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
