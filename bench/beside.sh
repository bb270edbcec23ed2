# Sourced by bench/run.sh: what the endpoints are measured beside. nginx
# serving the very bytes of Get Area and List page 1 at each size (the HTTP
# limit) and the layer alone serving Get Area's bytes (examples/layer_floor.rs).
# Needs run.sh's wrk_case, say, $WORK, $FLOOR_BIN and STARTED; each result is a row of
# results.tsv labelled nginx-SIZE or floor-SIZE.

# Serves $WORK/www-SIZE (written by run_size) as nginx's root. run_nginx SIZE KEY
run_nginx() {
  local size=$1 key=$2 port pid
  [ -s "$WORK/www-$size/area.json" ] && [ -s "$WORK/www-$size/list.json" ] ||
    { say "skipping nginx at $size: the server gave no bodies to serve"; return; }
  rm -rf "$WORK/www"
  cp -r "$WORK/www-$size" "$WORK/www"
  start_static_nginx
  port=$NGINX_PORT pid=$NGINX_PID
  echo /area.json >"$WORK/nginx-area.txt"
  echo /list.json >"$WORK/nginx-list.txt"
  # nginx's RSS is its master's; the workers are what serve, but the column is
  # about the API server, so it is left as nginx's master for completeness.
  wrk_case "nginx-$size get_area" "http://127.0.0.1:$port" "$WORK/nginx-area.txt" "$key" "$pid"
  wrk_case "nginx-$size list_first" "http://127.0.0.1:$port" "$WORK/nginx-list.txt" "$key" "$pid"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}

# The layer's floor: src/transport/ with no application code, serving the
# same Get Area bytes, measured the same way. run_floor SIZE KEY
run_floor() {
  local size=$1 key=$2 pid addr
  [ -s "$WORK/www-$size/area.json" ] || { say "skipping the floor: no Get Area body"; return; }
  cargo build --release --quiet --example layer_floor
  echo /area.json >"$WORK/nginx-area.txt"
  "$FLOOR_BIN" "$WORK/www-$size/area.json" >"$WORK/floor.out" &
  pid=$!
  STARTED+=("$pid")
  local tries=0
  until addr=$(awk '/^ADDR/{print $2}' "$WORK/floor.out" 2>/dev/null) && [ -n "$addr" ]; do
    tries=$((tries + 1))
    [ $tries -lt 100 ] || { say "the floor server did not start"; return; }
    sleep 0.05
  done
  wrk_case "floor-$size get_area" "http://$addr" "$WORK/nginx-area.txt" "$key" "$pid"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}
