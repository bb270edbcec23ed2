#!/usr/bin/env python3
"""Start-to-first-200 for bench/run.sh: starts the server and times it.

Usage: first200.py LOG_FILE API_KEY OUT_FILE -- SERVE_COMMAND...

Starts SERVE_COMMAND with its log appended to LOG_FILE, taking the clock just
before, so the interpreter's own start-up (hundreds of milliseconds on a busy
machine) is not counted. Writes `PID <pid>` to OUT_FILE at once, then polls the
log for `listening on http://HOST:PORT`, asks GET /v1/areas until it answers
200, and writes `ADDR HOST:PORT` and `FIRST200_MS <ms>` (or `FAILED <why>`
after 30 s). Then it stays the server's parent until the server exits, so the
server is reaped; run.sh stops the server by its pid.
"""

import http.client
import re
import subprocess
import sys
import time

LISTENING = re.compile(r"listening on http://([0-9.]+):([0-9]+)")


def wait_for_200(log_file, key, started, deadline):
    addr = None
    while addr is None:
        if time.monotonic() > deadline:
            return None, "the server did not log its address within 30 s"
        with open(log_file, encoding="utf-8", errors="replace") as f:
            m = LISTENING.search(f.read(65536))
        addr = m and (m.group(1), int(m.group(2)))
        if addr is None:
            time.sleep(0.0005)
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection(*addr, timeout=5)
            conn.request("GET", "/v1/areas", headers={"Authorization": f"Bearer {key}"})
            status = conn.getresponse().status
            conn.close()
            if status == 200:
                return addr, (time.monotonic() - started) * 1000
        except OSError:
            pass
        time.sleep(0.0005)
    return None, "the server did not answer 200 within 30 s"


def main(log_file, key, out_file, command):
    with open(log_file, "ab") as log, open(out_file, "w", encoding="utf-8") as out:
        started = time.monotonic()
        server = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
        out.write(f"PID {server.pid}\n")
        out.flush()
        addr, result = wait_for_200(log_file, key, started, started + 30)
        if addr is None:
            out.write(f"FAILED {result}\n")
            out.flush()
            server.terminate()
        else:
            out.write(f"ADDR {addr[0]}:{addr[1]}\nFIRST200_MS {result:.1f}\n")
            out.flush()
        server.wait()


if __name__ == "__main__":
    if len(sys.argv) < 6 or sys.argv[4] != "--":
        sys.exit("usage: first200.py LOG_FILE API_KEY OUT_FILE -- SERVE_COMMAND...")
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[5:])
