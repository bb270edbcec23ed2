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
