#!/usr/bin/env bash
# deploy/redis-test.sh: keys, budgets and usage shared through Redis by two
# "hosts" and an admin "host" (tests/redis_shared.rs; docs/deployment.md,
# "More than one host").
#
# `make redis-test` runs this script: it installs Debian's redis-server when
# it is missing, starts one on a free loopback port with a random password
# (deploy/redis-start.sh: requirepass in a config file of mode 0600, never in
# argv), runs the ignored tests of tests/redis_shared.rs,
# tests/redis_recovery.rs, tests/redis_spools.rs, tests/redis_strangers.rs,
# tests/redis_invalid_values.rs and tests/redis_acl.rs (servers as the ACL user of
# docs/deployment.md)
# against it one at a time, and stops that Redis by its own process id.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { printf 'redis-test: %s\n' "$*" >&2; exit 1; }
# shellcheck source=deploy/redis-start.sh
source "$ROOT/deploy/redis-start.sh"

redis_install
WORK=$(mktemp -d)
REDIS_PID=
stop() {
    redis_stop
    rm -rf "$WORK"
}
trap stop EXIT

redis_start "$WORK"
echo "redis-test: redis-server $(redis-server --version | awk '{print $3}') on 127.0.0.1:$REDIS_PORT (pid $REDIS_PID)"

cd "$ROOT"
AREA_TEST_REDIS=$REDIS_URL AREA_TEST_REDIS_PID=$REDIS_PID \
    cargo test --features fault-injection --test tests -- --ignored --test-threads=1 --nocapture "${@:-redis_}"
