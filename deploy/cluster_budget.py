#!/usr/bin/env python3
"""Requests in a row through the front, for deploy/cluster-redis.sh.

    burst PORT COUNT [KEY] [SOURCE]

sends COUNT requests for GET /v1/areas?limit=1 (a request that spends its
key's budget, which GET /v1/key does not) to 127.0.0.1:PORT one after another on
one keep-alive connection (nginx spreads them over its upstreams), with
`Authorization: Bearer KEY` unless KEY is `-`, from the local address SOURCE
(default 127.0.0.1). Prints one line: how many got each status, and the
seconds from the first request's start to the last answer, e.g.
`200=61 429=139 other=0 seconds=2.13`. The shell script decides PASS or FAIL.
"""

import http.client
import sys
import time


def burst(port, count, key, source):
    headers = {} if key == "-" else {"Authorization": f"Bearer {key}"}
    conn = None
    counts = {"200": 0, "401": 0, "429": 0, "other": 0}
    started = time.monotonic()
    for _ in range(count):
        if conn is None:
            conn = http.client.HTTPConnection(
                "127.0.0.1", port, timeout=10, source_address=(source, 0)
            )
        try:
            conn.request("GET", "/v1/areas?limit=1", headers=headers)
            answer = conn.getresponse()
            answer.read()
            status = str(answer.status)
            if answer.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
        except (OSError, http.client.HTTPException):
            status = "other"
            conn = None
        counts[status if status in counts else "other"] += 1
    seconds = time.monotonic() - started
    figures = " ".join(f"{k}={v}" for k, v in counts.items())
    print(f"{figures} seconds={seconds:.2f}")


def main():
    args = sys.argv[1:]
    if len(args) < 3 or args[0] != "burst":
        sys.exit(__doc__)
    key = args[3] if len(args) > 3 else "-"
    source = args[4] if len(args) > 4 else "127.0.0.1"
    burst(int(args[1]), int(args[2]), key, source)


if __name__ == "__main__":
    main()
