#!/usr/bin/env bash
# deploy/redis-test.sh: keys, budgets and usage shared through Redis by two
# "hosts" and an admin "host" (tests/redis_shared.rs; docs/deployment.md,
# "More than one host").
#
# `make redis-test` runs this script: it installs Debian's redis-server when
# it is missing, starts one on a free loopback port with a random password
# (requirepass, given to it in a config file of mode 0600, never in argv),
# runs the ignored tests of tests/redis_shared.rs and tests/redis_recovery.rs
# against it one at a time,
# and stops that Redis by its own process id.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { printf 'redis-test: %s\n' "$*" >&2; exit 1; }

if ! command -v redis-server >/dev/null; then
    [[ $(id -u) -eq 0 ]] || die "needs redis-server (apt-get install redis-server, as root)"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y \
        --no-install-recommends redis-server >/dev/null
fi

WORK=$(mktemp -d)
REDIS_PID=
stop() {
    if [[ -n "$REDIS_PID" ]]; then
        kill -CONT "$REDIS_PID" 2>/dev/null || true
        kill "$REDIS_PID" 2>/dev/null || true
        wait "$REDIS_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap stop EXIT

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PASSWORD=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
# The password file alone is private: the tests check the modes the server
# gives its own files, which a umask of 077 would hide.
(umask 077; cat >"$WORK/redis.conf") <<CONF
bind 127.0.0.1
port $PORT
requirepass $PASSWORD
dir $WORK
save ""
appendonly no
maxmemory-policy noeviction
CONF
redis-server "$WORK/redis.conf" >"$WORK/redis.log" 2>&1 &
REDIS_PID=$!
for _ in $(seq 100); do
    if REDISCLI_AUTH=$PASSWORD redis-cli -p "$PORT" ping 2>/dev/null | grep -q PONG; then break; fi
    sleep 0.1
done
REDISCLI_AUTH=$PASSWORD redis-cli -p "$PORT" ping | grep -q PONG || die "redis-server did not start: $(cat "$WORK/redis.log")"
echo "redis-test: redis-server $(redis-server --version | awk '{print $3}') on 127.0.0.1:$PORT (pid $REDIS_PID)"

cd "$ROOT"
AREA_TEST_REDIS="redis://:$PASSWORD@127.0.0.1:$PORT" AREA_TEST_REDIS_PID=$REDIS_PID \
    cargo test --features fault-injection --test redis_shared --test redis_recovery -- --ignored --test-threads=1 --nocapture
