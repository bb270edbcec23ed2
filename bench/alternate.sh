#!/usr/bin/env bash
# bench/alternate.sh BEFORE AFTER: two builds of the server compared in one
# run, on the seed (`init`) or a dataset named by DB, with wrk -t1 -c16 and
# the bench's own request lists (bench/cases.py, bench/rotate.lua): Get Area
# over rotating ids and List page 1 (and, when asked, the 3-letter search and
# the one-typo search), the two builds alternated case by case and round by round
# (which goes first swaps each round), beside nginx serving one Get Area's
# bytes and, when built (../shared/anchors/README.md), the epoll floor on
# the same bytes and the axum peer's Get Area. On a noisy machine compare
# the ratios within a round, and repeat. Each row: req/s, p99 ms, and the
# server's CPU µs a request (utime + stime from /proc/PID/stat, children
# included, over the run) and its threads' context switches a request. Prints a Markdown table, then each case's median.
#
# Knobs (environment): ROUNDS (3), BENCH_DURATION seconds a case (5),
# BENCH_CONNECTIONS (16), CASES (the cases run, of "nginx floor layer get
# list search typo peer"; all but search and typo by default), DB (a dataset
# to run on, such as `init --synthetic 100000`, instead of the seed), LAYER_BEFORE and LAYER_AFTER: the two builds
# of examples/layer_floor.rs (the layer alone, Get Area's bytes), alternated
# as the servers are (case "layer"), BENCH_SERVE_ARGS: extra `serve` flags
# for both builds (`--workers 2`), INIT_BY (before: which build writes the
# dataset), PERF_DIR: when set, `perf record -g` of each build
# during its Get Area case of the first round, written there.
# Owns: the processes it starts (stopped by the EXIT trap, by their ids).
set -euo pipefail
cd "$(dirname "$0")/.."

BEFORE=$(realpath "$1")
AFTER=$(realpath "$2")
ROUNDS=${ROUNDS:-3}
read -r -a SERVE_ARGS <<<"${BENCH_SERVE_ARGS:-}"
CASES=" ${CASES:-nginx floor layer get list peer} "
DURATION=${BENCH_DURATION:-5}
CONNS=${BENCH_CONNECTIONS:-16}
TARGET=${CARGO_TARGET_DIR:-target}
FLOOR=$TARGET/epoll-floor/release/epoll-floor
PEER=$TARGET/axum-peer/release/axum-peer
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
. "$(dirname "$0")/static_nginx.sh"
WORK=$(mktemp -d /tmp/area-alternate.XXXXXX)
chmod 755 "$WORK"
STARTED=()
cleanup() {
  local pid
  for pid in "${STARTED[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
say() { printf '[alternate %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The dataset is written by BEFORE: a build reads the schema versions before
# its own, not the ones after (`INIT_BY=after` writes it with AFTER instead).
if [ -n "${DB:-}" ]; then
  DB=$(realpath "$DB")
else
  DB=$WORK/areas.db
  INIT=$BEFORE
  [ "${INIT_BY:-before}" = before ] || INIT=$AFTER
  "$INIT" init --db "$DB" >/dev/null 2>&1
fi
KEY=$("$AFTER" keys create --db "$DB" --keys "$WORK/keys.db" --plan enterprise --label alternate 2>/dev/null)
mkdir -p "$WORK/cases"
python3 bench/cases.py "$DB" "$WORK/cases" >/dev/null
head -1 "$WORK/cases/list_first.txt" >"$WORK/list.txt"
echo /area.json >"$WORK/static.txt"
echo / >"$WORK/root.txt"

# serve BIN -> "PID ADDR"
serve() {
  local log=$WORK/server.$RANDOM.log pid a=""
  "$1" serve --db "$DB" --keys "$WORK/keys.db" --addr 127.0.0.1:0 --max-connections-per-address 0 "${SERVE_ARGS[@]}" 2>"$log" &
  pid=$!
  until [ -n "$a" ]; do
    sleep 0.05
    kill -0 "$pid" 2>/dev/null || { say "$1 did not start: $(tail -2 "$log")"; exit 1; }
    a=$(grep -so -E 'listening on http://[0-9.:]+' "$log" | head -1 | sed 's/.*http:\/\///' || true)
  done
  echo "$pid $a"
}
# serve runs in a subshell: its pids are recorded here, for the EXIT trap.
read -r BEFORE_PID BEFORE_ADDR < <(serve "$BEFORE")
STARTED+=("$BEFORE_PID")
read -r AFTER_PID AFTER_ADDR < <(serve "$AFTER")
STARTED+=("$AFTER_PID")
AREA=$(head -1 "$WORK/cases/get_area.txt")
mkdir -p "$WORK/www"
curl -sf -o "$WORK/www/area.json" -H "Authorization: Bearer $KEY" "http://$AFTER_ADDR$AREA"
start_static_nginx
if [ -x "$FLOOR" ]; then
  FLOOR_PORT=$(free_port)
  "$FLOOR" "127.0.0.1:$FLOOR_PORT" 2 "$WORK/www/area.json" &
  FLOOR_PID=$!
  STARTED+=("$FLOOR_PID")
fi
if [ -x "$PEER" ]; then
  PEER_PORT=$(free_port)
  "$PEER" "$DB" "127.0.0.1:$PEER_PORT" >"$WORK/peer.log" 2>&1 &
  PEER_PID=$!
  STARTED+=("$PEER_PID")
  until curl -sf -o /dev/null "http://127.0.0.1:$PEER_PORT$AREA"; do sleep 0.05; done
fi

# layer_floor BIN -> "PID ADDR"
layer_floor() {
  local out=$WORK/layer.$RANDOM.out a=""
  "$1" "$WORK/www/area.json" >"$out" &
  echo "$! $(sleep 0.3; grep -so -E 'ADDR [0-9.:]+' "$out" | sed 's/ADDR //')"
}
if [ -n "${LAYER_BEFORE:-}" ] && [ -n "${LAYER_AFTER:-}" ]; then
  read -r LAYER_BEFORE_PID LAYER_BEFORE_ADDR < <(layer_floor "$LAYER_BEFORE")
  read -r LAYER_AFTER_PID LAYER_AFTER_ADDR < <(layer_floor "$LAYER_AFTER")
  STARTED+=("$LAYER_BEFORE_PID" "$LAYER_AFTER_PID")
fi

ticks() {
  local pid total=0 t
  for pid in "$1" $(ps -o pid= --ppid "$1" 2>/dev/null); do
    t=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)
    total=$((total + t))
  done
  echo "$total"
}
HZ=$(getconf CLK_TCK)
# Context switches (voluntary and not) of a process's threads and its children's.
switches() {
  local pid total=0
  for pid in "$1" $(ps -o pid= --ppid "$1" 2>/dev/null); do
    total=$((total + $(cat /proc/"$pid"/task/*/status 2>/dev/null |
      awk '/^(non)?voluntary_ctxt_switches/{s += $2} END{print s + 0}')))
  done
  echo "$total"
}

# case ROUND NAME PID URL PATHS [PERF_NAME]
case_row() {
  local round=$1 name=$2 pid=$3 url=$4 paths=$5 perf=${6:-} before after line perf_pid="" sw0 sw1
  wrk -t1 -c"$CONNS" -d1s -s bench/rotate.lua "$url" -- "$paths" "$KEY" >/dev/null 2>&1 || true
  if [ -n "$perf" ] && [ -n "${PERF_DIR:-}" ] && [ "$round" = 1 ]; then
    mkdir -p "$PERF_DIR"
    perf record -q -g -p "$pid" -o "$PERF_DIR/$perf.data" -- sleep "$DURATION" 2>/dev/null &
    perf_pid=$!
  fi
  before=$(ticks "$pid")
  sw0=$(switches "$pid")
  line=$(wrk -t1 -c"$CONNS" -d"${DURATION}s" --timeout 5s -s bench/rotate.lua "$url" -- "$paths" "$KEY" |
    grep '^RESULT' || echo "RESULT 0 0 0 0 -1 0")
  after=$(ticks "$pid")
  sw1=$(switches "$pid")
  [ -z "$perf_pid" ] || wait "$perf_pid" || true
  # RESULT req/s p50 p99 non2xx errors requests
  read -r _ rps _ p99 non2xx _ n <<<"$line"
  [ "$non2xx" = 0 ] || say "warning: $name had $non2xx non-2xx answers"
  printf '| %s | %s | %.0f | %.2f | %.1f | %.2f |\n' "$round" "$name" "$rps" "$p99" \
    "$(awk -v t=$((after - before)) -v hz="$HZ" -v n="$n" 'BEGIN{print (n > 0 ? t / hz * 1e6 / n : 0)}')" \
    "$(awk -v s=$((sw1 - sw0)) -v n="$n" 'BEGIN{print (n > 0 ? s / n : 0)}')"
}

printf '| round | case | req/s | p99 ms | server CPU µs/request | switches/request |\n|---:|---|---:|---:|---:|---:|\n'
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then order="before after"; else order="after before"; fi
  has() { [[ "$CASES" == *" $1 "* ]]; }
  ! has nginx || case_row "$round" "nginx, one Get Area's bytes" "$NGINX_PID" "http://127.0.0.1:$NGINX_PORT" "$WORK/static.txt"
  [ -z "${FLOOR_PID:-}" ] || ! has floor || case_row "$round" "epoll floor, the same bytes" "$FLOOR_PID" "http://127.0.0.1:$FLOOR_PORT" "$WORK/root.txt"
  for which in $order; do
    [ -n "${LAYER_AFTER_PID:-}" ] && has layer || continue
    if [ "$which" = before ]; then pid=$LAYER_BEFORE_PID addr=$LAYER_BEFORE_ADDR; else pid=$LAYER_AFTER_PID addr=$LAYER_AFTER_ADDR; fi
    case_row "$round" "$which, layer floor" "$pid" "http://$addr" "$WORK/root.txt" "layer-$which"
  done
  for which in $order; do
    has get || continue
    if [ "$which" = before ]; then pid=$BEFORE_PID addr=$BEFORE_ADDR; else pid=$AFTER_PID addr=$AFTER_ADDR; fi
    case_row "$round" "$which, Get Area" "$pid" "http://$addr" "$WORK/cases/get_area.txt" "get-area-$which"
  done
  for which in $order; do
    has list || continue
    if [ "$which" = before ]; then pid=$BEFORE_PID addr=$BEFORE_ADDR; else pid=$AFTER_PID addr=$AFTER_ADDR; fi
    case_row "$round" "$which, List page 1" "$pid" "http://$addr" "$WORK/list.txt"
  done
  for which in $order; do
    has search || continue
    if [ "$which" = before ]; then pid=$BEFORE_PID addr=$BEFORE_ADDR; else pid=$AFTER_PID addr=$AFTER_ADDR; fi
    case_row "$round" "$which, 3-letter search" "$pid" "http://$addr" "$WORK/cases/search_q_prefix3.txt"
  done
  for which in $order; do
    has typo || continue
    if [ "$which" = before ]; then pid=$BEFORE_PID addr=$BEFORE_ADDR; else pid=$AFTER_PID addr=$AFTER_ADDR; fi
    case_row "$round" "$which, one typo" "$pid" "http://$addr" "$WORK/cases/search_q_typo1.txt"
  done
  [ -z "${PEER_PID:-}" ] || ! has peer || case_row "$round" "axum peer, Get Area" "$PEER_PID" "http://127.0.0.1:$PEER_PORT" "$WORK/cases/get_area.txt"
done | tee "$WORK/rows.md"

echo
echo "Medians over $ROUNDS rounds (req/s, p99 ms, CPU µs/request, switches/request):"
python3 bench/medians.py "$WORK/rows.md" "req/s" "p99 ms" "µs" "switches"
echo
echo "wrk -t1 -c$CONNS -d${DURATION}s each; $(nproc) cores; load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
