# Sourced by the bench scripts: a scratch folder WORK, the processes a
# script starts (append their pids to STARTED), stopped and removed on exit,
# and `say` for progress lines tagged with the script's name (BENCH_TAG).
WORK=$(mktemp -d "/tmp/area-${BENCH_TAG}.XXXXXX")
chmod 755 "$WORK" # nginx workers may run as nobody and must read the bodies
STARTED=()
cleanup() {
  local pid
  for pid in "${STARTED[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
say() { printf '[%s %s] %s\n' "$BENCH_TAG" "$(date +%H:%M:%S)" "$*" >&2; }

# This machine kind pages out file pages idle for about a minute (DAMON
# reclaim: kdamond's scheme `pageout`, regions unused for 12 intervals of 5 s),
# so a case that reads parts of the database no earlier case read waited on
# the disk: 3-letter prefix p99 65.9 ms right after the list cases, 5.3 ms
# with the file cached; Get Area 269 req/s at a million areas in a gzip run
# that had not read it first (bench/PROFILE.md). `cache_file` reads a file into
# the OS page cache, so that a case measures the server, not the disk, when
# the cache can hold it with half as much again to spare (a million areas with
# 400 days of history is about 13 GB, which need not fit beside other users).
fits_in_cache() { [ $(($(stat -c %s "$1") / 1024 * 3 / 2)) -lt "$(awk '/^MemAvailable/{print $2}' /proc/meminfo)" ]; }
cache_file() { ! fits_in_cache "$1" || cat "$1" >/dev/null; }
