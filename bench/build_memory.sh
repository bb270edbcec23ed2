#!/usr/bin/env bash
# Peak memory and wall time of building a database (docs/import.md, "Memory"):
# `import` of 400,000 generated rows as CSV and as JSON Lines, and with
# --million also an import of 1,000,000 rows and `init --synthetic 1000000`
# (400 days of history). Each runs under /usr/bin/time -v; the script prints
# one line each and exits 1 when a peak passes 256 MiB, an import 10 minutes
# or the init 20 (its 400 million history rows took 14 minutes on the 2-core
# machine of docs/import.md, "Memory").
#
# usage: bash bench/build_memory.sh [--million]     (make bench-build)
# Needs the release binary (make build), python3 and GNU time (apt: time).
# Work files go to BUILD_BENCH_DIR (default target/build-bench); the million
# tier needs about 15 GB there.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=target/release/area-scoring
DIR=${BUILD_BENCH_DIR:-target/build-bench}
BOUND_MIB=256
BOUND_SECS=600
INIT_BOUND_SECS=1200
MILLION=0
[[ "${1:-}" == "--million" ]] && MILLION=1

[[ -x $BIN ]] || { echo "$BIN is missing: run make build first" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
mkdir -p "$DIR"
failed=0

# measure NAME ARGS...: runs the binary under time -v, prints peak and wall
# time; BOUND (seconds) overrides BOUND_SECS for one build.
measure() {
  local name=$1; shift
  local bound=${BOUND:-$BOUND_SECS}
  local log="$DIR/$name.time"
  local start end
  start=$(date +%s.%N)
  if ! /usr/bin/time -v "$BIN" "$@" 2>"$log" >/dev/null; then
    echo "$name: failed" >&2; tail -5 "$log" >&2; failed=1; return
  fi
  end=$(date +%s.%N)
  local kib secs cpu
  kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.0f", u + s}' "$log")
  secs=$(echo "$end - $start" | bc)
  printf '%-28s peak %4d MiB  wall %4.0f s  cpu %4d s  (%s)\n' \
    "$name" $((kib / 1024)) "$secs" "$cpu" "$*"
  if (( kib > BOUND_MIB * 1024 )); then echo "  over $BOUND_MIB MiB" >&2; failed=1; fi
  if (( $(echo "$secs > $bound" | bc) )); then echo "  over $bound s" >&2; failed=1; fi
}

file() { # file N EXT: the generated import file of N rows, made once
  local path="$DIR/rows-$1.$2"
  [[ -f $path ]] || python3 bench/import_rows.py "$1" "$path"
  echo "$path"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
rm -f "$DIR"/import.db*
measure import-400k-csv import --db "$DIR/import.db" "$(file 400000 csv)"
rm -f "$DIR"/import.db*
measure import-400k-jsonl import --db "$DIR/import.db" "$(file 400000 jsonl)"
rm -f "$DIR"/import.db*
if (( MILLION )); then
  measure import-1m-csv import --db "$DIR/import.db" "$(file 1000000 csv)"
  rm -f "$DIR"/import.db*
  rm -f "$DIR"/synthetic.db*
  BOUND=$INIT_BOUND_SECS measure init-synthetic-1m init --db "$DIR/synthetic.db" --synthetic 1000000
  rm -f "$DIR"/synthetic.db*
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $failed
