# deploy/cluster-front.sh: sourced by deploy/cluster-test.sh (and its
# cluster-redis.sh); starts the nginx front of a test set-up: the site files of
# deploy/nginx/ without TLS, on loopback, with the production includes unchanged.
#
# start_front NAME PORT UPSTREAM...: writes $WORK/NAME.conf (access log
# $WORK/NAME-access.log, error log $WORK/NAME-error.log), starts nginx on
# 127.0.0.1:PORT in front of the UPSTREAM addresses, waits until it answers,
# and sets FRONT_PID (also added to PIDS, which the caller's cleanup stops).
# Uses the caller's WORK, ROOT, PIDS and die.

start_front() {
    local name=$1 port=$2 servers="" upstream
    shift 2
    for upstream in "$@"; do
        servers+="        server $upstream max_fails=1 fail_timeout=10s;"$'\n'
    done
    cat >"$WORK/$name.conf" <<CONF
# Written by deploy/cluster-front.sh: deploy/nginx/area-scoring*.conf without TLS, on loopback.
worker_processes 1;
daemon off;
pid $WORK/$name.pid;
error_log $WORK/$name-error.log info;
events { worker_connections 4096; }
http {
    client_body_temp_path $WORK/$name-tmp-body;
    proxy_temp_path       $WORK/$name-tmp-proxy;
    fastcgi_temp_path     $WORK/$name-tmp-fastcgi;
    uwsgi_temp_path       $WORK/$name-tmp-uwsgi;
    scgi_temp_path        $WORK/$name-tmp-scgi;
    include $ROOT/deploy/nginx/front-http.conf;
    access_log $WORK/$name-access.log area_front;
    upstream area_scoring {
$servers        keepalive 32;
        keepalive_timeout 5s;
        keepalive_requests 1000;
    }
    server {
        listen 127.0.0.1:$port;
        include $ROOT/deploy/nginx/front-server.conf;
    }
}
CONF
    nginx -t -q -p "$WORK" -c "$WORK/$name.conf" -e "$WORK/$name-error.log" ||
        die "the test $name.conf is invalid"
    nginx -p "$WORK" -c "$WORK/$name.conf" -e "$WORK/$name-error.log" &
    FRONT_PID=$!
    PIDS+=("$FRONT_PID")
    local until=$((SECONDS + START_SECS))
    while ((SECONDS < until)); do
        curl -fs -o /dev/null --max-time 1 "http://127.0.0.1:$port/healthz" && break
        sleep 0.1
    done
    curl -fs -o /dev/null --max-time 2 "http://127.0.0.1:$port/healthz" ||
        die "nginx does not answer on 127.0.0.1:$port"
}
