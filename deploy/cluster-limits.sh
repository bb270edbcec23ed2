# deploy/cluster-limits.sh: sourced by deploy/cluster-test.sh (sections 3 to 6);
# uses its FRONT, FRONT_PORT, KEY, PROBE, WORK, R1, R1_PID, R2_PID and
# `check`. The front's limits on clients, with the replicas untouched by them.

# --- 3. request line and header size limits -------------------------------------
long_q=$(head -c 9216 /dev/zero | tr '\0' a)
code=$(curl -s -o "$WORK/414.json" -w '%{http_code}' --max-time 5 -H "Authorization: Bearer $KEY" "$FRONT/v1/areas/search?q=$long_q" || true)
json=$(python3 "$PROBE" json "$WORK/414.json" uri_too_long 414)
verdict=1
[[ "$code" == 414 && "$json" == json=ok ]] && verdict=0
check "9 KiB URL" "$verdict" "status=$code $json ($(head -c 120 "$WORK/414.json"))"

for i in $(seq 1 17); do printf 'X-Filler-%02d: %s\n' "$i" "$(head -c 1000 /dev/zero | tr '\0' b)"; done >"$WORK/headers.txt"
code=$(curl -s -o "$WORK/431.json" -w '%{http_code}' --max-time 5 -H "Authorization: Bearer $KEY" -H @"$WORK/headers.txt" "$FRONT/v1/areas" || true)
json=$(python3 "$PROBE" json "$WORK/431.json" headers_too_large 431)
verdict=1
[[ "$code" == 431 && "$json" == json=ok ]] && verdict=0
check "17 KiB of headers" "$verdict" "status=$code $json, 17 headers of 1 KiB"

# Bytes outside ASCII, which a replica would refuse or drop as a header: the
# front refuses them in the target and passes on only checked headers, so no
# replica is ever asked (and none is marked failed for it).
closed_before=$(grep -c "upstream prematurely closed" "$WORK/nginx-error.log" || true)
out=$(python3 "$PROBE" nonascii "$FRONT_PORT" "$KEY")
closed_after=$(grep -c "upstream prematurely closed" "$WORK/nginx-error.log" || true)
verdict=1
[[ "$out" == "target=400/bad_request header=200/- authorization=401/invalid_api_key if_none_match=200/- request_id=200/-" && "$closed_after" -eq "$closed_before" ]] && verdict=0
check "non-ASCII bytes" "$verdict" "$out; replica connections closed unanswered: $((closed_after - closed_before))"

# /metrics is the replicas' business, not the public's.
code=$(curl -s -o "$WORK/metrics.json" -w '%{http_code}' --max-time 5 "$FRONT/metrics" || true)
json=$(python3 "$PROBE" json "$WORK/metrics.json" not_found 404)
direct=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://$R1/metrics" || true)
verdict=1
[[ "$code" == 404 && "$json" == json=ok && "$direct" == 200 ]] && verdict=0
check "metrics kept inside" "$verdict" "front /metrics: status=$code $json; replica r1 /metrics direct: $direct"

# --- 4. an endless header line; idle connections; the replicas do not notice ------
rss1_before=$(rss_kb "$R1_PID") thr1_before=$(threads "$R1_PID")
rss2_before=$(rss_kb "$R2_PID") thr2_before=$(threads "$R2_PID")
cut_ok=0 max_sent=0
for _ in $(seq 1 10); do
    out=$(python3 "$PROBE" endless "$FRONT_PORT")
    sent=$(sed -n 's/.*sent_bytes=\([0-9]*\).*/\1/p' <<<"$out")
    ((sent > max_sent)) && max_sent=$sent
    [[ "$out" == *"status=431 code=headers_too_large"* && "$sent" -lt 1048576 ]] && cut_ok=$((cut_ok + 1))
done
idle_out=$(python3 "$PROBE" idle "$FRONT_PORT" 500 2)
rss1_after=$(rss_kb "$R1_PID") thr1_after=$(threads "$R1_PID")
rss2_after=$(rss_kb "$R2_PID") thr2_after=$(threads "$R2_PID")
verdict=1
[[ "$cut_ok" -eq 10 ]] && verdict=0
check "endless header line" "$verdict" "10 clients: $cut_ok cut off with 431 JSON, at most $max_sent bytes taken before the answer (64 MiB offered)"
d1=$((rss1_after - rss1_before)) d2=$((rss2_after - rss2_before))
verdict=1
# Had the line reached a replica it would hold megabytes; had the idle
# connections reached one, it would hold 500 more threads. Idle keep-alive
# connections from nginx closing may lower the thread count; nothing may raise it.
[[ "$d1" -le 1024 && "$d2" -le 1024 && "$thr1_after" -le "$thr1_before" && "$thr2_after" -le "$thr2_before" ]] && verdict=0
check "replicas untouched" "$verdict" "VmRSS r1 ${rss1_before}->${rss1_after} kB, r2 ${rss2_before}->${rss2_after} kB; threads r1 $thr1_before->$thr1_after, r2 $thr2_before->$thr2_after (10 endless lines, 500 idle conns: $idle_out)"

# --- 5. requests in flight per address -------------------------------------------
out=$(python3 "$PROBE" conncap "$FRONT_PORT" 30)
verdict=1
[[ "$out" == *"held=20 refused_429=10 other=0 codes=rate_limited"* ]] && verdict=0
check "connections per address" "$verdict" "$out (limit 20)"

# --- 6. silent and trickling clients ---------------------------------------------
python3 "$PROBE" silent "$FRONT_PORT" >"$WORK/silent.out" &
SILENT_PID=$!
PIDS+=("$SILENT_PID")
python3 "$PROBE" trickle "$FRONT_PORT" >"$WORK/trickle.out"
wait "$SILENT_PID" || true
silent=$(cat "$WORK/silent.out") trickle=$(cat "$WORK/trickle.out")
in_window() { awk -v t="$1" 'BEGIN { exit !(t != "never" && t >= 8 && t <= 14) }'; }
verdict=1
in_window "$(sed -n 's/closed_after=\([^ ]*\).*/\1/p' <<<"$silent")" && verdict=0
check "silent client dropped" "$verdict" "$silent s (client_header_timeout 10s)"
verdict=1
in_window "$(sed -n 's/closed_after=\([^ ]*\).*/\1/p' <<<"$trickle")" && verdict=0
check "trickling header dropped" "$verdict" "$trickle (client_header_timeout 10s)"

