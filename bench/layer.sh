#!/usr/bin/env bash
# bench/layer.sh (`make bench-layer`): what the HTTP layer costs, in one run,
# with wrk -t1 -c16 on loopback: nginx serving Get Area's bytes from a file
# (the ceiling), the layer's floor (examples/layer_floor.rs: the same bytes
# through src/transport/ with no app), this server's Get Area and List page 1,
# and the axum peer of ../shared/anchors (its README) on the same dataset file.
# Each case reports req/s, p99 and the server's CPU microseconds per request
# (utime + stime of the process and its children, from /proc, over the run).
# Then the held connections: as many idle keep-alive connections as the
# descriptor limit allows (up to 10,000), the server's threads and RSS, and one
# more request's time. Prints a Markdown table on stdout.
#
# Knobs (environment): BENCH_DURATION seconds per case (10), BENCH_CONNECTIONS
# (16), BENCH_DB (a database to serve; default a fresh `init`, the seed).
# Owns: the processes it starts (stopped by the EXIT trap, by their ids).
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${BENCH_DURATION:-10}
CONNS=${BENCH_CONNECTIONS:-16}
PEER_AIM=1.5 # Get Area against the axum peer, at the size of BENCH_DB
TARGET=${CARGO_TARGET_DIR:-target}
BIN=$TARGET/release/area-scoring
FLOOR=$TARGET/release/examples/layer_floor
PEER_DIR=../shared/anchors/axum-peer
PEER=$TARGET/axum-peer/release/axum-peer
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
. "$(dirname "$0")/static_nginx.sh"
BENCH_TAG=layer
. "$(dirname "$0")/work.sh"

command -v wrk >/dev/null || { echo "wrk is missing: make bench installs it" >&2; exit 1; }
cargo build --release --quiet --bin area-scoring --example layer_floor
if [ -f "$PEER_DIR/Cargo.toml" ] && [ ! -x "$PEER" ]; then
  say "building the axum peer (once)"
  cargo build --release --quiet --manifest-path "$PEER_DIR/Cargo.toml" --target-dir "$TARGET/axum-peer" ||
    say "warning: the axum peer did not build; its rows are left out"
fi

DB=${BENCH_DB:-$WORK/areas.db}
[ -f "$DB" ] || "$BIN" init --db "$DB" >/dev/null
KEY=$("$BIN" keys create --db "$DB" --new-keys-file --plan enterprise --label layer-bench)

# CPU ticks (utime + stime) of a process and its children.
ticks() {
  local pid total=0 t
  for pid in "$1" $(ps -o pid= --ppid "$1" 2>/dev/null); do
    t=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)
    total=$((total + t))
  done
  echo "$total"
}

# Waits for "ADDR host:port" or "listening on http://host:port" in a file.
addr_in() {
  local file=$1 a="" tries=0
  while [ -z "$a" ]; do
    a=$(grep -so -E 'ADDR [0-9.:]+|listening on http://[0-9.:]+' "$file" | head -1 | sed -E 's/.* |.*http:\/\///' || true)
    tries=$((tries + 1))
    [ $tries -lt 200 ] || { say "no address in $file"; cat "$file" >&2; exit 1; }
    [ -n "$a" ] || sleep 0.05
  done
  echo "$a"
}

HZ=$(getconf CLK_TCK)
printf '| case | req/s | p99 ms | server CPU µs/request |\n|---|---:|---:|---:|\n'
# case NAME PID URL [header]
case_row() {
  local name=$1 pid=$2 url=$3 header=${4:-X-None: 0} before after out rps p99 n
  wrk -t1 -c"$CONNS" -d2s -H "$header" "$url" >/dev/null 2>&1 || true
  before=$(ticks "$pid")
  out=$(wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency -H "$header" "$url")
  after=$(ticks "$pid")
  rps=$(awk '/^Requests\/sec/{print $2}' <<<"$out")
  n=$(awk '/requests in/{print $1}' <<<"$out")
  p99=$(awk '$1=="99%"{v=$2; if (v ~ /us$/) {sub("us","",v); v/=1000} else if (v ~ /ms$/) {sub("ms","",v)} else if (v ~ /s$/) {sub("s","",v); v*=1000}; print v}' <<<"$out")
  grep -q "Non-2xx" <<<"$out" && say "warning: $name had non-2xx answers"
  LAST_RPS=$rps
  printf '| %s | %.0f | %.2f | %.1f |\n' "$name" "$rps" "$p99" \
    "$(awk -v t=$((after - before)) -v hz="$HZ" -v n="$n" 'BEGIN{print t / hz * 1e6 / n}')"
}

"$BIN" serve --db "$DB" --addr 127.0.0.1:0 --max-connections-per-address 0 2>"$WORK/server.log" &
SERVER=$!
STARTED+=("$SERVER")
ADDR=$(addr_in "$WORK/server.log")
AREA=$(curl -sf -H "Authorization: Bearer $KEY" "http://$ADDR/v1/areas?limit=1" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0]["id"])')
mkdir -p "$WORK/www"
curl -sf -o "$WORK/www/area.json" -H "Authorization: Bearer $KEY" "http://$ADDR/v1/areas/$AREA"

# nginx, 2 workers, no access log: the ceiling.
start_static_nginx
port=$NGINX_PORT
case_row "nginx, Get Area's bytes from a file" "$NGINX_PID" "http://127.0.0.1:$port/area.json"
kill "$NGINX_PID"

"$FLOOR" "$WORK/www/area.json" >"$WORK/floor.out" &
FLOOR_PID=$!
STARTED+=("$FLOOR_PID")
case_row "the layer's floor (examples/layer_floor.rs), same bytes" "$FLOOR_PID" "http://$(addr_in "$WORK/floor.out")/"
kill "$FLOOR_PID"

case_row "this server, Get Area" "$SERVER" "http://$ADDR/v1/areas/$AREA" "Authorization: Bearer $KEY"
SERVER_RPS=$LAST_RPS
case_row "this server, List page 1" "$SERVER" "http://$ADDR/v1/areas" "Authorization: Bearer $KEY"

if [ -x "$PEER" ]; then
  peer_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$PEER" "$DB" "127.0.0.1:$peer_port" >"$WORK/peer.log" 2>&1 &
  PEER_PID=$!
  STARTED+=("$PEER_PID")
  until curl -sf -o /dev/null "http://127.0.0.1:$peer_port/v1/areas/$AREA"; do sleep 0.05; done
  case_row "axum peer, Get Area" "$PEER_PID" "http://127.0.0.1:$peer_port/v1/areas/$AREA"
  PEER_RPS=$LAST_RPS
  case_row "axum peer, List page 1" "$PEER_PID" "http://127.0.0.1:$peer_port/v1/areas?limit=20"
  kill "$PEER_PID"
fi

if [ -n "${PEER_RPS:-}" ]; then
  # The aim (docs/testing.md, "Benchmarks and contract"): at least PEER_AIM times the peer.
  awk -v s="$SERVER_RPS" -v p="$PEER_RPS" -v aim="$PEER_AIM" 'BEGIN{r = p > 0 ? s / p : 0;
    printf "\nGet Area against the axum peer: %.2fx (aim: at least %sx): %s\n", r, aim, (r >= aim ? "met" : "**missed**")}'
fi

# Held connections, against the same server.
python3 - "$ADDR" "$SERVER" <<'PY'
import resource, socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
pid = sys.argv[2]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
count = min(10000, (soft - 200) // 2)
def status(field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field):
            return int(line.split()[1])
before = (status("Threads:"), status("VmRSS:"))
held = []
for i in range(count):
    s = socket.create_connection((host, int(port)))
    if i % 2 == 0:
        s.sendall(b"GET /healthz HTTP/1.1\r\n\r\n")
    held.append(s)
time.sleep(1)
after = (status("Threads:"), status("VmRSS:"))
started = time.monotonic()
c = socket.create_connection((host, int(port)))
c.sendall(b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n")
reply = c.recv(64)
took = (time.monotonic() - started) * 1000
print()
print(f"Held connections: {count} idle keep-alive (half answered once). "
      f"Threads {before[0]} -> {after[0]}; RSS {before[1] / 1024:.1f} -> {after[1] / 1024:.1f} MiB; "
      f"one more request answered {reply[:12].decode(errors='replace')!r} in {took:.1f} ms.")
PY
echo
echo "wrk -t1 -c$CONNS -d${DURATION}s each; $(nproc) cores; load before the end $(cut -d' ' -f1-3 /proc/loadavg); commit $(git rev-parse --short HEAD)"
