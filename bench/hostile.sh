#!/usr/bin/env bash
# Hostile clients against the release binary (not in make test):
# what the HTTP layer bounds in-process, measured. Each scenario starts
# a fresh server and samples its VmRSS, VmHWM, thread count and open fds from
# /proc/PID/status every second:
#   1. one client sending a header line that never ends (no CRLF), for
#      LONG_SECS seconds and at most LONG_MAX_MB megabytes;
#   2. IDLE_CONNS (5,000) idle connections held past the read timeout;
#   3. IDLE_CONNS connections each dribbling one byte every 2 s, which the
#      head timeout drops 10 s after their first byte.
# Loopback only; every loop is bounded in count and time.
#
#   bash bench/hostile.sh
set -euo pipefail

LONG_SECS=${LONG_SECS:-20}
LONG_MAX_MB=${LONG_MAX_MB:-2048}
IDLE_CONNS=${IDLE_CONNS:-5000}
HOLD_SECS=${HOLD_SECS:-25}
TIMEOUT_SECS=${TIMEOUT_SECS:-10}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# The binary cargo builds below: it honours CARGO_TARGET_DIR (relative to
# $ROOT, where cargo runs), so must this.
TARGET_DIR=${CARGO_TARGET_DIR:-target}
[[ $TARGET_DIR = /* ]] || TARGET_DIR=$ROOT/$TARGET_DIR
BIN=$TARGET_DIR/release/area-scoring
OUT=${OUT:-$ROOT/target/bench-hardening/hostile-$(date -u +%Y%m%dT%H%M%SZ)}
WORK=$(mktemp -d)
SERVER=""
CLIENT=""

cleanup() {
  # Only the processes this script started, by their ids.
  if [ -n "$CLIENT" ]; then kill "$CLIENT" 2>/dev/null || true; fi
  if [ -n "$SERVER" ]; then kill -TERM "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# Both the server and the client hold one fd per connection.
ulimit -n "$(( IDLE_CONNS * 2 + 1000 > $(ulimit -Hn) ? $(ulimit -Hn) : IDLE_CONNS * 2 + 1000 ))"
(cd "$ROOT" && cargo build --release --quiet)
mkdir -p "$OUT"
"$BIN" init --db "$WORK/areas.db" >/dev/null 2>&1

start_server() {
  "$BIN" serve --db "$WORK/areas.db" --addr 127.0.0.1:0 --client-timeout "$TIMEOUT_SECS" \
    2>"$OUT/server-$1.log" &
  SERVER=$!
  ADDR=""
  for _ in $(seq 100); do
    ADDR=$(grep -so 'listening on http://[0-9.:]*' "$OUT/server-$1.log" | head -1 | sed 's|.*http://||' || true)
    [ -n "$ADDR" ] && break
    sleep 0.1
  done
  [ -n "$ADDR" ] || { echo "server did not start" >&2; exit 1; }
  PORT=${ADDR##*:}
}

stop_server() {
  kill -TERM "$SERVER" 2>/dev/null || true
  wait "$SERVER" 2>/dev/null || true
  SERVER=""
}

# One line: seconds, VmRSS kB, VmHWM kB, threads, fds.
sample() {
  awk -v t="$1" -v fds="$(ls "/proc/$SERVER/fd" 2>/dev/null | wc -l)" '
    /^VmRSS/ {r=$2} /^VmHWM/ {h=$2} /^Threads/ {th=$2}
    END {printf "%s,%d,%d,%d,%d\n", t, r, h, th, fds}' "/proc/$SERVER/status"
}

# Samples every second while the client runs (at most $2 seconds), then $3 more.
watch_client() {
  local csv=$1 limit=$2 after=$3
  echo "secs,rss_kb,hwm_kb,threads,fds" >"$csv"
  sample 0 >>"$csv"
  for i in $(seq "$limit"); do
    sleep 1
    sample "$i" >>"$csv"
    # Mid-scenario: how long a normal request takes while the hostile client holds on.
    if [ "$i" -eq 8 ]; then
      curl -s -o /dev/null --max-time 10 -w "$(basename "$csv" .csv): normal request during the attack: %{http_code} in %{time_total} s\n" \
        "http://$ADDR/healthz" | tee -a "$OUT/summary.txt" || true
    fi
    kill -0 "$CLIENT" 2>/dev/null || break
  done
  wait "$CLIENT" || true
  CLIENT=""
  for j in $(seq "$after"); do
    sleep 1
    sample "after+$j" >>"$csv"
  done
}

cat >"$WORK/client.py" <<'PY'
import socket, sys, time
mode, port = sys.argv[1], int(sys.argv[2])
if mode == "long":
    secs, max_bytes = float(sys.argv[3]), int(sys.argv[4]) * 1024 * 1024
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /v1/areas HTTP/1.1\r\nHost: t\r\nX-Long: ")
    chunk, sent, end = b"a" * 65536, 0, time.time() + secs
    try:
        while time.time() < end and sent < max_bytes:
            s.sendall(chunk)
            sent += len(chunk)
    except OSError as e:
        print(f"long line: server closed after {sent} bytes: {e}")
    print(f"long line: sent {sent / 1048576:.0f} MiB in {secs:.0f} s or less")
    s.close()
else:
    n, hold = int(sys.argv[3]), float(sys.argv[4])
    conns = []
    for _ in range(n):
        conns.append(socket.create_connection(("127.0.0.1", port)))
    if mode == "dribble":
        for c in conns:
            c.sendall(b"GET /v1/areas HTTP/1.1\r\nX-Slow: ")
    print(f"{mode}: {len(conns)} connections open")
    end = time.time() + hold
    while time.time() < end:
        time.sleep(2)
        if mode == "dribble":
            for c in conns:
                try:
                    c.sendall(b"x")
                except OSError:
                    pass
    closed = 0
    for c in conns:
        c.setblocking(False)
        try:
            closed += c.recv(1) == b""
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    print(f"{mode}: {closed} of {len(conns)} closed by the server after {hold:.0f} s")
PY

summary() {
  local name=$1 csv=$2
  awk -F, -v name="$name" 'NR == 2 {r0=$2; t0=$4}
    NR > 1 {if ($2 > rmax) rmax=$2; if ($4 > tmax) tmax=$4; hwm=$3; last=$0}
    END {printf "%s: RSS %.1f MB -> peak %.1f MB (VmHWM %.1f MB); threads %d -> peak %d; last sample %s\n",
      name, r0/1024, rmax/1024, hwm/1024, t0, tmax, last}' "$csv" | tee -a "$OUT/summary.txt"
}

echo "== 1. one endless header line (${LONG_SECS} s, at most ${LONG_MAX_MB} MiB)"
start_server long
python3 "$WORK/client.py" long "$PORT" "$LONG_SECS" "$LONG_MAX_MB" | tee -a "$OUT/summary.txt" &
CLIENT=$!
watch_client "$OUT/long.csv" $((LONG_SECS + 5)) 10
curl -s -o /dev/null -w "healthz after: %{http_code}\n" "http://$ADDR/healthz" | tee -a "$OUT/summary.txt"
summary "endless header line" "$OUT/long.csv"
stop_server

echo "== 2. ${IDLE_CONNS} idle connections, held ${HOLD_SECS} s (read timeout ${TIMEOUT_SECS} s)"
start_server idle
python3 "$WORK/client.py" idle "$PORT" "$IDLE_CONNS" "$HOLD_SECS" | tee -a "$OUT/summary.txt" &
CLIENT=$!
watch_client "$OUT/idle.csv" $((HOLD_SECS + 30)) 10
summary "${IDLE_CONNS} idle connections" "$OUT/idle.csv"
stop_server

echo "== 3. ${IDLE_CONNS} connections dribbling a byte every 2 s, held ${HOLD_SECS} s"
start_server dribble
python3 "$WORK/client.py" dribble "$PORT" "$IDLE_CONNS" "$HOLD_SECS" | tee -a "$OUT/summary.txt" &
CLIENT=$!
watch_client "$OUT/dribble.csv" $((HOLD_SECS + 30)) 10
summary "${IDLE_CONNS} dribbling connections" "$OUT/dribble.csv"
stop_server

echo "samples and logs in $OUT"
