#!/usr/bin/env bash
# bench/after_endpoints.sh DATE COMMIT: what `make bench` (bench/run.sh) runs
# after the endpoints, over the same database: Get Area with a limited key
# without and with Redis (bench/redis.sh -> bench/RESULTS-redis.md); what a
# stranger's flood and keyless clients cost the others (bench/strangers.sh ->
# bench/RESULTS-strangers.md); the HTTP
# layer beside nginx and the axum peer, and the held connections
# (bench/layer.sh -> bench/RESULTS-layer-run.md); and the soak
# (bench/soak.sh -> bench/RESULTS-soak.md). Exits non-zero when the soak
# fails or answers a normal request with anything but 2xx.
#
# Environment: BIN, BENCH_DB (the database of the endpoints' run), BENCH_N
# (its size), BENCH_SOAK_SECS (1800: 30 minutes; 0 leaves the soak out).
set -euo pipefail
cd "$(dirname "$0")/.."
DATE=$1
COMMIT=$2
SOAK_SECS=${BENCH_SOAK_SECS:-1800}
say() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

BIN="$BIN" bash bench/redis.sh
BIN="$BIN" bash bench/strangers.sh

say "the layer against nginx and the axum peer over $BENCH_N areas, then held connections"
layer=$(BENCH_DB="$BENCH_DB" bash bench/layer.sh)
{
  echo "# make bench: the layer, the axum peer and held connections"
  echo
  echo "Written by bench/run.sh over $BENCH_N areas ($DATE, commit $COMMIT)."
  echo
  echo "$layer"
} >bench/RESULTS-layer-run.md
cat bench/RESULTS-layer-run.md

[ "$SOAK_SECS" -gt 0 ] || { say "no soak (BENCH_SOAK_SECS=0)"; exit 0; }
say "soak for ${SOAK_SECS}s"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
SOAK_SECS=$SOAK_SECS bash bench/soak.sh >"$out" 2>&1 || status=$?
{
  echo "# make bench: the soak"
  echo
  echo "Written by bench/run.sh: bench/soak.sh for ${SOAK_SECS} s, $DATE, commit $COMMIT; exit status $status."
  echo
  echo '```'
  grep -v '^\[' "$out" || true
  echo '```'
} >bench/RESULTS-soak.md
tail -25 bench/RESULTS-soak.md
[ "$status" -eq 0 ] || { say "the soak failed (status $status)"; exit 1; }
grep -q '^non-2xx answers: 0$' "$out" || { say "the soak answered normal requests with non-2xx"; exit 1; }
