#!/usr/bin/env bash
# bench/gzip.sh: what gzip does for every bench case, and for the exports:
# bytes per answer and the server's CPU per request, without and with
# `Accept-Encoding: gzip`; what one compression costs (examples/gzip_cost.rs);
# and Get Area and List against nginx serving the same bytes with
# gzip_static. Writes bench/RESULTS-gzip.md.
#
# Usage: bash bench/gzip.sh [DB]. `make bench` runs it on its 100,000-area
# database; with no DB it makes the seed's in a temporary directory.
# Knobs (environment): BENCH_DURATION seconds per run (3), BENCH_WARMUP (1),
# BIN, GZIP_OUT (bench/RESULTS-gzip.md). Only 127.0.0.1 is a target; every
# wrk run is bounded in time; the trap stops what it started.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release/area-scoring}
COST_BIN=${CARGO_TARGET_DIR:-target}/release/examples/gzip_cost
DURATION=${BENCH_DURATION:-3}
WARMUP=${BENCH_WARMUP:-1}
OUT=${GZIP_OUT:-bench/RESULTS-gzip.md}
# Each export is fetched this many times a coding, for the CPU ticks (10 ms) to count;
# bench/run.sh asks for fewer at a million areas, where one export takes seconds.
EXPORT_ROUNDS=${GZIP_EXPORT_ROUNDS:-20}
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

BENCH_TAG=gzip
. "$(dirname "$0")/work.sh"
. bench/static_nginx.sh

# A process and its threads, in CPU ticks (utime + stime).
ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
hz=$(getconf CLK_TCK)

[ -x "$BIN" ] || { echo "no $BIN: run 'cargo build --release'" >&2; exit 1; }
cargo build --release --quiet --example gzip_cost
DB=${1:-}
if [ -z "$DB" ]; then
  DB=$WORK/seed.db
  "$BIN" init --db "$DB" >/dev/null 2>&1
fi
KEY=$("$BIN" keys create --db "$DB" --new-keys-file --plan enterprise --label bench-gzip 2>/dev/null)
mkdir -p "$WORK/cases" "$WORK/bodies" "$WORK/www"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
read -r -a CASES <<<"$(python3 bench/cases.py "$DB" "$WORK/cases")"

"$BIN" serve --db "$DB" --addr 127.0.0.1:0 --max-connections-per-address 0 2>"$WORK/server.log" &
SERVER=$!
STARTED+=("$SERVER")
for _ in $(seq 100); do
  ADDR=$(sed -n 's/.*listening on http:\/\/\([0-9.:]*\).*/\1/p' "$WORK/server.log" | head -1)
  [ -n "$ADDR" ] && break
  sleep 0.1
done
[ -n "$ADDR" ] || { say "the server did not start: $(tail -3 "$WORK/server.log")"; exit 1; }
say "serving $DB on $ADDR"

# One wrk run: run URL PATHS OWNER_PID [ACCEPT_ENCODING] -> "req/s p99_ms bytes_per_answer cpu_us_per_request"
run() {
  local url=$1 paths=$2 pid=$3 coding=${4:-} t0 t1 line bytes
  wrk -t1 -c16 -d"${WARMUP}s" -s bench/rotate.lua "$url" -- "$paths" "$KEY" "$coding" >/dev/null 2>&1 || true
  t0=$(ticks "$pid")
  wrk -t1 -c16 -d"${DURATION}s" --timeout 5s -s bench/rotate.lua "$url" -- "$paths" "$KEY" "$coding" \
    >"$WORK/wrk.out" 2>&1 || true
  t1=$(ticks "$pid")
  line=$(grep '^RESULT ' "$WORK/wrk.out" || echo "RESULT 0 0 0 0 0 0")
  bytes=$(awk '/^BYTES /{print $2}' "$WORK/wrk.out")
  awk -v t=$((t1 - t0)) -v hz="$hz" -v b="${bytes:-0}" \
    '{printf "%.0f %.2f %s %.0f\n", $2, $4, b, ($7 > 0 ? t / hz * 1e6 / $7 : 0)}' <<<"$line"
}

: >"$WORK/cases.tsv"
for c in "${CASES[@]}"; do
  [ "$c" = first_use ] && continue
  cache_file "$DB" # both codings of a case run within the minute pages stay (work.sh)
  first=$(head -1 "$WORK/cases/$c.txt")
  curl -s -o "$WORK/bodies/$c" -H "Authorization: Bearer $KEY" "http://$ADDR$first"
  plain=$(run "http://$ADDR" "$WORK/cases/$c.txt" "$SERVER")
  zipped=$(run "http://$ADDR" "$WORK/cases/$c.txt" "$SERVER" gzip)
  printf '%s %s %s\n' "$c" "$plain" "$zipped" >>"$WORK/cases.tsv"
  say "$c: identity $plain | gzip $zipped"
done

: >"$WORK/exports.tsv"
for format in json ndjson csv geojson; do
  row=$format
  for coding in identity gzip; do
    cache_file "$DB"
    t0=$(ticks "$SERVER")
    started=$(date +%s%N)
    for _ in $(seq "$EXPORT_ROUNDS"); do
      bytes=$(curl -s -o /dev/null -w '%{size_download}' -H "Authorization: Bearer $KEY" \
        -H "Accept-Encoding: $coding" "http://$ADDR/v1/areas/export?format=$format")
    done
    ms=$((($(date +%s%N) - started) / 1000000 / EXPORT_ROUNDS))
    cpu=$(awk -v t=$(($(ticks "$SERVER") - t0)) -v hz="$hz" -v n="$EXPORT_ROUNDS" 'BEGIN{printf "%.0f", t / hz * 1000 / n}')
    row+=" $bytes $cpu $ms"
  done
  echo "$row" >>"$WORK/exports.tsv"
  say "export $format: $row"
done

# nginx serves Get Area's and List's first answers, and beside them the
# server's own gzip answer where the server gzips (gzip_static).
cp "$WORK/bodies/get_area" "$WORK/www/area.json"
cp "$WORK/bodies/list_first" "$WORK/www/list.json"
for pair in get_area:area list_first:list; do
  case=${pair%%:*} name=${pair#*:}
  curl -s -D "$WORK/$name.head" -o "$WORK/$name.gz" -H "Authorization: Bearer $KEY" -H "Accept-Encoding: gzip" \
    "http://$ADDR$(head -1 "$WORK/cases/$case.txt")"
  if grep -qi '^Content-Encoding: gzip' "$WORK/$name.head"; then cp "$WORK/$name.gz" "$WORK/www/$name.json.gz"; fi
done
start_static_nginx
echo /area.json >"$WORK/nginx-area.txt"
echo /list.json >"$WORK/nginx-list.txt"
nginx_area=$(run "http://127.0.0.1:$NGINX_PORT" "$WORK/nginx-area.txt" "$NGINX_PID" gzip)
nginx_list=$(run "http://127.0.0.1:$NGINX_PORT" "$WORK/nginx-list.txt" "$NGINX_PID" gzip)
kill "$NGINX_PID"

# An empty body's cost is the compressor's reset, which every gzipped answer pays.
: >"$WORK/bodies/empty"
"$COST_BIN" "$WORK/bodies/empty" $(for c in "${CASES[@]}"; do [ "$c" = first_use ] || echo "$WORK/bodies/$c"; done) >"$WORK/cost.tsv"

areas=$(curl -s -H "Authorization: Bearer $KEY" "http://$ADDR/v1/areas?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
python3 - "$WORK" "$areas" "$DURATION" "$nginx_area" "$nginx_list" "$LOAD_BEFORE" "$(cut -d' ' -f1-3 /proc/loadavg)" "$EXPORT_ROUNDS" >"$OUT" <<'PY'
import sys
work, areas, duration, nginx_area, nginx_list, load_before, load_after, rounds = sys.argv[1:9]
cost = {l.split("\t")[0]: l.rstrip("\n").split("\t") for l in open(f"{work}/cost.tsv") if not l.startswith("file\t")}
rows = [l.split() for l in open(f"{work}/cases.tsv")]
print("# Compression\n")
print(f"Written by `bash bench/gzip.sh` (run by `make bench`): {int(areas):,} areas, wrk -t1 -c16, {duration} s a run,")
print("each case without and with `Accept-Encoding: gzip`. Bytes are per answer, head included, as wrk read them;")
print("CPU is the server's user+system time per request (10 ms ticks); gzip µs is one compression of the case's")
print("first answer by the server's own code alone (examples/gzip_cost.rs). Bodies under 1,400 bytes go")
print("uncompressed (src/app/encoding.rs). Each row is one run of each coding, identity first: on a")
print("busy machine single runs move by tens of percent, so compare CPU in alternated runs before concluding.\n")
print(f"Load average before / after: {load_before} / {load_after} (2 cores). An empty body takes "
      f"{cost['empty'][3]} µs to gzip: the compressor's reset, which every gzipped answer pays.\n")
print("| case | body bytes | bytes/answer | gzip bytes/answer | smaller by | CPU µs/req | gzip CPU µs/req | req/s | gzip req/s | gzip µs alone |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
by = {}
for r in rows:
    name, (rps, p99, b, cpu), (grps, gp99, gb, gcpu) = r[0], r[1:5], r[5:9]
    by[name] = (rps, grps)
    c = cost.get(name, [name, "?", "?", "?"])
    ratio = f"{int(b) / int(gb):.1f}x" if int(gb) else "-"
    print(f"| {name} | {c[1]} | {b} | {gb} | {ratio} | {cpu} | {gcpu} | {rps} | {grps} | {c[3] if int(c[1]) >= 1400 else '(not gzipped)'} |")
print("\n## Exports\n")
print(f"Each export fetched {rounds} times a coding with curl; CPU is the server's per export (the stream's thread at nice 10).\n")
print("| format | bytes | gzip bytes | smaller by | CPU ms | gzip CPU ms | wall ms | gzip wall ms |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for l in open(f"{work}/exports.tsv"):
    f, b, cpu, ms, gb, gcpu, gms = l.split()
    print(f"| {f} | {int(b):,} | {int(gb):,} | {int(b) / int(gb):.1f}x | {cpu} | {gcpu} | {ms} | {gms} |")
print("\n## Against nginx, with `Accept-Encoding: gzip`\n")
print("nginx serves the same bytes: the first answer of each case, and the server's gzip answer beside it")
print("(`gzip_static`) where the server gzips.\n")
print("| case | server req/s | nginx req/s | ratio |")
print("|---|---:|---:|---:|")
for name, nginx in (("get_area", nginx_area), ("list_first", nginx_list)):
    server = float(by.get(name, (0, 0))[1])
    theirs = float(nginx.split()[0])
    print(f"| {name} | {server:.0f} | {theirs:.0f} | {server / theirs if theirs else 0:.2f} |")
PY
say "wrote $OUT"
