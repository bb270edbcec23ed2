#!/usr/bin/env bash
# bench/reload_rss.sh BIN...: the server's RSS across many reloads under load,
# for one or more builds (an allocator against another, say), one after the
# other on the same dataset. Each build serves a mix of the bench's requests
# (bench/cases.py: Get Area, List, search by words, typos and circles,
# History) from wrk -t1 -c16 while the dataset is replaced RELOADS times by a
# rename, as an operator does (docs/deployment.md, "Reloading data"), which
# the server's watcher notices within a second. Two copies of one file take
# turns, so a reload costs a rename, not a build. After each reload is
# logged, wrk runs on for SETTLE seconds and VmRSS is read from
# /proc/PID/status.
#
# Prints, a build a line: RSS in MB before the first reload (after WARMUP
# seconds of load) and after reloads 10, 50 and RELOADS, the median of the
# last ten samples (one sample can catch a reload's two datasets at once),
# and the highest sample, and the peak (VmHWM). Builds nothing: pass release binaries.
#
# Knobs (environment): RELOADS (100), AREAS (100000), HISTORY_DAYS (100),
# DB (a dataset to reuse: written by the first build when it does not exist),
# SETTLE (1), WARMUP (10), BENCH_SERVE_ARGS (extra `serve` flags).
# Owns: the processes it starts (stopped by the EXIT trap, by their ids).
set -euo pipefail
cd "$(dirname "$0")/.."

RELOADS=${RELOADS:-100}
AREAS=${AREAS:-100000}
HISTORY_DAYS=${HISTORY_DAYS:-100}
SETTLE=${SETTLE:-1}
WARMUP=${WARMUP:-10}
read -r -a SERVE_ARGS <<<"${BENCH_SERVE_ARGS:-}"
WORK=$(mktemp -d /tmp/area-reload-rss.XXXXXX)
STARTED=()
cleanup() {
  local pid
  for pid in "${STARTED[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
say() { printf '[reload_rss %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

FIRST=$(realpath "$1")
DB=${DB:-$WORK/areas.db}
if [ ! -e "$DB" ]; then
  say "writing $AREAS synthetic areas to $DB"
  "$FIRST" init --db "$DB" --synthetic "$AREAS" --history-days "$HISTORY_DAYS" >/dev/null
fi
# Two files with the same rows, each its own inode: the served path is a
# link to one, and a reload renames a link to the other over it.
cp "$DB" "$WORK/b.db"
ln "$DB" "$WORK/a.db"
KEY=$("$FIRST" keys create --db "$DB" --keys "$WORK/keys.db" --plan enterprise --label reload-rss 2>/dev/null)
mkdir -p "$WORK/cases"
python3 bench/cases.py "$DB" "$WORK/cases" >/dev/null
for c in get_area list_first search_q_prefix3 search_q_typo1 search_q_name search_geo_r10 history_1y_weekly; do
  head -400 "$WORK/cases/$c.txt"
done | shuf --random-source=<(yes) >"$WORK/mixed.txt"

rss_mb() { awk '/^VmRSS/ {printf "%.2f", $2 / 1024}' "/proc/$1/status"; }

printf '| build | RSS MB at reload 0 | 10 | 50 | %s | median of the last 10 | highest | peak (VmHWM) | reloads logged |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n' "$RELOADS"
for bin in "$@"; do
  bin=$(realpath "$bin")
  served=$WORK/served.db
  ln -f "$WORK/a.db" "$served"
  log=$WORK/server.log
  "$bin" serve --db "$served" --keys "$WORK/keys.db" --addr 127.0.0.1:0 \
    --max-connections-per-address 0 "${SERVE_ARGS[@]}" 2>"$log" &
  pid=$!
  STARTED+=("$pid")
  addr=""
  until [ -n "$addr" ]; do
    sleep 0.05
    kill -0 "$pid" 2>/dev/null || { say "$bin did not start: $(tail -2 "$log")"; exit 1; }
    addr=$(grep -so -E 'listening on http://[0-9.:]+' "$log" | head -1 | sed 's/.*http:\/\///' || true)
  done
  wrk -t1 -c16 -d3600s --timeout 5s -s bench/rotate.lua "http://$addr" -- "$WORK/mixed.txt" "$KEY" \
    >"$WORK/wrk.txt" 2>&1 &
  wrk_pid=$!
  STARTED+=("$wrk_pid")
  sleep "$WARMUP"
  declare -A at=()
  at[0]=$(rss_mb "$pid")
  highest=${at[0]}
  for n in $(seq 1 "$RELOADS"); do
    if [ $((n % 2)) = 1 ]; then next=b; else next=a; fi
    before=$(grep -c 'reloaded ' "$log" || true)
    ln -f "$WORK/$next.db" "$WORK/next.db"
    mv "$WORK/next.db" "$served"
    for _ in $(seq 100); do
      [ "$(grep -c 'reloaded ' "$log" || true)" -gt "$before" ] && break
      sleep 0.05
    done
    sleep "$SETTLE"
    rss=$(rss_mb "$pid")
    at[$n]=$rss
    highest=$(awk -v a="$highest" -v b="$rss" 'BEGIN{print (b > a ? b : a)}')
  done
  logged=$(grep -c 'reloaded ' "$log" || true)
  peak=$(awk '/^VmHWM/ {printf "%.2f", $2 / 1024}' "/proc/$pid/status")
  kill "$wrk_pid" 2>/dev/null || true
  wait "$wrk_pid" 2>/dev/null || true
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  last=$(for n in $(seq $((RELOADS > 10 ? RELOADS - 9 : 1)) "$RELOADS"); do echo "${at[$n]}"; done |
    sort -n | awk '{v[NR] = $1} END {printf "%.2f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}')
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$(basename "$bin")" "${at[0]}" "${at[10]:-}" \
    "${at[50]:-}" "${at[$RELOADS]}" "$last" "$highest" "$peak" "$logged"
  unset at
done
echo
echo "wrk -t1 -c16 over a mix of the bench's cases; $AREAS areas; a reload by rename, RSS ${SETTLE}s after each; $(nproc) cores; load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
