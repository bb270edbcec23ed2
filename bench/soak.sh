#!/usr/bin/env bash
# Soak (not in make test): wrk at 64 connections over mixed endpoints, half
# of them (wrk's second thread) taking gzip (Accept-Encoding), for SOAK_SECS (default 1800: 30 minutes), with an atomic-rename reload of the
# database every minute (SIGHUP on every other one, the file watcher alone on
# the rest), and beside it, in a loop, the hostile shapes the HTTP layer
# refuses (docs/http-layer.md): HTTP/2.0 and 3.0 lines, a chunked GET, a
# malformed head, a non-ASCII header, Content-Length 99999999999, an endless
# request line, 50 slowloris clients and 4 pipelining clients that never read.
# Reports status counts (non-2xx must be 0 with an enterprise key), socket
# errors, and the server's RSS and thread count sampled every 10 s, so that
# growth after the first minute shows. Loopback only; every loop is bounded.
#
#   bash bench/soak.sh            # 30 minutes
#   SOAK_SECS=120 bash bench/soak.sh
#   SOAK_SECS=180 RELOAD_SECS=3 bash bench/soak.sh   # ~60 reloads: does RSS grow per reload?
set -euo pipefail

SOAK_SECS=${SOAK_SECS:-1800}
# Seconds between reloads: 60 for the soak; a few seconds to look for a leak per reload.
RELOAD_SECS=${RELOAD_SECS:-60}
CONNECTIONS=${CONNECTIONS:-64}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# The binary cargo builds below: it honours CARGO_TARGET_DIR (relative to
# $ROOT, where cargo runs), so must this.
TARGET_DIR=${CARGO_TARGET_DIR:-target}
[[ $TARGET_DIR = /* ]] || TARGET_DIR=$ROOT/$TARGET_DIR
BIN=$TARGET_DIR/release/area-scoring
OUT=${OUT:-$ROOT/target/bench-hardening/soak-$(date -u +%Y%m%dT%H%M%SZ)}
WORK=$(mktemp -d)
SERVER=""
RELOADER=""
SAMPLER=""
HOSTILE=""

cleanup() {
  # Only the processes this script started, by their ids.
  for pid in $RELOADER $SAMPLER $HOSTILE; do kill "$pid" 2>/dev/null || true; done
  if [ -n "$SERVER" ]; then kill -TERM "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
(cd "$ROOT" && cargo build --release --quiet)
mkdir -p "$OUT"

DB=$WORK/areas.db
"$BIN" init --db "$DB" >/dev/null
KEY=$("$BIN" keys create --db "$DB" --new-keys-file --plan enterprise --label soak)
# Enterprise is unlimited (NULL) by default: any 429 would be a fault here.

"$BIN" serve --db "$DB" --addr 127.0.0.1:0 --max-connections-per-address 0 2>"$OUT/server.log" &
SERVER=$!
ADDR=""
for _ in $(seq 100); do
  ADDR=$(grep -so 'listening on http://[0-9.:]*' "$OUT/server.log" | head -1 | sed 's|.*http://||' || true)
  [ -n "$ADDR" ] && break
  sleep 0.1
done
[ -n "$ADDR" ] || { echo "server did not start" >&2; cat "$OUT/server.log" >&2; exit 1; }
echo "server pid $SERVER on $ADDR; output in $OUT"

# Area ids for the rotation, from the server itself.
IDS=$(curl -sf -H "Authorization: Bearer $KEY" "http://$ADDR/v1/areas?limit=40&sort=truth_score" |
  python3 -c 'import json,sys; print(",".join(json.dumps(a["id"]) for a in json.load(sys.stdin)["data"]))')

cat >"$WORK/mixed.lua" <<LUA
-- Rotates over every endpoint; counts answers by status in each thread.
local ids = { $IDS }
local auth = { ["Authorization"] = "Bearer $KEY" }
local zipped = { ["Authorization"] = "Bearer $KEY", ["Accept-Encoding"] = "gzip" }
local n = 0
local threads = {}
-- The second thread's connections take gzip: half the clients.
function setup(thread) table.insert(threads, thread); thread:set("gzip", #threads % 2 == 0) end
function init(args) statuses = {} end
local function enc(s) return (s:gsub("[^%w%-_.~]", function(c) return string.format("%%%02X", string.byte(c)) end)) end
function request()
  n = n + 1
  local id = enc(ids[(n % #ids) + 1])
  local other = enc(ids[((n + 7) % #ids) + 1])
  local k = n % 6
  local path
  if k == 0 then path = "/v1/areas?limit=20&offset=" .. (n % 900)
  elseif k == 1 then path = "/v1/areas/" .. id .. "?include=nearby"
  elseif k == 2 then path = "/v1/areas/search?q=" .. ({"cape", "sand", "port", "east", "berg"})[(n % 5) + 1]
  elseif k == 3 then path = "/v1/areas/search?lat=-26.1&lng=28.05&radius=" .. ((n % 50) + 1)
  elseif k == 4 then path = "/v1/areas/" .. id .. "/history?period=90d&granularity=weekly"
  else path = "/v1/areas/compare?ids=" .. id .. "," .. other end
  if id == other and k == 5 then path = "/v1/areas?sort=truth_score" end
  return wrk.format("GET", path, gzip and zipped or auth)
end
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end
function done(summary, latency, requests)
  local total = {}
  for _, t in ipairs(threads) do
    for s, c in pairs(t:get("statuses")) do total[s] = (total[s] or 0) + c end
  end
  for s, c in pairs(total) do io.write(string.format("status %d: %d\n", s, c)) end
  local e = summary.errors
  io.write(string.format("socket errors: connect %d, read %d, write %d, status %d, timeout %d\n",
    e.connect, e.read, e.write, e.status, e.timeout))
  io.write(string.format("latency ms: p50 %.2f, p99 %.2f, max %.2f\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
LUA

# Every 10 s: seconds, VmRSS kB, VmHWM kB, threads, open fds.
sample() {
  echo "secs,rss_kb,hwm_kb,threads,fds" >"$OUT/samples.csv"
  local start=$SECONDS
  for _ in $(seq $((SOAK_SECS / 10 + 3))); do
    [ -r "/proc/$SERVER/status" ] || break
    awk -v t=$((SECONDS - start)) -v fds="$(ls /proc/$SERVER/fd | wc -l)" '
      /^VmRSS/ {r=$2} /^VmHWM/ {h=$2} /^Threads/ {th=$2}
      END {printf "%d,%d,%d,%d,%d\n", t, r, h, th, fds}' "/proc/$SERVER/status" >>"$OUT/samples.csv"
    sleep 10
  done
}
sample &
SAMPLER=$!

# Every RELOAD_SECS: a new database written beside the old and renamed over it
# (init --force does exactly that, carrying the keys over); SIGHUP every other time.
# It stops with wrk: a count of reloads would run past wrk's end, since each
# init takes a second or more.
reload() {
  local end=$((SECONDS + SOAK_SECS)) n=0
  while sleep "$RELOAD_SECS" && [ "$SECONDS" -lt "$end" ]; do
    n=$((n + 1))
    if ! "$BIN" init --db "$DB" --force >/dev/null 2>"$WORK/init.err"; then
      echo "$(date -u +%T) reload $n FAILED: $(tr '\n' ' ' <"$WORK/init.err")" >>"$OUT/reloads.log"
      continue
    fi
    if [ $((n % 2)) -eq 0 ]; then kill -HUP "$SERVER"; fi
    echo "$(date -u +%T) reload $n" >>"$OUT/reloads.log"
  done
}
reload &
RELOADER=$!

# The hostile shapes, round after round, until wrk's end; each round bounded.
python3 - "$ADDR" "$SOAK_SECS" >"$OUT/hostile.log" 2>&1 <<'PY' &
import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
end = time.monotonic() + int(sys.argv[2])
def conn():
    s = socket.create_connection((host, int(port)), timeout=5)
    return s
def exchange(raw):
    s = conn()
    try:
        s.sendall(raw)
        out = b""
        while True:
            b = s.recv(65536)
            if not b:
                return out
            out += b
    except OSError:
        return b""
    finally:
        s.close()
shapes = [
    b"GET /healthz HTTP/2.0\r\n\r\n", b"GET /healthz HTTP/3.0\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nNoColon\r\n\r\n", b"GET /healthz HTTP/1.1\r\nExpect: x\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nX-Request-Id: caf\xc3\xa9\r\nConnection: close\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n",
    b"GET /" + b"a" * 262144,
]
rounds = 0
while time.monotonic() < end:
    for raw in shapes:
        exchange(raw)
    slow = [conn() for _ in range(50)]
    for s in slow:
        s.sendall(b"GET /v1/areas HTTP/1.1\r\nX-Slow: ")
    readers = []
    for _ in range(4):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect((host, int(port)))
        s.setblocking(False)
        try:
            s.send(b"GET /v1/openapi.json HTTP/1.1\r\n\r\n" * 20)
        except BlockingIOError:
            pass
        readers.append(s)
    time.sleep(3)
    for s in slow + readers:
        s.close()
    rounds += 1
print(f"hostile rounds: {rounds}")
PY
HOSTILE=$!

wrk -t2 -c"$CONNECTIONS" -d"${SOAK_SECS}s" --timeout 5s --latency -s "$WORK/mixed.lua" "http://$ADDR" | tee "$OUT/wrk.txt"
wait "$RELOADER" 2>/dev/null || true
RELOADER=""
wait "$HOSTILE" 2>/dev/null || true
HOSTILE=""
kill "$SAMPLER" 2>/dev/null || true
wait "$SAMPLER" 2>/dev/null || true
SAMPLER=""
cat "$OUT/hostile.log"

echo "--- samples (secs,rss_kb,hwm_kb,threads,fds)"
cat "$OUT/samples.csv"
echo "--- reloads logged by the server (and failed init --force runs)"
grep -c 'reloaded' "$OUT/server.log" || true
grep -c FAILED "$OUT/reloads.log" || true
grep -E 'refused|panick|ERROR' "$OUT/server.log" | head -5 || true
# One line per request: about 240 MB in 10 minutes, 20 MB compressed.
gzip -f "$OUT/server.log"
non2xx=$(grep -E '^status ' "$OUT/wrk.txt" | awk '$2 !~ /^2/ {s += $3} END {print s + 0}')
echo "non-2xx answers: $non2xx"

# After the first minute, while wrk ran: is RSS bounded, or still climbing?
# The first and last thirds of that span are compared (medians, and highest
# samples, which include any sample taken while a reload held two datasets),
# and the thread and open-file counts listed (one value each means flat).
python3 - "$OUT/samples.csv" "$SOAK_SECS" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if 60 <= int(r["secs"]) < int(sys.argv[2])]
if len(rows) < 6:
    sys.exit("too few samples after the first minute to judge")
mb = [int(r["rss_kb"]) / 1000 for r in rows]
third = len(mb) // 3
first, last = mb[:third], mb[-third:]
print(f"RSS after the first minute: {min(mb):.2f}-{max(mb):.2f} MB over {len(mb)} samples; "
      f"first third median {statistics.median(first):.2f} MB (highest {max(first):.2f}), "
      f"last third median {statistics.median(last):.2f} MB (highest {max(last):.2f})")
print("threads after the first minute:", sorted({int(r["threads"]) for r in rows}),
      "open files:", sorted({int(r["fds"]) for r in rows}))
for field, unit in (("threads", ""), ("fds", ""), ("rss_kb", " kB")):
    v = [int(r[field]) for r in rows]
    print(f"{field}: first {v[0]}{unit}, last {v[-1]}{unit}, max {max(v)}{unit}")
PY
