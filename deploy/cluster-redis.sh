# deploy/cluster-redis.sh: check 8 of deploy/cluster-test.sh, sourced by it;
# uses its BIN, ROOT, WORK, PIDS, check, die, free_port, start_replica and
# start_front (deploy/cluster-front.sh).
#
# Two hosts h1 and h2, each in its own folder with its own copy of the
# dataset and no file in common, share one Redis (deploy/redis-start.sh)
# behind an nginx front of their own; an admin folder holds nothing. The
# Redis password reaches the servers and the CLI only in a file of mode 0640
# that AREA_REDIS_FILE names, never on a command line.
# docs/deployment.md, "More than one host".

# shellcheck source=deploy/redis-start.sh
source "$ROOT/deploy/redis-start.sh"
BUDGET="$ROOT/deploy/cluster_budget.py"
redis_install
mkdir -p "$WORK/redis" "$WORK/h1" "$WORK/h2" "$WORK/admin"
redis_start "$WORK/redis"
PIDS+=("$REDIS_PID")
for host in h1 h2; do cp "$WORK/seed/areas.db" "$WORK/$host/areas.db"; done
REDIS_URL_FILE="$WORK/redis/redis.url"
(umask 027; printf '%s\n' "$REDIS_URL" >"$REDIS_URL_FILE")
AREA_REDIS_FILE=$REDIS_URL_FILE REPLICA_KEYS="$WORK/h1/keys.db" start_replica h1 127.0.0.1:0
H1=$REPLICA_ADDR
AREA_REDIS_FILE=$REDIS_URL_FILE REPLICA_KEYS="$WORK/h2/keys.db" start_replica h2 127.0.0.1:0
H2=$REPLICA_ADDR
REDIS_FRONT_PORT=$(free_port)
start_front redis-front "$REDIS_FRONT_PORT" "$H1" "$H2"
REDIS_LOG="$WORK/redis-front-access.log"
echo "cluster-test: Redis on 127.0.0.1:$REDIS_PORT; front on 127.0.0.1:$REDIS_FRONT_PORT, hosts h1=$H1 h2=$H2"

admin() { (cd "$WORK/admin" && AREA_REDIS_FILE=$REDIS_URL_FILE "$BIN" "$@" 2>>"$WORK/admin.log"); }
# served_by LINES ADDR STATUS: answers STATUS from ADDR in the front's log after line LINES.
served_by() { tail -n +"$(($1 + 1))" "$REDIS_LOG" | grep -c "upstream=$2/$3" || true; }

# A key made on the admin host answers 200 at once through the front, on both hosts.
key=$(admin keys create --plan growth --label cluster-redis)
lines=$(wc -l <"$REDIS_LOG")
out=$(python3 "$BUDGET" burst "$REDIS_FRONT_PORT" 6 "$key")
on_h1=$(served_by "$lines" "$H1" 200) on_h2=$(served_by "$lines" "$H2" 200)
verdict=1
[[ "$out" == "200=6 "* && "$on_h1" -ge 1 && "$on_h2" -ge 1 ]] && verdict=0
check "Redis: admin's key on both hosts" "$verdict" "$out (h1 $on_h1, h2 $on_h2)"

# One budget for a free key (60 a minute) across both: with W the seconds the
# requests took and B = 60 (1 + W/60), its 200s lie in 0.98 B - 2 ..= B + 2.
free=$(admin keys create --plan free --label cluster-redis-free)
lines=$(wc -l <"$REDIS_LOG")
out=$(python3 "$BUDGET" burst "$REDIS_FRONT_PORT" 200 "$free")
on_h1=$(served_by "$lines" "$H1" 200) on_h2=$(served_by "$lines" "$H2" 200)
bounds=$(awk -v f="$out" 'BEGIN {
    split(f, kv, /[ =]/); for (i = 1; i < length(kv); i += 2) v[kv[i]] = kv[i + 1]
    b = 60 * (1 + v["seconds"] / 60); low = 0.98 * b - 2; high = b + 2
    ok = v["200"] >= low && v["200"] <= high && v["other"] == 0 && v["200"] + v["429"] == 200
    printf "%d %.1f..%.1f", !ok, low, high }')
# A request that waited too long for Redis is limited by its host's own
# bucket, which can let more through: shown, so that a miss says why.
local_limits() { curl -sf -m 5 "http://$1/metrics" | awk '/^area_rate_limit_local_total /{print $2}'; }
check "Redis: one free budget for both" "${bounds%% *}" \
    "$out; bounds ${bounds#* } (200s from h1 $on_h1, h2 $on_h2; limited without Redis: h1 $(local_limits "$H1"), h2 $(local_limits "$H2"))"

# Requests without a key: limited per client, which the front on loopback
# names in X-Real-IP (a front on another host would be named with
# --trusted-front; tests/trusted_front.rs). Client A spends its budget on
# both hosts; client B, on the same front, still gets 401, not 429.
a=$(python3 "$BUDGET" burst "$REDIS_FRONT_PORT" 200 - 127.0.0.5)
b=$(python3 "$BUDGET" burst "$REDIS_FRONT_PORT" 5 - 127.0.0.6)
verdict=1
[[ "$a" != *" 429=0 "* && "$b" == *" 401=5 "* ]] && verdict=0
check "Redis: no key, limited per client" "$verdict" "client A: $a; client B: $b"

left=$(find "$WORK/admin" -mindepth 1 | wc -l)
verdict=1
[[ "$left" -eq 0 && ! -e "$WORK/h1/keys.db" && ! -e "$WORK/h2/keys.db" ]] && verdict=0
check "Redis: no keys file anywhere" "$verdict" "admin folder: $left files; h1: $(ls "$WORK/h1" | tr '\n' ' ')"
