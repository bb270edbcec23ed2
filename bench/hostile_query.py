#!/usr/bin/env python3
"""Server CPU a request for a plain /healthz and for the security review's
hostile target (/healthz?q=x& then 2,715 distinct two-character names, 8,148
bytes), for one or more builds, alternated over rounds; medians printed.

    python3 bench/hostile_query.py DB BIN [BIN ...]

Each BIN serves DB (made with `area-scoring init --db DB`) on a loopback port
of its own with 4 workers; 2,000 requests a batch go over one kept-alive
connection. CPU is the scheduler's account of every thread of the server
(/proc/PID/task/*/schedstat), so the client's own time is not counted.
tests/query_cost.rs checks every route's bound; this script is for putting a
figure beside an older build's.
"""
import itertools
import os
import socket
import statistics
import string
import subprocess
import sys
import time

BATCH = 2000
ROUNDS = 4


def cpu_ns(pid):
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:
            pass
    return total


def batch(port, target):
    """BATCH GETs of target on one connection; each answer read whole."""
    s = socket.create_connection(("127.0.0.1", port))
    request = f"GET {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    buf = b""
    for _ in range(BATCH):
        s.sendall(request)
        while b"\r\n\r\n" not in buf:
            buf += s.recv(65536)
        head, _, rest = buf.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        while len(rest) < length:
            rest += s.recv(65536)
        buf = rest[length:]
    s.close()


def hostile_target():
    chars = string.ascii_letters + string.digits
    names = ["".join(p) for p in itertools.product(chars, repeat=2)][:2715]
    return ("/healthz?q=x&" + "&".join(names))[:8148]


def main():
    db, bins = sys.argv[1], sys.argv[2:]
    targets = {"plain": "/healthz", "hostile": hostile_target()}
    cpu = {(b, k): [] for b in bins for k in targets}
    for rnd in range(ROUNDS):
        order = bins if rnd % 2 == 0 else list(reversed(bins))
        for n, binary in enumerate(order):
            port = 18300 + rnd * len(bins) + n
            server = subprocess.Popen(
                [binary, "serve", "--db", db, "--addr", f"127.0.0.1:{port}", "--workers", "4"],
                stderr=subprocess.DEVNULL,
            )
            time.sleep(1)
            for kind, target in targets.items():
                before = cpu_ns(server.pid)
                batch(port, target)
                cpu[(binary, kind)].append((cpu_ns(server.pid) - before) / BATCH / 1000)
            server.kill()
            server.wait()
    for (binary, kind), rounds in cpu.items():
        print(f"{binary} {kind}: median {statistics.median(rounds):.1f} µs a request "
              f"(rounds {', '.join(f'{r:.1f}' for r in rounds)})")


if __name__ == "__main__":
    main()
