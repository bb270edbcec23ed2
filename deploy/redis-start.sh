# deploy/redis-start.sh: sourced by deploy/redis-test.sh, deploy/cluster-redis.sh
# and bench/redis.sh; starts the Redis of a test.
#
# redis_install: installs Debian's redis-server when it is missing (as root).
# redis_start DIR: starts redis-server on a free loopback port with a random
#   password (requirepass, in DIR/redis.conf of mode 0600, never in argv) and
#   waits for it to answer; sets REDIS_PID, REDIS_PORT, REDIS_PASSWORD and
#   REDIS_URL (redis://:password@127.0.0.1:port). The caller stops REDIS_PID
#   with redis_stop.
# Expects a `die` function of the caller's.

redis_install() {
    command -v redis-server >/dev/null && return 0
    # shellcheck source=deploy/apt-install.sh
    source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
    apt_install redis-server || die "cannot install redis-server"
}

# How long redis-server may take to answer its first PING.
REDIS_START_SECS=10

redis_start() {
    local dir=$1
    REDIS_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    REDIS_PASSWORD=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
    # The password file alone is private: the tests check the modes the server
    # gives its own files, which a umask of 077 would hide.
    (umask 077; cat >"$dir/redis.conf") <<CONF
bind 127.0.0.1
port $REDIS_PORT
requirepass $REDIS_PASSWORD
dir $dir
save ""
appendonly no
maxmemory-policy noeviction
CONF
    redis-server "$dir/redis.conf" >"$dir/redis.log" 2>&1 &
    REDIS_PID=$!
    local until=$((SECONDS + REDIS_START_SECS))
    while ((SECONDS < until)); do
        if REDISCLI_AUTH=$REDIS_PASSWORD redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; then break; fi
        sleep 0.1
    done
    REDISCLI_AUTH=$REDIS_PASSWORD redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG ||
        die "redis-server did not start: $(cat "$dir/redis.log")"
    REDIS_URL="redis://:$REDIS_PASSWORD@127.0.0.1:$REDIS_PORT"
}

# redis_stop: stops the Redis of redis_start (by its own id), stalled or not.
redis_stop() {
    [[ -n "${REDIS_PID:-}" ]] || return 0
    kill -CONT "$REDIS_PID" 2>/dev/null || true
    kill "$REDIS_PID" 2>/dev/null || true
    wait "$REDIS_PID" 2>/dev/null || true
    REDIS_PID=
}
