#!/usr/bin/env bash
# bench/run.sh (`make bench`): load-tests every endpoint of the release build at
# 100,000 areas and at 1,000 areas with wrk, measures nginx serving the same
# bytes as the HTTP limit, and writes bench/RESULTS.md (see bench/report.py).
# The million-area tier is `BENCH_N=1000000 make bench`: 1,000,000 areas, with
# 100,000 as the smaller size that growth is measured from.
#
# Owns: tool installs (wrk, nginx-light via apt-get), the cached benchmark
# databases under bench/data (gitignored, keyed by size and stored layout),
# the server and nginx it starts (stopped by the EXIT trap), and the raw
# results. Only 127.0.0.1 is ever a target; every wrk run is bounded in time.
# Compression's figures are bench/gzip.sh's, which this runs on the larger database.
#
# Knobs (environment): BENCH_N (100000), BENCH_SMALL_N (1000, or 100000 when
# BENCH_N is a million or more), BENCH_DAYS (400),
# BENCH_DURATION seconds per case (10), BENCH_WARMUP seconds (2),
# BENCH_SOAK_SECS (bench/after_endpoints.sh), BENCH_AFTER (1; 0 stops after the
# endpoints and compression, before bench/after_endpoints.sh), BIN, and
# BENCH_SERVE_ARGS: extra `serve` flags (default none: what users run).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release/area-scoring}
# The HTTP layer alone, with no app (examples/layer_floor.rs).
FLOOR_BIN=${CARGO_TARGET_DIR:-target}/release/examples/layer_floor
N=${BENCH_N:-100000}
if [ "$N" -ge 1000000 ]; then SMALL_N=${BENCH_SMALL_N:-100000}; else SMALL_N=${BENCH_SMALL_N:-1000}; fi
DAYS=${BENCH_DAYS:-400}
DURATION=${BENCH_DURATION:-10}
WARMUP=${BENCH_WARMUP:-2}
read -r -a SERVE_ARGS <<<"${BENCH_SERVE_ARGS:-}"
DATA=bench/data
CASES=(get_area get_area_nearby list_first list_deep list_score_desc list_gauteng
  search_q_prefix3 search_q_name search_geo_r10 search_geo_r50 search_q_geo_min
  search_q_heavy_geo_min search_min_score search_bbox search_province_min search_province_prefix3
  search_q_typo1 search_q_typo2 search_q_joined search_q_other_name search_q_prefix3_exact search_q_name_exact compare_5 history_1y_daily history_1y_weekly history_1y_monthly
  area_at_inside area_at_near list_geojson_boundary search_bbox_boundary
  stats_all_and_province stats_municipality get_area_rank compare_5_rank list_ids_100 healthz)

BENCH_TAG=bench
. "$(dirname "$0")/work.sh"

install_tools() {
  local missing=()
  command -v wrk >/dev/null || missing+=(wrk)
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
  command -v python3 >/dev/null || missing+=(python3)
  command -v curl >/dev/null || missing+=(curl)
  [ ${#missing[@]} -eq 0 ] && return
  # shellcheck source=deploy/apt-install.sh
  source deploy/apt-install.sh
  apt_install "${missing[@]}"
}
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
. "$(dirname "$0")/static_nginx.sh"
. "$(dirname "$0")/beside.sh"

# The database for N areas, built once and reused while what it stores is
# the same: the schema, the seed places, and the versions of the schema and
# of the stored search words' layouts (`LAYOUT` in src/search/matches/word_store/mod.rs
# and in src/search/words/vocabulary_store.rs), all part of the file name. A
# change to how the words are stored raises a LAYOUT and so rebuilds it; a
# refactor of the code that writes it does not.
# How long the build took and its peak RSS are kept beside it (<db>.build),
# for the report.
const_of() { # const_of FILE NAME -> the integer value of `pub const NAME: i64`
  local v
  v=$(sed -n "s/^pub const $2: i64 = \([0-9]*\);.*/\1/p" "$1")
  [ -n "$v" ] || { say "no 'pub const $2: i64' in $1"; return 1; }
  echo "$v"
}
database() {
  local n=$1 hash db layout schema words
  layout=$(const_of src/search/matches/word_store/mod.rs LAYOUT) || return 1
  schema=$(const_of src/data/db.rs SCHEMA_VERSION) || return 1
  words=$(const_of src/search/words/vocabulary_store.rs LAYOUT) || return 1
  hash=$({ cat schema.sql seed/za-areas.csv seed/other-names.csv seed/renames.csv src/data/synthetic.rs; echo "schema $schema layout $layout words $words"; } |
    sha256sum | cut -c1-12)
  db="$DATA/areas-${n}x${DAYS}-${hash}.db"
  mkdir -p "$DATA"
  if [ ! -f "$db" ]; then
    find "$DATA" -maxdepth 1 -name "areas-${n}x${DAYS}-*.db*" -delete
    say "building $db (init --synthetic $n --history-days $DAYS)"
    local t0=$SECONDS pid peak=0 kb
    "$BIN" init --synthetic "$n" --history-days "$DAYS" --db "$db" >&2 &
    pid=$!
    # The peak RSS read off the kernel's own high-water mark, twice a second.
    while kill -0 "$pid" 2>/dev/null; do
      kb=$(status_kb "$pid" VmHWM 2>/dev/null || true)
      [ -z "$kb" ] || [ "$kb" -le "$peak" ] || peak=$kb
      sleep 0.5
    done
    # A command substitution does not inherit `set -e`: a failed build must stop the run here.
    wait "$pid" || { say "building $db failed"; rm -f "$db"; return 1; }
    echo "$((SECONDS - t0)) s, peak RSS $((peak / 1024)) MiB, file $(($(stat -c %s "$db") / 1048576)) MiB" >"$db.build"
    echo "build_${n} $(cat "$db.build")" >>"$WORK/meta"
  else
    echo "build_${n} cached (built in $(cat "$db.build" 2>/dev/null || echo 'an unrecorded time'))" >>"$WORK/meta"
  fi
  echo "$db"
}

# CPU ticks: all cores busy (from /proc/stat) and one process (utime+stime).
busy_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
# Ticks the hypervisor gave this machine's cores to others while they wanted to run (steal):
# on this machine kind it comes in stalls of about 100 ms, of one core or both, and a case with
# several of them has its p99 pushed up by tens of milliseconds (bench/PROFILE.md, "Host steal").
steal_ticks() { awk '/^cpu /{print $9}' /proc/stat; }
# A process and its children (nginx's workers), in CPU ticks.
proc_ticks() {
  local p total=0
  for p in "$1" $(pgrep -P "$1" || true); do
    total=$((total + $(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null | awk '{print $12+$13}' || echo 0)))
  done
  echo "$total"
}
status_kb() { awk -v k="$2:" '$1==k{print $2}' "/proc/$1/status"; }

# One wrk run: wrk_case LABEL URL PATHS_FILE KEY OWNER_PID [DB] -> a row of results.tsv.
wrk_case() {
  local label=$1 url=$2 paths=$3 key=$4 pid=$5 db=${6:-} b0 p0 b1 p1 t0 t1 s0 s1 wrk_cpu line
  [ -z "$db" ] || cache_file "$db"
  wrk -t1 -c16 -d"${WARMUP}s" -s bench/rotate.lua "$url" -- "$paths" "$key" >/dev/null 2>&1 || true
  t0=$(date +%s%N)
  b0=$(busy_ticks)
  s0=$(steal_ticks)
  p0=$(proc_ticks "$pid")
  local TIMEFORMAT='%U %S'
  { time wrk -t1 -c16 -d"${DURATION}s" --timeout 5s -s bench/rotate.lua "$url" -- "$paths" "$key" \
    >"$WORK/wrk.out" 2>&1 || true; } 2>"$WORK/wrk.time"
  b1=$(busy_ticks)
  s1=$(steal_ticks)
  p1=$(proc_ticks "$pid")
  t1=$(date +%s%N)
  wrk_cpu=$(awk '{printf "%d", ($1 + $2) * 100}' "$WORK/wrk.time")
  line=$(grep '^RESULT ' "$WORK/wrk.out" | tail -1 || true)
  # No result line: wrk gave up, as it does when no connection can be made
  # (socket errors -1 tells report.py the server refused outright).
  [ -n "$line" ] || { say "wrk failed for $label: $(tail -3 "$WORK/wrk.out")"; line="RESULT 0 0 0 0 -1 0"; }
  # CPU used by neither the measured server nor wrk, as % of the machine: noise.
  local cores other
  cores=$(nproc)
  other=$(awk -v b=$((b1 - b0)) -v p=$((p1 - p0)) -v w="$wrk_cpu" -v d=$(((t1 - t0) / 10000000)) -v c="$cores" \
    'BEGIN{o=(b-p-w)/(d*c)*100; if(o<0)o=0; if(o>100)o=100; printf "%.0f", o}')
  local fields
  fields=$(tr ' ' '\t' <<<"${line#RESULT }")
  # The server's own CPU per answered request: steadier than req/s on a busy machine.
  local requests cpu_us
  requests=$(awk '{print $6}' <<<"${line#RESULT }")
  cpu_us=$(((p1 - p0) * 10000 / (requests > 0 ? requests : 1)))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$fields" "$(status_kb "$pid" VmHWM)" \
    "$(status_kb "$pid" VmRSS)" "$other" "$cpu_us" "$(((s1 - s0) * 1000 / $(getconf CLK_TCK)))" >>"$WORK/results.tsv"
  say "$label: $(echo "${line#RESULT }" | awk '{printf "%s req/s, p50 %s ms, p99 %s ms, non-2xx %s, socket errors %s", $1, $2, $3, $4, $5}')"
}

# Starts the server on port 0 over DB, measures serve -> first 200, runs every
# case, and stops it. run_size SIZE DB KEY
run_size() {
  local size=$1 db=$2 key=$3 log="$WORK/server-$1.log" out addr server launcher c first code
  mkdir -p "$WORK/cases-$size"
  python3 bench/cases.py "$db" "$WORK/cases-$size" >/dev/null
  : >"$log"
  # first200.py starts the server itself, so that its own start-up is not timed.
  python3 bench/first200.py "$log" "$key" "$WORK/start-$size" -- \
    "$BIN" serve --db "$db" --addr 127.0.0.1:0 --max-connections-per-address 0 "${SERVE_ARGS[@]}" &
  launcher=$!
  STARTED+=("$launcher")
  local tries=0
  until grep -qE '^(FIRST200_MS|FAILED)' "$WORK/start-$size" 2>/dev/null; do
    tries=$((tries + 1))
    [ $tries -lt 600 ] || { say "no answer from first200.py"; exit 1; }
    sleep 0.1
  done
  out=$(cat "$WORK/start-$size")
  server=$(awk '/^PID/{print $2}' <<<"$out")
  STARTED+=("$server")
  grep -q '^FAILED' <<<"$out" && { say "$out"; tail -5 "$log" >&2; exit 1; }
  addr=$(awk '/^ADDR/{print $2}' <<<"$out")
  echo "first200_${size} $(awk '/^FIRST200_MS/{print $2}' <<<"$out")" >>"$WORK/meta"
  say "$size areas: serving on $addr, first 200 after $(awk '/^FIRST200_MS/{print $2}' <<<"$out") ms"
  # Each heavy word's first search, before any case has made the server keep it.
  cache_file "$db"
  python3 bench/first_use.py "$addr" "$key" "$WORK/cases-$size/first_use.txt" "$size" >>"$WORK/meta" ||
    say "warning: the first-use run failed"
  echo "first_use_rss_$size $(status_kb "$server" VmRSS)" >>"$WORK/meta"
  # The very bytes the server answers at this size, for nginx to serve (bench/beside.sh).
  mkdir -p "$WORK/www-$size"
  curl -sf -m 10 -o "$WORK/www-$size/area.json" -H "Authorization: Bearer $key" \
    "http://$addr$(head -1 "$WORK/cases-$size/get_area.txt")" || say "warning: no Get Area body for nginx"
  curl -sf -m 10 -o "$WORK/www-$size/list.json" -H "Authorization: Bearer $key" "http://$addr/v1/areas" ||
    say "warning: no List Areas body for nginx"
  for c in "${CASES[@]}"; do
    first=$(head -1 "$WORK/cases-$size/$c.txt")
    rm -f "$WORK/body.json"
    code=$(curl -s -m 10 -o "$WORK/body.json" -w '%{http_code}' -H "Authorization: Bearer $key" \
      "http://$addr$first" || true)
    [ "$code" = 200 ] || say "warning: $c answered ${code:-nothing} for $first: $(head -c 300 "$WORK/body.json" 2>/dev/null)"
    # A server that is running but refuses connections has lost its listener.
    if [ "$code" = 000 ] && kill -0 "$server" 2>/dev/null && ! grep -q "^refusing_$size " "$WORK/meta"; then
      echo "refusing_$size $c" >>"$WORK/meta"
    fi
    wrk_case "$size $c" "http://$addr" "$WORK/cases-$size/$c.txt" "$key" "$server" "$db"
    # The server logs a line per request; count anything worse than INFO, then
    # truncate (the log is opened for appending, so writes go on at its start).
    echo "log_${size}_$c $(grep -cE ' (WARN|ERROR) ' "$log" || true)" >>"$WORK/meta"
    : >"$log"
  done
  if [ "$size" = "$N" ]; then
    simplified_export "$addr" "$key" "$server" "$size"
    say "export: $N areas, 4 clients downloading at once beside wrk on Get Area"
    python3 bench/export.py "$addr" "$EXPORT_KEYS" "$server" "$WORK/cases-$size/get_area.txt" "$DURATION" >>"$WORK/meta" ||
      say "warning: the export run failed"
  fi
  kill "$server"
  wait "$launcher" 2>/dev/null || true
  run_nearest "$size" "$db" "$key"
}

# The whole export with boundaries simplified at 1,000 m, once: its time,
# size and the server's peak RSS after it.
simplified_export() {
  local addr=$1 key=$2 server=$3 size=$4 took
  took=$(curl -s -m 600 -o /dev/null -w '%{time_total} %{size_download}' -H "Authorization: Bearer $key" \
    "http://$addr/v1/areas/export.geojson?geometry=boundary&simplify=1000" || echo "0 0")
  echo "simplified_export_$size $took $(status_kb "$server" VmHWM)" >>"$WORK/meta"
  say "export.geojson?geometry=boundary&simplify=1000 at $size areas: $took (s, bytes)"
}

# The nearest-centre rule of the area at a point serves the areas without a
# boundary, and init gives every area one: a copy of DB with its boundaries
# taken out (cached beside it) is served for that case alone.
run_nearest() {
  local size=$1 db=$2 key=$3 bare="${2%.db}-no-boundaries.db" log="$WORK/server-$1-nearest.log" out server launcher
  if [ ! -f "$bare" ]; then
    cp "$db" "$bare.tmp"
    python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("DELETE FROM area_boundary_simplified; DELETE FROM area_boundary_boxes; DELETE FROM area_boundary_cells; DELETE FROM area_boundaries;")
c.commit()' "$bare.tmp"
    mv "$bare.tmp" "$bare"
  fi
  : >"$log"
  python3 bench/first200.py "$log" "$key" "$WORK/start-$size-nearest" -- \
    "$BIN" serve --db "$bare" --addr 127.0.0.1:0 --max-connections-per-address 0 "${SERVE_ARGS[@]}" &
  launcher=$!
  STARTED+=("$launcher")
  until grep -qE '^(FIRST200_MS|FAILED)' "$WORK/start-$size-nearest" 2>/dev/null; do sleep 0.1; done
  out=$(cat "$WORK/start-$size-nearest")
  grep -q '^FAILED' <<<"$out" && { say "nearest: $out"; return 0; }
  server=$(awk '/^PID/{print $2}' <<<"$out")
  STARTED+=("$server")
  wrk_case "$size area_at_nearest" "http://$(awk '/^ADDR/{print $2}' <<<"$out")" \
    "$WORK/cases-$size/area_at_nearest.txt" "$key" "$server" "$bare"
  kill "$server"
  wait "$launcher" 2>/dev/null || true
}

machine() {
  echo "cores $(nproc)"
  echo "cpu $(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)"
  echo "memory $(awk '/^MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
  echo "kernel $(uname -r)"
  echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- src schema.sql 2>/dev/null || echo ' (with uncommitted changes in src/)')"
  echo "load_before $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "server_log_level ${RUST_LOG:-info (default)}"
  echo "duration ${DURATION}"
  # What runs after the endpoints (bench/after_endpoints.sh), for the report's header.
  echo "after ${BENCH_AFTER:-1}"
  echo "soak_secs ${BENCH_SOAK_SECS:-1800}"
  echo "serve_args ${BENCH_SERVE_ARGS:-}"
  echo "wrk $(wrk --version 2>&1 | head -1 | awk '{print $1, $2}')"
  echo "nginx $("$NGINX" -v 2>&1 | sed 's/.*nginx\///')"
}

main() {
  [ -x "$BIN" ] || { echo "no $BIN: run 'cargo build --release' (make bench does)" >&2; exit 1; }
  install_tools
  machine >"$WORK/meta"
  : >"$WORK/results.tsv"
  local big small key_big key_small
  big=$(database "$N") || exit 1
  small=$(database "$SMALL_N") || exit 1
  key_big=$("$BIN" keys create --db "$big" --new-keys-file --plan enterprise --label bench 2>/dev/null)
  # One key per export client: a key may stream two exports at once.
  EXPORT_KEYS=$(for _ in 1 2 3 4; do "$BIN" keys create --db "$big" --plan enterprise --label bench-export 2>/dev/null; done | paste -sd,)
  key_small=$("$BIN" keys create --db "$small" --new-keys-file --plan enterprise --label bench 2>/dev/null)
  run_size "$N" "$big" "$key_big"
  run_nginx "$N" "$key_big"
  run_floor "$N" "$key_big"
  run_size "$SMALL_N" "$small" "$key_small"
  run_nginx "$SMALL_N" "$key_small"
  echo "load_after $(cut -d' ' -f1-3 /proc/loadavg)" >>"$WORK/meta"
  python3 bench/report.py "$WORK/meta" "$WORK/results.tsv" "$N" "$SMALL_N" >bench/RESULTS.md
  cat bench/RESULTS.md
  # Every case again without and with Accept-Encoding: gzip (bench/RESULTS-gzip.md).
  # At a million areas one export takes seconds: two rounds a coding (empty: gzip.sh's own).
  BIN="$BIN" GZIP_EXPORT_ROUNDS=$([ "$N" -lt 1000000 ] || echo 2) bash bench/gzip.sh "$big" ||
    say "warning: the gzip run failed"
  # Redis, the layer beside nginx and the axum peer, held connections, the soak.
  [ "${BENCH_AFTER:-1}" = 1 ] || { say "endpoints and compression only (BENCH_AFTER=0)"; return; }
  BIN="$BIN" BENCH_DB="$big" BENCH_N="$N" bash bench/after_endpoints.sh \
    "$(awk '/^date /{print $2}' "$WORK/meta")" "$(awk '/^commit /{print $2}' "$WORK/meta")"
}

main "$@"
