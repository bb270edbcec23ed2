#!/usr/bin/env bash
# bench/heavy_typo.sh BEFORE AFTER: two builds of the server compared on the
# forgiving searches whose words tens of thousands of areas share, at a
# million synthetic areas (`init --synthetic`): a one-typo word of a name the
# generator copies into many areas (a metro's, with its municipality), alone,
# in a 50 km circle and with min_score; and two words of a common two-word
# name typed joined. The two builds alternate case by case, round by round
# (which goes first swaps each round), with wrk -t1 -c16 and the bench's
# rotate.lua. Builds nothing: pass two release binaries.
#
# Each row: req/s, p99 ms, the server's CPU µs a request (utime + stime from
# /proc/PID/stat over the run). Prints a Markdown table, then each case's
# median over the rounds.
#
# Knobs (environment): ROUNDS (3), BENCH_DURATION seconds a case (5),
# BENCH_CONNECTIONS (16), AREAS (1000000), HISTORY_DAYS (1: search reads no
# history, and a year of it makes the file tens of gigabytes), DB (a dataset
# to reuse: written once by BEFORE when it does not exist yet; by default a
# temporary one).
# Owns: the processes it starts (stopped by the EXIT trap, by their ids).
set -euo pipefail
cd "$(dirname "$0")/.."

BEFORE=$(realpath "$1")
AFTER=$(realpath "$2")
ROUNDS=${ROUNDS:-3}
DURATION=${BENCH_DURATION:-5}
CONNS=${BENCH_CONNECTIONS:-16}
AREAS=${AREAS:-1000000}
HISTORY_DAYS=${HISTORY_DAYS:-1}
WORK=$(mktemp -d /tmp/area-heavy-typo.XXXXXX)
STARTED=()
cleanup() {
  local pid
  for pid in "${STARTED[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
say() { printf '[heavy_typo %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

DB=${DB:-$WORK/areas.db}
if [ ! -e "$DB" ]; then
  say "writing $AREAS synthetic areas to $DB"
  "$BEFORE" init --db "$DB" --synthetic "$AREAS" --history-days "$HISTORY_DAYS" >/dev/null
fi
KEY=$("$AFTER" keys create --db "$DB" --keys "$WORK/keys.db" --plan enterprise --label heavy-typo 2>/dev/null)
mkdir -p "$WORK/cases"
python3 - "$DB" "$WORK/cases" <<'PY'
"""The heavy cases: request targets, one a line, in WORK/cases/NAME.txt."""
import random, re, sqlite3, sys
from collections import Counter
from urllib.parse import quote_plus
sys.path.insert(0, "bench")
from cases import JOBURG, misspell, near

db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
out = sys.argv[2]
rng = random.Random(20261202)
words, pairs, total = Counter(), Counter(), 0
for (name, municipality) in db.execute("SELECT name, municipality FROM areas"):
    total += 1
    words.update({w for w in re.split(r"[^a-z]+", f"{name} {municipality}".lower()) if len(w) >= 5})
    parts = name.lower().split()
    if len(parts) >= 2 and all(p.isalpha() and len(p) >= 3 for p in parts[:2]):
        pairs[" ".join(parts[:2])] += 1
# Words of 5 to 8 letters (one typo forgiven) that tens of thousands share.
heavy = [w for w, c in words.most_common() if c >= 20000 and w.isalpha() and 5 <= len(w) <= 8][:6]
common = [p for p, _ in pairs.most_common(20)]
print(f"heavy words: {heavy}; common pairs: {common[:5]}", file=sys.stderr)
count = 2000
def typo():
    while True:
        w = rng.choice(heavy)
        t = misspell(rng, w, 1)
        if t != w and len(t) >= 5:
            return quote_plus(t)
cases = {
    "typo_heavy": [f"/v1/areas/search?q={typo()}" for _ in range(count)],
    "typo_heavy_circle": [
        f"/v1/areas/search?q={typo()}&lat={p[0]}&lng={p[1]}&radius=50"
        for p in (near(rng, JOBURG, 30) for _ in range(count))
    ],
    "typo_heavy_min_score": [f"/v1/areas/search?q={typo()}&min_score=6" for _ in range(count)],
    "joined_common": [
        f"/v1/areas/search?q={quote_plus(p.replace(' ', '', 1))}" for p in (rng.choice(common) for _ in range(count))
    ],
}
for name, targets in cases.items():
    with open(f"{out}/{name}.txt", "w") as f:
        f.write("\n".join(targets) + "\n")
PY

# serve BIN -> "PID ADDR"
serve() {
  local log=$WORK/server.$RANDOM.log pid a=""
  "$1" serve --db "$DB" --keys "$WORK/keys.db" --addr 127.0.0.1:0 --max-connections-per-address 0 2>"$log" &
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

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
HZ=$(getconf CLK_TCK)

# case_row ROUND NAME PID URL PATHS
case_row() {
  local round=$1 name=$2 pid=$3 url=$4 paths=$5 before after line
  wrk -t1 -c"$CONNS" -d1s -s bench/rotate.lua "$url" -- "$paths" "$KEY" >/dev/null 2>&1 || true
  before=$(ticks "$pid")
  line=$(wrk -t1 -c"$CONNS" -d"${DURATION}s" --timeout 5s -s bench/rotate.lua "$url" -- "$paths" "$KEY" |
    grep '^RESULT' || echo "RESULT 0 0 0 0 -1 0")
  after=$(ticks "$pid")
  # RESULT req/s p50 p99 non2xx errors requests
  read -r _ rps _ p99 non2xx _ n <<<"$line"
  [ "$non2xx" = 0 ] || say "warning: $name had $non2xx non-2xx answers"
  printf '| %s | %s | %.0f | %.2f | %.1f |\n' "$round" "$name" "$rps" "$p99" \
    "$(awk -v t=$((after - before)) -v hz="$HZ" -v n="$n" 'BEGIN{print (n > 0 ? t / hz * 1e6 / n : 0)}')"
}

printf '| round | case | req/s | p99 ms | server CPU µs/request |\n|---:|---|---:|---:|---:|\n'
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then order="before after"; else order="after before"; fi
  for c in typo_heavy typo_heavy_circle typo_heavy_min_score joined_common; do
    for which in $order; do
      if [ "$which" = before ]; then pid=$BEFORE_PID addr=$BEFORE_ADDR; else pid=$AFTER_PID addr=$AFTER_ADDR; fi
      case_row "$round" "$which, $c" "$pid" "http://$addr" "$WORK/cases/$c.txt"
    done
  done
done | tee "$WORK/rows.md"

echo
echo "Medians over $ROUNDS rounds (req/s, p99 ms, CPU µs/request):"
python3 bench/medians.py "$WORK/rows.md" "req/s" "p99 ms" "µs"
echo
echo "wrk -t1 -c$CONNS -d${DURATION}s each; $(nproc) cores; load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
