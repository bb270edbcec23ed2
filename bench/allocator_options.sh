#!/usr/bin/env bash
# bench/allocator_options.sh DB CASE...: the release build with jemalloc's
# options as built (side a) and with MALLOC_CONF=$CONF_B (side b), side by
# side on one dataset (a `init --synthetic N` file, with its request lists
# from bench/cases.py in CASES_DIR): both servers run at once, each gets the
# first use of every heavy word (bench/first_use.py), then each CASE with
# wrk -t1 -c16 for BENCH_DURATION seconds, the sides alternated case by case
# and round by round (ROUNDS, 3). Prints each run's server CPU µs a request
# and p99, then each side's peak RSS (VmHWM). An empty CONF_B gives jemalloc's
# own defaults, against which the build's options (src/main.rs) are judged.
# Owns: the two servers it starts and their keys file (stopped and removed on exit).
set -euo pipefail
cd "$(dirname "$0")/.."
DB=$(realpath "$1"); shift
BIN=${BIN:-target/release/area-scoring}
ROUNDS=${ROUNDS:-3}
DURATION=${BENCH_DURATION:-3}
CASES_DIR=${CASES_DIR:?the request lists bench/cases.py wrote for DB}
WORK=$(mktemp -d /tmp/area-allocator.XXXXXX)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$WORK"' EXIT
KEY=$("$BIN" keys create --plan enterprise --keys "$WORK/keys.db" --db "$DB" 2>/dev/null | tail -1)
serve() { "$BIN" serve --db "$DB" --keys "$WORK/keys.db" --addr "127.0.0.1:$1" --access-log off \
  --max-connections-per-address 0 >"$WORK/$1.log" 2>&1 & pids+=($!); }
serve 18931
MALLOC_CONF=${CONF_B:-} serve 18932
for port in 18931 18932; do
  until curl -sf "127.0.0.1:$port/healthz" >/dev/null; do sleep 0.2; done
  python3 bench/first_use.py "127.0.0.1:$port" "$KEY" "$CASES_DIR/first_use.txt" 0 >/dev/null
done
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for round in $(seq "$ROUNDS"); do
  for c in "$@"; do
    for side in a b; do
      [ "$side" = a ] && { pid=${pids[0]}; port=18931; } || { pid=${pids[1]}; port=18932; }
      t0=$(ticks "$pid")
      out=$(wrk -t1 -c16 -d"${DURATION}s" -s bench/rotate.lua "http://127.0.0.1:$port" -- "$CASES_DIR/$c.txt" "$KEY" | grep '^RESULT')
      t1=$(ticks "$pid")
      awk -v r="$round" -v c="$c" -v s="$side" -v t=$((t1 - t0)) \
        '{printf "round %s %s %s: %.1f us/req, p99 %s ms, non-2xx %s\n", r, c, s, t * 10000 / $7, $4, $5}' <<<"$out"
    done
  done
done
for i in 0 1; do echo "side $([ $i = 0 ] && echo a || echo b) peak RSS $(awk '/VmHWM/{print $2, $3}' "/proc/${pids[$i]}/status")"; done
