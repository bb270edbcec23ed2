# deploy/cluster-hostile.sh: sourced by deploy/cluster-test.sh (section 6b);
# uses its FRONT_PORT, KEY, PROBE, R1_PID, R2_PID, `check` and `fewest`.
# Malformed framing and pipelining clients that never read, sent
# through the front (docs/http-layer.md): the front answers each in the API's
# JSON error shape or refuses it, and the replicas' threads and descriptors
# stay flat.
# Idle upstream keep-alive connections close after 5 s (keepalive_timeout):
# both counts are taken once they have. Each case is sent 5 times, so a leak
# of one thread or two descriptors per case would show past the slack of 2.
sleep 6
thr1_before=$(fewest threads "$R1_PID") fd1_before=$(fewest fds "$R1_PID")
thr2_before=$(fewest threads "$R2_PID") fd2_before=$(fewest fds "$R2_PID")
out=$(python3 "$PROBE" hostile "$FRONT_PORT" "$KEY")
verdict=1
[[ "$out" == all=ok* ]] && verdict=0
check "framing defects refused" "$verdict" "$out"
out=$(python3 "$PROBE" pipeline "$FRONT_PORT")
slowest=$(sed -n 's/slowest=\([0-9.]*\).*/\1/p' <<<"$out")
verdict=1
[[ "$out" == *"statuses=200" ]] && awk -v t="$slowest" 'BEGIN { exit !(t < 2) }' && verdict=0
check "pipelined non-readers" "$verdict" "4 clients x 20 pipelined /v1/openapi.json, never read; normal GETs meanwhile: $out s"
sleep 8
thr1_after=$(fewest threads "$R1_PID") fd1_after=$(fewest fds "$R1_PID")
thr2_after=$(fewest threads "$R2_PID") fd2_after=$(fewest fds "$R2_PID")
verdict=1
[[ "$thr1_after" -le $((thr1_before + 2)) && "$thr2_after" -le $((thr2_before + 2)) &&
    "$fd1_after" -le $((fd1_before + 2)) && "$fd2_after" -le $((fd2_before + 2)) ]] && verdict=0
check "replicas flat after hostile" "$verdict" "threads r1 $thr1_before->$thr1_after, r2 $thr2_before->$thr2_after; fds r1 $fd1_before->$fd1_after, r2 $fd2_before->$fd2_after"

