#!/usr/bin/env bash
# deploy/cluster-test.sh: proves the deployment of deploy/ on this machine.
#
# `make cluster-test` builds the release binary and runs this script, which
# starts two replicas of the server (each on its own copy of a fresh seeded
# database) and nginx in front of them, with the very limits of production
# (deploy/nginx/front-http.conf and front-server.conf, included unchanged), on
# loopback ports in a temporary directory, and shows:
#   1. the production site files are valid (nginx -t) before a certificate exists
#      and after (with a throwaway one), and the first run's plain HTTP answers
#      certbot's challenge and redirects the rest;
#   2. traffic through nginx goes on while one replica is killed mid-run:
#      every request is answered 2xx (wrk: non-2xx = 0, socket errors = 0);
#   3. a 9 KiB URL gets 414 and 17 KiB of headers get 431, as API JSON errors;
#      /metrics is not served through the front; bytes outside ASCII (which
#      a replica would refuse) never reach a replica;
#   4. an endless header line is cut off by nginx, and the replicas' memory
#      (VmRSS) and threads do not move; nor do they for 500 idle connections;
#   5. too many requests in flight from one address are refused (429 JSON);
#   6. a silent client, and one that trickles a header, are dropped after the
#      10 s header timeout;
#   6b. malformed framing (docs/http-layer.md): HTTP/2.0 and 3.0
#      request lines, a chunked GET carrying a second request, a raw non-ASCII
#      header byte, malformed request lines, and 4 clients pipelining 20
#      requests each without reading are answered in the API's error shape or
#      closed by the front, and the replicas' threads and descriptors stay flat;
#   7. the killed replica, restarted, gets traffic again; with no replica left
#      nginx answers 502 in the API's error shape;
#   8. two hosts, each in its own folder with its own dataset copy, sharing
#      one Redis (deploy/redis-start.sh) behind a front, and an admin folder
#      with nothing in it (deploy/cluster-redis.sh): a key made on the admin
#      host works on both; a free key's budget is one across both; requests
#      without a key are limited per client, named by the front in X-Real-IP.
# Each check prints PASS or FAIL with its figures; the script exits 1 on any FAIL.
# Traffic goes only to 127.0.0.1; every loop is bounded; the trap stops every
# process it started and removes the temporary directory.
#
# Knobs (environment): CLUSTER_SECONDS (wrk run, default 12), CLUSTER_SERVE_ARGS
# (extra flags for the replicas' `serve`, default none). Logs of the last run
# are left in deploy/cluster-test-logs/.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN="$ROOT/target/release/area-scoring"
PROBE="$ROOT/deploy/cluster_probe.py"
LOGS="$ROOT/deploy/cluster-test-logs"
SECONDS_OF_TRAFFIC=${CLUSTER_SECONDS:-12}
read -r -a SERVE_ARGS <<<"${CLUSTER_SERVE_ARGS:-}"

FAILS=0
pass() { printf 'PASS  %-34s %s\n' "$1" "$2"; }
fail() { printf 'FAIL  %-34s %s\n' "$1" "$2"; FAILS=$((FAILS + 1)); }
check() { # check NAME CONDITION-EXIT-STATUS FIGURES
    if [[ "$2" -eq 0 ]]; then pass "$1" "$3"; else fail "$1" "$3"; fi
}
die() { printf 'cluster-test: %s\n' "$*" >&2; exit 1; }
# Seconds a replica or nginx may take to start, and a replica to stop on
# SIGTERM before it is killed (it promises to within 5 s: README, "Deployment").
START_SECS=10
STOP_SECS=6

[[ -x "$BIN" ]] || die "$BIN is missing: run 'cargo build --release' (make cluster-test does)"

# --- tools -------------------------------------------------------------------
missing=()
command -v nginx >/dev/null || missing+=(nginx-light)
command -v wrk >/dev/null || missing+=(wrk)
command -v curl >/dev/null || missing+=(curl)
command -v openssl >/dev/null || missing+=(openssl)
if ((${#missing[@]})); then
    # shellcheck source=deploy/apt-install.sh
    source "$(dirname "$0")/apt-install.sh"
    apt_install "${missing[@]}" || die "cannot install ${missing[*]}"
fi
command -v python3 >/dev/null || die "needs python3"

# --- processes and cleanup ---------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/area-cluster.XXXXXX")
chmod 0755 "$WORK" # nginx workers (nobody) use its temp directories
PIDS=()
NGINX_PID=""
stop() { # stop PID: TERM, then KILL after 5 s
    local pid=$1
    kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    local until=$((SECONDS + STOP_SECS))
    while ((SECONDS < until)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
cleanup() {
    local status=$?
    [[ -n "$NGINX_PID" ]] && stop "$NGINX_PID"
    for pid in "${PIDS[@]}"; do stop "$pid"; done
    rm -rf "$LOGS"
    mkdir -p "$LOGS"
    cp "$WORK"/*.log "$LOGS"/ 2>/dev/null || true
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start_replica NAME ADDR: starts a server on NAME/areas.db; sets REPLICA_PID and
# REPLICA_ADDR. REPLICA_KEYS names another keys file (with Redis, where
# the host's snapshot of the keys goes).
start_replica() {
    local name=$1 addr=$2 log="$WORK/$1.log"
    # Both replicas share one keys file, as docs/deployment.md sets them up.
    "$BIN" serve --db "$WORK/$name/areas.db" --keys "${REPLICA_KEYS:-$WORK/seed/keys.db}" --addr "$addr" --max-connections-per-address 0 "${SERVE_ARGS[@]}" >>"$log" 2>&1 &
    REPLICA_PID=$!
    PIDS+=("$REPLICA_PID")
    REPLICA_ADDR=""
    local until=$((SECONDS + START_SECS))
    while ((SECONDS < until)); do
        REPLICA_ADDR=$(grep -o 'listening on http://127\.0\.0\.1:[0-9]*' "$log" | tail -1 | sed 's#^listening on http://##' || true)
        [[ -n "$REPLICA_ADDR" ]] && break
        kill -0 "$REPLICA_PID" 2>/dev/null || { cat "$log" >&2; die "replica $name exited at start"; }
        sleep 0.1
    done
    [[ -n "$REPLICA_ADDR" ]] || die "replica $name did not report its address"
}

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
threads() { awk '/^Threads:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
# The fewest of 5 samples 0.2 s apart: the replica's self-connections
# (keeper.rs) add a thread and 3 descriptors for a moment every 100 ms.
fewest() { local n m=999999; for _ in 1 2 3 4 5; do n=$("$@"); ((n < m)) && m=$n; sleep 0.2; done; echo "$m"; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

# --- 1. the production configuration is valid ----------------------------------
# The site files as installed (docs/deployment.md, step 4), inside a main
# configuration like Debian's, with the paths moved into $WORK: first the
# plain-HTTP site alone, as before any certificate exists, then both.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
    -keyout "$WORK/privkey.pem" -out "$WORK/fullchain.pem" >/dev/null 2>&1
mkdir -p "$WORK/sites" "$WORK/acme/.well-known/acme-challenge"
for site in area-scoring area-scoring-tls; do
    sed -e "s#/etc/nginx/area-scoring/#$ROOT/deploy/nginx/#g" \
        -e "s#/etc/letsencrypt/live/api.example.org/#$WORK/#g" \
        -e "s#/var/log/nginx/#$WORK/prod-#g" \
        -e "s#/var/www/acme#$WORK/acme#g" \
        "$ROOT/deploy/nginx/$site.conf" >"$WORK/sites/$site.conf"
done
prod_conf() { # prod_conf SITE... : a main configuration including those sites
    printf 'pid %s/prod.pid;\nevents { worker_connections 1024; }\nhttp {\n' "$WORK"
    local site
    for site in "$@"; do printf '    include %s/sites/%s.conf;\n' "$WORK" "$site"; done
    printf '}\n'
}
nginx_t() { nginx -t -q -p "$WORK" -c "$1" -e "$WORK/prod-error.log" 2>&1; }
prod_conf area-scoring >"$WORK/prod-first.conf"
prod_conf area-scoring area-scoring-tls >"$WORK/prod.conf"
if out=$(nginx_t "$WORK/prod-first.conf") && out=$(nginx_t "$WORK/prod.conf"); then
    pass "production nginx site files" "nginx -t: ok before and after the certificate ($(nginx -v 2>&1 | sed 's/^nginx version: //'))"
else
    fail "production nginx site files" "nginx -t: $out"
fi
# The first run, served: certbot's challenge file is answered, the rest is
# sent to HTTPS. Its port 80 moves to a free loopback port, and its workers
# run as this script's user, who can read $WORK (as www-data reads /var/www).
ACME_PORT=$(free_port)
sed -i -e "s#listen 80;#listen 127.0.0.1:$ACME_PORT;#" -e "/listen \[::\]:80;/d" "$WORK/sites/area-scoring.conf"
sed -e "s#^http {#daemon off;\nuser $(id -un);\nhttp {\n    client_body_temp_path $WORK/acme-tmp-body;\n    proxy_temp_path $WORK/acme-tmp-proxy;\n    fastcgi_temp_path $WORK/acme-tmp-fastcgi;\n    uwsgi_temp_path $WORK/acme-tmp-uwsgi;\n    scgi_temp_path $WORK/acme-tmp-scgi;#" \
    "$WORK/prod-first.conf" >"$WORK/acme.conf"
echo "token-for-the-test" >"$WORK/acme/.well-known/acme-challenge/t0k3n"
nginx -p "$WORK" -c "$WORK/acme.conf" -e "$WORK/acme-error.log" &
ACME_PID=$!
PIDS+=("$ACME_PID")
until=$((SECONDS + START_SECS))
while ((SECONDS < until)) && ! curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$ACME_PORT/"; do sleep 0.1; done
challenge=$(curl -s --max-time 2 -H 'Host: api.example.org' "http://127.0.0.1:$ACME_PORT/.well-known/acme-challenge/t0k3n" || true)
redirect=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' --max-time 2 -H 'Host: api.example.org' "http://127.0.0.1:$ACME_PORT/v1/areas?limit=1" || true)
verdict=1
[[ "$challenge" == "token-for-the-test" && "$redirect" == "308 https://api.example.org/v1/areas?limit=1" ]] && verdict=0
check "first run: challenge, then HTTPS" "$verdict" "challenge '$challenge'; elsewhere $redirect"
kill "$ACME_PID" 2>/dev/null || true
wait "$ACME_PID" 2>/dev/null || true

# --- data and replicas ---------------------------------------------------------
mkdir -p "$WORK/seed" "$WORK/r1" "$WORK/r2"
"$BIN" init --db "$WORK/seed/areas.db" >/dev/null 2>&1
# Enterprise: no rate limit, so that every answer of the traffic run can be a 200.
KEY=$("$BIN" keys create --db "$WORK/seed/areas.db" --new-keys-file --plan enterprise --label cluster-test 2>/dev/null)
cp "$WORK/seed/areas.db" "$WORK/r1/areas.db"
cp "$WORK/seed/areas.db" "$WORK/r2/areas.db"

start_replica r1 127.0.0.1:0
R1_PID=$REPLICA_PID R1=$REPLICA_ADDR
start_replica r2 127.0.0.1:0
R2_PID=$REPLICA_PID R2=$REPLICA_ADDR

# --- nginx: the test variant (plain HTTP on loopback, the same includes) ----------
FRONT_PORT=$(free_port)
FRONT="http://127.0.0.1:$FRONT_PORT"
# shellcheck source=deploy/cluster-front.sh
source "$ROOT/deploy/cluster-front.sh"
start_front nginx "$FRONT_PORT" "$R1" "$R2"
NGINX_PID=$FRONT_PID
echo "cluster-test: nginx on $FRONT, replicas r1=$R1 (pid $R1_PID), r2=$R2 (pid $R2_PID)"

# --- 2. traffic while a replica dies --------------------------------------------
cat >"$WORK/mix.lua" <<'EOF'
-- Every endpoint in turn; one summary line for the shell to read.
local paths = {
  "/v1/areas?limit=20", "/v1/areas/cape-town", "/v1/areas/search?q=cape",
  "/v1/areas/compare?ids=cape-town,soweto", "/v1/areas/soweto/history?period=90d",
  "/v1/areas/search?lat=-26.2&lng=28.04&radius=20", "/v1/areas?province=gauteng&sort=truth_score&order=desc",
}
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRK requests=%d non2xx=%d connect=%d read=%d write=%d timeout=%d p99_ms=%.1f\n",
    summary.requests, e.status, e.connect, e.read, e.write, e.timeout, latency:percentile(99) / 1000))
end
EOF
wrk -t 2 -c 8 -d "${SECONDS_OF_TRAFFIC}s" --timeout 5s -s "$WORK/mix.lua" \
    -H "Authorization: Bearer $KEY" "$FRONT" >"$WORK/wrk.log" 2>&1 &
WRK_PID=$!
PIDS+=("$WRK_PID")
KILL_AT=$((SECONDS_OF_TRAFFIC / 3))
sleep "$KILL_AT"
kill -KILL "$R2_PID"
wait "$R2_PID" 2>/dev/null || true
wait "$WRK_PID" || true
line=$(grep '^WRK ' "$WORK/wrk.log" || echo "WRK requests=0 non2xx=0 connect=0 read=0 write=0 timeout=0 p99_ms=0")
fig() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$line"; }
requests=$(fig requests) non2xx=$(fig non2xx)
errors=$(($(fig connect) + $(fig read) + $(fig write) + $(fig timeout)))
to_r2_before=$(grep -c "upstream=$R2/" "$WORK/nginx-access.log" || true)
retried=$(grep -c "upstream=[^ ]*, " "$WORK/nginx-access.log" || true)
verdict=1
[[ -n "$requests" && "$requests" -gt 1000 && "$non2xx" -eq 0 && "$errors" -eq 0 ]] && verdict=0
check "replica killed mid-run" "$verdict" \
    "wrk ${SECONDS_OF_TRAFFIC}s, 8 conns: requests=$requests non2xx=$non2xx socket_errors=$errors p99_ms=$(fig p99_ms); r2 SIGKILLed at ${KILL_AT}s; r2 served $to_r2_before before; nginx retried $retried on r1"

ok=0
for _ in $(seq 1 100); do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H "Authorization: Bearer $KEY" "$FRONT/v1/areas/cape-town" || true)
    [[ "$code" == 200 ]] && ok=$((ok + 1))
done
verdict=1
[[ "$ok" -eq 100 ]] && verdict=0
check "one replica left" "$verdict" "100 sequential GETs after the kill: $ok answered 200"

# --- 2b. the representations and the export, through the front ------------------
# shellcheck source=deploy/cluster-formats.sh
source "$ROOT/deploy/cluster-formats.sh"

# The killed replica comes back on its port (nginx tries it again after fail_timeout).
mkdir -p "$WORK/r2"
start_replica r2 "$R2"
R2_PID=$REPLICA_PID

# --- 3 to 6. size limits, endless and idle clients, per-address limits ------------
# shellcheck source=deploy/cluster-limits.sh
source "$ROOT/deploy/cluster-limits.sh"

# --- 6b. malformed framing, through the front ------------------------------------
# shellcheck source=deploy/cluster-hostile.sh
source "$ROOT/deploy/cluster-hostile.sh"

# --- 7. the restarted replica serves again; none left gives JSON 502 ---------------
before_last=$(wc -l <"$WORK/nginx-access.log")
for _ in $(seq 1 20); do
    curl -s -o /dev/null --max-time 5 -H "Authorization: Bearer $KEY" "$FRONT/v1/areas?limit=1" || true
done
to_r2_after=$(tail -n +"$((before_last + 1))" "$WORK/nginx-access.log" | grep -c "upstream=$R2/200" || true)
verdict=1
[[ "$to_r2_after" -gt 0 ]] && verdict=0
check "restarted replica rejoins" "$verdict" "r2 answered $to_r2_after of the last 20 requests"

direct_ok=0
for addr in "$R1" "$R2"; do
    curl -fs -o /dev/null --max-time 3 "http://$addr/healthz" && direct_ok=$((direct_ok + 1))
done
verdict=1
[[ "$direct_ok" -eq 2 ]] && verdict=0
check "replicas still accept" "$verdict" "$direct_ok of 2 answer /healthz directly at the end"

stop "$R1_PID"
stop "$R2_PID"
code=$(curl -s -o "$WORK/502.json" -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $KEY" "$FRONT/v1/areas" || true)
json=$(python3 "$PROBE" json "$WORK/502.json" bad_gateway 502)
verdict=1
[[ "$code" == 502 && "$json" == json=ok ]] && verdict=0
check "no replica left" "$verdict" "status=$code $json"

# --- 8. two hosts sharing one Redis, behind the front ------------------------------
# shellcheck source=deploy/cluster-redis.sh
source "$ROOT/deploy/cluster-redis.sh"

echo
if ((FAILS)); then
    echo "cluster-test: $FAILS check(s) FAILED (logs in deploy/cluster-test-logs/)"
    exit 1
fi
echo "cluster-test: every check passed"
