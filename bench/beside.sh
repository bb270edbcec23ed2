# Sourced by bench/run.sh: what the endpoints are measured beside. nginx
# serving the very bytes of Get Area and List page 1 at each size (the HTTP
# limit), the layer alone serving Get Area's bytes (examples/layer_floor.rs),
# and every case again beside two busy processes (`yes > /dev/null`), as on a
# host that does other work. Needs run.sh's wrk_case, say, $WORK, $BIN, $N,
# CASES, SERVE_ARGS, BUSY_DURATION and STARTED; each result is a row of
# results.tsv labelled nginx-SIZE, floor-SIZE or busy-SIZE.

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

# Every case for BUSY_DURATION seconds while two `yes > /dev/null` keep both
# cores of this machine kind busy: the server's workers then share the CPU
# with other work, and its p99 shows how long a request waits for a turn.
# run_busy SIZE DB KEY (needs run_size's cases for SIZE)
run_busy() {
  local size=$1 db=$2 key=$3 out server launcher yes_pids=() c
  [ "$BUSY_DURATION" -gt 0 ] || { say "no pass beside busy processes (BENCH_BUSY_DURATION=0)"; return; }
  python3 bench/first200.py "$WORK/server-busy.log" "$key" "$WORK/start-busy" -- \
    "$BIN" serve --db "$db" --addr 127.0.0.1:0 --max-connections-per-address 0 "${SERVE_ARGS[@]}" &
  launcher=$!
  STARTED+=("$launcher")
  local tries=0
  until grep -qE '^(FIRST200_MS|FAILED)' "$WORK/start-busy" 2>/dev/null; do
    tries=$((tries + 1))
    [ $tries -lt 600 ] || { say "no answer from first200.py"; return; }
    sleep 0.1
  done
  out=$(cat "$WORK/start-busy")
  server=$(awk '/^PID/{print $2}' <<<"$out")
  STARTED+=("$server")
  grep -q '^FAILED' <<<"$out" && { say "busy pass: $out"; return; }
  for _ in 1 2; do
    yes >/dev/null &
    yes_pids+=($!)
    STARTED+=($!)
  done
  say "$size areas beside two busy processes, ${BUSY_DURATION} s a case"
  local DURATION=$BUSY_DURATION
  for c in "${CASES[@]}"; do
    wrk_case "busy-$size $c" "http://$(awk '/^ADDR/{print $2}' <<<"$out")" "$WORK/cases-$size/$c.txt" "$key" "$server" "$db"
    : >"$WORK/server-busy.log"
  done
  kill "${yes_pids[@]}" "$server"
  wait "$launcher" 2>/dev/null || true
}
