#!/usr/bin/env bash
# bench/strangers.sh (run by `make bench`, or alone after `make build`): what
# clients without a valid key cost the others, in one run.
#
# 1. A stranger's flood beside a valid key, with Redis. A server in Redis
#    mode; wrk -t1 -c8 with a valid growth key (--rpm 1000000) on Get Area
#    for BENCH_STRANGERS_SECONDS (8), alone, then beside a flood (wrk -t1
#    -c32, a new random bearer key on every request, bench/strangers.lua).
#    Redis's INFO commandstats before and after each window gives its GETs
#    (version reads) and all its commands a second. Then the same with every
#    Redis round trip 20 ms slower (bench/delay_proxy.py between the server
#    and Redis).
# 2. Keyless clients. A server with --trusted-front 127.0.0.1; wrk -t1 -c16
#    on GET /v1/areas without a key (each takes a token from its client's
#    keyless bucket: 401, or 429 once spent), X-Real-IP from 10 addresses
#    and from 100,000 (half IPv4, half IPv6 /64s; bench/keyless.lua), twice
#    each in turn; server CPU microseconds per request (utime+stime from
#    /proc) and their ratio.
# Writes bench/RESULTS-strangers.md. Starts its own redis-server on a free
# port (deploy/redis-start.sh) and stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release/area-scoring}
S=${BENCH_STRANGERS_SECONDS:-8}
DELAY_MS=20
MANY=100000
FEW=10
[ -x "$BIN" ] || { echo "no $BIN: run 'make build'" >&2; exit 1; }
missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v redis-server >/dev/null || missing+=(redis-server)
if [ ${#missing[@]} -gt 0 ]; then
  # shellcheck source=deploy/apt-install.sh
  source deploy/apt-install.sh
  apt_install "${missing[@]}"
fi

BENCH_TAG=bench-strangers
# shellcheck source=bench/work.sh
source bench/work.sh
ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12+$13}'; }
HZ=$(getconf CLK_TCK)
die() { say "$*"; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# shellcheck source=deploy/redis-start.sh
source deploy/redis-start.sh
redis_start "$WORK"
REDIS=$REDIS_PID
STARTED+=("$REDIS")
export AREA_REDIS="$REDIS_URL/0"
rcli() { REDISCLI_AUTH=$REDIS_PASSWORD redis-cli -p "$REDIS_PORT" "$@"; }
# "gets total": GET calls and all calls Redis has served so far.
redis_calls() {
  rcli INFO commandstats | tr -d '\r' | awk -F'[=,:]' '
    /^cmdstat_/ {t += $3} /^cmdstat_get:/ {g = $3} END {print g + 0, t + 0}'
}

PROXY_PORT=$(free_port)
python3 bench/delay_proxy.py "$PROXY_PORT" "$REDIS_PORT" "$DELAY_MS" >"$WORK/proxy.log" 2>&1 &
STARTED+=($!)
for _ in $(seq 100); do grep -q ready "$WORK/proxy.log" && break; sleep 0.05; done
grep -q ready "$WORK/proxy.log" || die "the delaying proxy did not start: $(cat "$WORK/proxy.log")"

env -u AREA_REDIS "$BIN" init --db "$WORK/areas.db" 2>/dev/null
"$BIN" plans set growth --rpm 1000000 2>/dev/null
KEY=$("$BIN" keys create --plan growth --label bench 2>/dev/null)

serve() { # serve REDIS_URL|- [flags...] -> $SERVER, $ADDR
  local url=$1; shift
  # Emptied here, before the child opens it, so the old server's line is never read.
  : >"$WORK/serve.log"
  if [ "$url" = - ]; then
    env -u AREA_REDIS "$BIN" serve --db "$WORK/areas.db" --addr 127.0.0.1:0 "$@" 2>"$WORK/serve.log" &
  else
    AREA_REDIS=$url "$BIN" serve --db "$WORK/areas.db" --addr 127.0.0.1:0 "$@" 2>"$WORK/serve.log" &
  fi
  SERVER=$!
  STARTED+=("$SERVER")
  ADDR=
  for _ in $(seq 400); do
    ADDR=$(grep -o 'listening on http://[0-9.:]*' "$WORK/serve.log" | sed 's/.*http:\/\///' || true)
    [ -n "$ADDR" ] && break
    sleep 0.05
  done
  [ -n "$ADDR" ] || die "the server did not start: $(cat "$WORK/serve.log")"
}
stop() { kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; }

# Part 1 -------------------------------------------------------------------
# One window: prints "route flood req/s p50 p99 non2xx errors gets gets/s calls/s flood_req/s".
# Redis is counted over the flood's whole run (its first second too, when the
# stranger's keyless budget is full), or over the valid key's run alone.
window() {
  local route=$1 flood=$2 fpid= g0 t0 g1 t1 line fline=- took=$S
  read -r g0 t0 < <(redis_calls)
  if [ "$flood" = flood ]; then
    took=$((S + 2))
    wrk -t1 -c32 -d"$((S + 2))s" -s bench/strangers.lua "http://$ADDR" -- "$(head -1 "$WORK/paths.txt")" \
      >"$WORK/flood.out" 2>&1 &
    fpid=$!
    STARTED+=("$fpid")
    sleep 1
  fi
  line=$(wrk -t1 -c8 -d"${S}s" -s bench/rotate.lua "http://$ADDR" -- "$WORK/paths.txt" "$KEY" | grep '^RESULT')
  if [ -n "$fpid" ]; then
    wait "$fpid" || true
    fline=$(awk '/^RESULT/ {print $2}' "$WORK/flood.out")
  fi
  read -r g1 t1 < <(redis_calls)
  echo "$line" | awk -v r="$route" -v f="$flood" -v g=$((g1 - g0)) -v t=$((t1 - t0)) -v s="$took" -v fl="$fline" \
    '{printf "%s %s %.0f %.2f %.2f %d %d %d %.1f %.1f %s\n", r, f, $2, $3, $4, $5, $6, g, g/s, t/s, fl}'
}

serve "$REDIS_URL/0"
curl -sf -H "Authorization: Bearer $KEY" "http://$ADDR/v1/areas?limit=100" |
  python3 -c 'import json,sys; [print("/v1/areas/" + a["id"]) for a in json.load(sys.stdin)["data"]]' >"$WORK/paths.txt"
stop
[ -s "$WORK/paths.txt" ] || die "no areas listed with the bench key"

: >"$WORK/flood_rows"
for route in direct delayed; do
  if [ "$route" = direct ]; then url="$REDIS_URL/0"; else url="redis://:$REDIS_PASSWORD@127.0.0.1:$PROXY_PORT/0"; fi
  say "Redis $route: the valid key alone, then beside the flood (${S}s each)"
  serve "$url"
  wrk -t1 -c8 -d1s -s bench/rotate.lua "http://$ADDR" -- "$WORK/paths.txt" "$KEY" >/dev/null 2>&1 || true
  window "$route" alone | tee -a "$WORK/flood_rows"
  window "$route" flood | tee -a "$WORK/flood_rows"
  stop
done

# Part 2 -------------------------------------------------------------------
# One run: prints "clients req/s p99 non2xx errors server_us_per_req".
keyless() {
  local clients=$1 s0 s1 line
  serve - --trusted-front 127.0.0.1
  wrk -t1 -c16 -d1s -s bench/keyless.lua "http://$ADDR" -- /v1/areas "$clients" >/dev/null 2>&1 || true
  s0=$(ticks "$SERVER")
  line=$(wrk -t1 -c16 -d"${S}s" -s bench/keyless.lua "http://$ADDR" -- /v1/areas "$clients" | grep '^RESULT')
  s1=$(ticks "$SERVER")
  stop
  echo "$line" | awk -v c="$clients" -v s=$((s1 - s0)) -v hz="$HZ" \
    '{printf "%s %.0f %.2f %d %d %.2f\n", c, $2, $4, $5, $6, s*1e6/hz/$7}'
}
: >"$WORK/keyless_rows"
for round in 1 2; do
  for clients in "$FEW" "$MANY"; do
    say "keyless round $round: $clients clients (${S}s)"
    keyless "$clients" | tee -a "$WORK/keyless_rows"
  done
done

python3 - "$WORK/flood_rows" "$WORK/keyless_rows" "$S" "$DELAY_MS" "$FEW" "$MANY" >bench/RESULTS-strangers.md <<'PY'
import sys, subprocess, datetime
flood = [l.split() for l in open(sys.argv[1]) if l.strip()]
keyless = [l.split() for l in open(sys.argv[2]) if l.strip()]
s, delay, few, many = sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
sh = lambda *c: subprocess.run(c, capture_output=True, text=True).stdout.strip()
out = ["# Strangers and keyless clients: what they cost the others", "",
       f"Generated by `bash bench/strangers.sh` (part of `make bench`) on "
       f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, commit {sh('git','rev-parse','--short','HEAD')}, "
       f"{sh('nproc')} cores shared with other work; {s} s per window.", "",
       "## A stranger's flood beside a valid key, with Redis", "",
       "The valid key: `wrk -t1 -c8 -s bench/rotate.lua` on Get Area (growth, --rpm 1000000). "
       "The flood: `wrk -t1 -c32 -s bench/strangers.lua`, a new random bearer key on every request, "
       "from one client, started 1 s before the valid key's window and ending 1 s after it. Redis GETs "
       "(version reads) and all commands from `INFO commandstats`, over the flood's whole run "
       f"(or the valid key's window when there is no flood). Delayed: {delay} ms added to each Redis round trip by bench/delay_proxy.py.", "",
       "| Redis | flood | valid key req/s | p50 ms | p99 ms | valid key non-2xx | Redis GETs (s counted) | Redis GETs/s | Redis commands/s | flood req/s |",
       "|---|---|---|---|---|---|---|---|---|---|"]
for r in flood:
    took = int(s) + 2 if r[1] == "flood" else int(s)
    out.append(f"| {r[0]} | {'beside' if r[1] == 'flood' else 'none'} | {r[2]} | {r[3]} | {r[4]} | {r[5]} | {int(r[7]):,} ({took}) | {r[8]} | {r[9]} | {r[10]} |")
out += ["", "Before (the issue's figures, Redis on loopback, `wrk -c32` of random keys): "
        "238,805 Redis GETs in 12 s (about 19,900 a second, one per request); a valid key's "
        "p50 0.16 / p99 0.69 ms without the flood, p50 2.21 / p99 5.58 ms with it.", ""]
def row(route, f):
    return next(r for r in flood if r[0] == route and r[1] == f)
for route in ("direct", "delayed"):
    a, b = row(route, "alone"), row(route, "flood")
    out.append(f"- Redis {route}: beside the flood, the valid key's p50 is {float(b[3]) / float(a[3]):.2f}x and "
               f"its p99 {float(b[4]) / float(a[4]):.2f}x what they are without it; req/s {float(b[2]) / float(a[2]):.2f}x.")
out += ["", "The flood's wrk, and the server answering it (401, then 429 once the stranger's keyless "
        "budget is spent), share the cores with the valid key's wrk: part of the valid key's slowdown "
        "beside the flood is CPU on this machine, whatever Redis does; the delayed rows show whether "
        "the valid key waits on Redis.",
        "", "## Keyless clients: 100,000 against 10", "",
        "A server with `--trusted-front 127.0.0.1`; `wrk -t1 -c16 -s bench/keyless.lua` on "
        "`GET /v1/areas` without a key (401 while the client's keyless bucket has tokens, 429 after), "
        "X-Real-IP going round the addresses, half IPv4, half IPv6 in /64s of their own. "
        "Server CPU is utime+stime from /proc over the window. With 10 clients nearly every answer is 429 "
        "(each bucket spent in its first 60 requests), with 100,000 nearly every one is 401 (each client "
        "seen a few times in a minute); both are refusals with an error body.", "",
        "| run | clients | req/s | p99 ms | non-2xx | socket errors | server CPU µs/req |",
        "|---|---|---|---|---|---|---|"]
for i, r in enumerate(keyless):
    out.append(f"| {i // 2 + 1} | {int(r[0]):,} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} |")
mean = lambda c: sum(float(r[5]) for r in keyless if r[0] == c) / sum(1 for r in keyless if r[0] == c)
ratio = mean(many) / mean(few)
out += ["", f"Mean CPU µs/request with {int(many):,} clients / with {few}: **{ratio:.2f}x** "
        f"({mean(many):.2f} / {mean(few):.2f}; the aim is within 10%, 0.90x to 1.10x)."]
print("\n".join(out))
PY
cat bench/RESULTS-strangers.md
