# Sourced by bench/run.sh and bench/layer.sh: nginx (2 workers, no access log)
# serving the files of $WORK/www on a free loopback port, as the ceiling a
# server of the same bytes is measured against. Needs $NGINX, $WORK and the
# STARTED array of the script that sources it; sets NGINX_PORT and NGINX_PID
# once nginx answers /area.json.
start_static_nginx() {
  NGINX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$WORK/nginx/logs" "$WORK/nginx/tmp"
  cat >"$WORK/nginx/nginx.conf" <<EOF
worker_processes 2;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  default_type application/json;
  types { }
  client_body_temp_path $WORK/nginx/tmp/body;
  proxy_temp_path $WORK/nginx/tmp/proxy;
  fastcgi_temp_path $WORK/nginx/tmp/fastcgi;
  uwsgi_temp_path $WORK/nginx/tmp/uwsgi;
  scgi_temp_path $WORK/nginx/tmp/scgi;
  # A client that takes gzip gets NAME.gz where there is one (bench/gzip.sh).
  gzip_static on;
  server { listen 127.0.0.1:$NGINX_PORT; root $WORK/www; }
}
EOF
  "$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' 2>>"$WORK/nginx/logs/error.log" &
  NGINX_PID=$!
  STARTED+=("$NGINX_PID")
  local tries=0
  until curl -sf -o /dev/null "http://127.0.0.1:$NGINX_PORT/area.json"; do
    tries=$((tries + 1))
    [ $tries -lt 100 ] || { cat "$WORK/nginx/logs/error.log" >&2; exit 1; }
    sleep 0.05
  done
}
