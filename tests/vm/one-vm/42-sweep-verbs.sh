#!/bin/bash
# `fabricctl sweep --transport verbs` between two Soft-RoCE devices on a
# veth pair in the VM's root namespace (rxe on 6.1 works only there; see
# vm_rxe_pair), workers started by a template launcher in the same
# namespace.  Checks the figures against the veths' own byte counters,
# the failure reasons for a wrong device and an address without a GID,
# and the sweep token on both checks (endpoint handshake and the first
# SEND on the data path) by driving two workers by hand with forged
# endpoints.  The RoCE v2 UDP source ports: tcpdump on the veth sees the
# ones the sweep recorded (the kernel's rule without a flow label: one
# port for both QPs) and, with the plan's sport_fwd / sport_rev, the ones
# the flow labels chose (docs/verbs.md "The UDP source port").  Runs
# inside the VM:
#   tests/vm/run-tests --results tests/out/vm-results.txt tests/vm/one-vm/42-sweep-verbs.sh
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need
need_cmd jq rdma tcpdump
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make at the repo root first)"

tmp=$(mktemp -d /tmp/sweep-verbs.$$.XXXXXX)
wpids=()
cleanup() {
	set +e
	exec 7>&- 8<&- 5>&- 6<&- 2>/dev/null
	for p in "${wpids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
	vm_reset >/dev/null 2>&1
}
trap cleanup EXIT

vm_rxe_pair fabva fabvb 192.168.77.1 192.168.77.2
ITERS=${VERBS_TEST_LAT_ITERS:-100}

# cap_start NAME: tcpdump of the first 200 RoCE v2 packets on fabva (both
# ways: fabva sends a -> b, receives b -> a) into $tmp/cap-NAME.txt.
cap_start() {
	tcpdump -i fabva -nn -l -c 200 -s 96 udp dst port 4791 >"$tmp/cap-$1.txt" 2>"$tmp/cap-$1.err" &
	cap_pid=$!
	wpids+=("$cap_pid")
	vm_wait_for "tcpdump on fabva" 10 grep -q "listening on" "$tmp/cap-$1.err"
}
# cap_stop: end the capture (it may have ended at 200 packets).
cap_stop() { kill "$cap_pid" 2>/dev/null || true; wait "$cap_pid" 2>/dev/null || true; }
# cap_ports NAME SRC DST: the distinct UDP source ports of SRC -> DST:4791.
cap_ports() {
	sed -n "s/^.* IP $2\.\([0-9]*\) > $3\.4791: .*$/\1/p" "$tmp/cap-$1.txt" | sort -u |
		tr '\n' ' ' | sed 's/ $//'
}

cat >"$tmp/hosts" <<EOF
# two "hosts" in one namespace, each on its own rxe device
va 192.168.77.1 rdma=$RXE_A:1
vb 192.168.77.2 rdma=$RXE_B
EOF

txa0=$(cat /sys/class/net/fabva/statistics/tx_bytes)
txb0=$(cat /sys/class/net/fabvb/statistics/tx_bytes)
rc=0
cap_start sweep
run "$FABRICCTL" -v sweep --hosts "$tmp/hosts" --launcher 'env FAB_NODE={host}' --transport verbs \
	-j --duration 1 --lat-iters "$ITERS" --msg-size 2 --timeout 30 --no-progress \
	>"$tmp/sweep.json" 2>"$tmp/sweep.err" || rc=$?
cap_stop
cat "$tmp/sweep.err" >&2
jq . "$tmp/sweep.json" >&2 || fail "sweep -j output is not JSON: $(head -c 500 "$tmp/sweep.json")"
txa1=$(cat /sys/class/net/fabva/statistics/tx_bytes)
txb1=$(cat /sys/class/net/fabvb/statistics/tx_bytes)
q() { jq -r "$@" "$tmp/sweep.json"; }
assert_eq "sweep exit status" 0 "$rc"
assert_eq "schema" fabricctl.sweep/2 "$(q .schema)"
assert_eq "transport" verbs "$(q .transport)"
assert_eq "pairs" 1 "$(q '.pairs | length')"
assert_eq "pair status" ok "$(q '.pairs[0].status')"
assert_eq "latency samples" "$ITERS" "$(q '.pairs[0].lat_ns.samples')"
assert_eq "min <= p50 <= p99 <= max" true \
	"$(q '.pairs[0].lat_ns | .min > 0 and .min <= .p50 and .p50 <= .p99 and .p99 <= .max')"
for d in ab ba; do
	assert_eq "bw_$d measured" true "$(q ".pairs[0].bw_$d.bytes > 0 and .pairs[0].bw_$d.avg_mbps > 0")"
	assert_eq "bw_$d intervals" true "$(q ".pairs[0].bw_$d.intervals >= 1")"
	assert_eq "bw_$d avg = bytes/secs" true \
		"$(q ".pairs[0].bw_$d | ((.bytes * 8 / .secs / 1e6) - .avg_mbps) | fabs < 0.01")"
	assert_eq "bw_$d min <= avg" true "$(q ".pairs[0].bw_$d | .min_mbps <= .avg_mbps * 1.0001")"
done
# The writes crossed the veths: each side sent at least what it reported.
ab=$(q '.pairs[0].bw_ab.bytes') ba=$(q '.pairs[0].bw_ba.bytes')
pretty "fabva sent $((txa1 - txa0)) bytes (reported a->b $ab), fabvb sent $((txb1 - txb0)) (b->a $ba)"
[ $((txa1 - txa0)) -ge "$ab" ] || fail "fabva tx grew by $((txa1 - txa0)) < reported $ab"
[ $((txb1 - txb0)) -ge "$ba" ] || fail "fabvb tx grew by $((txb1 - txb0)) < reported $ba"
pretty "verbs: p50 rtt $(q '.pairs[0].lat_ns.p50') ns, a->b $(q '.pairs[0].bw_ab.avg_mbps') Mb/s, b->a $(q '.pairs[0].bw_ba.avg_mbps') Mb/s"

# The UDP source ports the QPs really used (tcpdump) are the recorded
# ones.  No flow label set: rxe_modify_qp() takes rdma_get_udp_sport(0,
# qpn, peer qpn), symmetric, so both QPs use the same port.
sab=$(q '.pairs[0].udp_sport.ab') sba=$(q '.pairs[0].udp_sport.ba')
pretty "recorded udp_sport a->b $sab b->a $sba; captured: $(wc -l <"$tmp/cap-sweep.txt") packets"
assert_eq "udp_sport a->b in 0xc000..0xffff" true "$(q '.pairs[0].udp_sport.ab >= 49152 and .pairs[0].udp_sport.ab <= 65535')"
assert_eq "captured a->b source port" "$sab" "$(cap_ports sweep 192.168.77.1 192.168.77.2)"
assert_eq "captured b->a source port" "$sba" "$(cap_ports sweep 192.168.77.2 192.168.77.1)"
assert_eq "no flow label: one port both ways (rdma_calc_flow_label is symmetric)" "$sab" "$sba"
grep -q "pair va -> vb: RoCE v2 UDP source port va -> vb $sab, vb -> va $sba\$" "$tmp/sweep.err" ||
	fail "sweep -v does not name the pair's UDP source ports"

# A device that does not exist: refused before any pair runs, once, naming
# the node, the device and the devices it has (the first sweep above passed
# the same check with real ones).  An address with no GID on its device:
# the pair fails and the reason names the device and port.
sed "s/rdma=$RXE_B/rdma=rxe_nope/" "$tmp/hosts" >"$tmp/hosts.nodev"
rc=0
run "$FABRICCTL" sweep --hosts "$tmp/hosts.nodev" --launcher 'env FAB_NODE={host}' \
	--transport verbs -j --duration 0.2 --lat-iters 10 --timeout 10 --no-progress \
	>"$tmp/nodev.json" 2>"$tmp/nodev.err" || rc=$?
cat "$tmp/nodev.err" >&2
assert_eq "sweep with a missing device: exit" 2 "$rc"
assert_eq "missing device: no report" "" "$(cat "$tmp/nodev.json")"
grep -q "^fabricctl sweep: --transport verbs: 1 of 2 nodes cannot run it: vb: no RDMA device rxe_nope (it has .*$RXE_B.*)\$" \
	"$tmp/nodev.err" || fail "missing device: not the one error naming vb and rxe_nope"

sed "s/^vb 192.168.77.2/vb 192.168.77.3/" "$tmp/hosts" >"$tmp/hosts.nogid"
rc=0
run "$FABRICCTL" sweep --hosts "$tmp/hosts.nogid" --launcher 'env FAB_NODE={host}' \
	--transport verbs -j --duration 0.2 --lat-iters 10 --timeout 10 --no-progress \
	>"$tmp/nogid.json" 2>/dev/null || rc=$?
assert_eq "sweep with an address not on the device: exit" 1 "$rc"
r=$(jq -r '.pairs[0].reason' "$tmp/nogid.json")
case $r in
*"verbs: $RXE_B: port 1: no RoCE v2 gid for 192.168.77.3"*) printf '  ok: reason %s\n' "$r" >&2 ;;
*) fail "address without a GID: unexpected reason '$r'" ;;
esac

# ---- the token, with two workers driven by hand ----
# worker_start N: a worker on fds (7 in, 8 out) for N=a or (5, 6) for N=b.
worker_start() {
	mkfifo "$tmp/$1.in" "$tmp/$1.out"
	"$FABRICCTL" worker -v <"$tmp/$1.in" >"$tmp/$1.out" 2>"$tmp/$1.err" &
	wpids+=($!)
	if [ "$1" = a ]; then exec 7>"$tmp/$1.in" 8<"$tmp/$1.out"
	else exec 5>"$tmp/$1.in" 6<"$tmp/$1.out"; fi
}
# send N JSON, recv N: one line (30 s at most)
send() { pretty "-> $1: $2"; if [ "$1" = a ]; then echo "$2" >&7; else echo "$2" >&5; fi; }
recv() {
	local l
	if [ "$1" = a ]; then read -r -t 30 l <&8 || fail "no answer from worker $1"
	else read -r -t 30 l <&6 || fail "no answer from worker $1"; fi
	pretty "<- $1: $l"
	REPLY=$l
}
T1=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
T2=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
plan='{"lat_iters":10,"msg_bytes":2,"duration_ms":0,"interval_ms":100,"streams":1,"bw_fwd":false,"bw_rev":false,"timeout_ms":30000}'
req() { # req OP ID ADDR DEV TOKEN [PEER]
	jq -nc --arg op "$1" --argjson id "$2" --arg addr "$3" --arg dev "$4" --arg tok "$5" \
		--argjson plan "$plan" --argjson peer "${6:-null}" \
		'{v:1, id:$id, op:$op, transport:"verbs", addr:$addr, dev:$dev, dev_port:1,
		  token:$tok, plan:$plan} + (if $peer == null then {} else {peer:$peer} end)'
}
worker_start a
worker_start b
send a '{"v":1,"id":1,"op":"hello"}'; recv a
send b '{"v":1,"id":1,"op":"hello"}'; recv b

# 1. Handshake: the client refuses an endpoint with another token.
send b "$(req listen 2 192.168.77.2 "$RXE_B" "$T1")"; recv b
eb=$(jq -c .endpoint <<<"$REPLY")
assert_eq "server endpoint carries the token" "$T1" "$(jq -r .token <<<"$eb")"
assert_eq "server endpoint gid is its address" "::ffff:192.168.77.2" "$(jq -r .gid <<<"$eb")"
assert_eq "server endpoint gid index (sysfs, RoCE v2)" "$GID_B" "$(jq -r .gid_index <<<"$eb")"
send a "$(req connect 2 192.168.77.1 "$RXE_A" "$T2" "$eb")"; recv a
assert_eq "client refuses the endpoint: ok" false "$(jq -r .ok <<<"$REPLY")"
assert_eq "client refuses the endpoint: error" \
	"verbs: $RXE_A: port 1: peer endpoint does not carry the sweep's token" "$(jq -r .error <<<"$REPLY")"
send b '{"v":1,"id":2,"op":"abort"}'; recv b
assert_eq "aborted server session" "false aborted by the controller" "$(jq -r '"\(.ok) \(.error)"' <<<"$REPLY")"

# 2. Data path: endpoints forged so that both handshakes pass; the
#    server must still refuse the client's HELLO, which carries T2.
send b "$(req listen 3 192.168.77.2 "$RXE_B" "$T1")"; recv b
eb=$(jq -c --arg t "$T2" '.endpoint | .token = $t' <<<"$REPLY")
send a "$(req connect 3 192.168.77.1 "$RXE_A" "$T2" "$eb")"; recv a
assert_eq "client ready" ready "$(jq -r .event <<<"$REPLY")"
ea=$(jq -c --arg t "$T1" '.endpoint | .token = $t' <<<"$REPLY")
send b "$(jq -nc --argjson ep "$ea" '{v:1, id:3, op:"peer", endpoint:$ep}')"; recv b
assert_eq "server armed" armed "$(jq -r .event <<<"$REPLY")"
send a '{"v":1,"id":3,"op":"go"}'
recv b
assert_eq "server refuses the data path: ok" false "$(jq -r .ok <<<"$REPLY")"
assert_eq "server refuses the data path: error" \
	"verbs: $RXE_B: port 1: peer did not present the sweep's token" "$(jq -r .error <<<"$REPLY")"
# The controller then aborts the client, which is waiting for READY.
send a '{"v":1,"id":3,"op":"abort"}'; recv a
assert_eq "client aborted while waiting" "false aborted by the controller" \
	"$(jq -r '"\(.ok) \(.error)"' <<<"$REPLY")"

# 3. The same two workers with matching tokens: the pair works.  The
#    plan steers both QPs' UDP source ports through the GRH flow label
#    (sport_fwd: the client's QP, a -> b; sport_rev: the server's); rxe
#    honours it (rxe_modify_qp()), and the packets show it.
SPF=50000 SPR=60001
plan=$(jq -c --argjson f "$SPF" --argjson r "$SPR" '. + {sport_fwd: $f, sport_rev: $r}' <<<"$plan")
cap_start steer
send b "$(req listen 4 192.168.77.2 "$RXE_B" "$T1")"; recv b
eb=$(jq -c .endpoint <<<"$REPLY")
send a "$(req connect 4 192.168.77.1 "$RXE_A" "$T1" "$eb")"; recv a
ea=$(jq -c .endpoint <<<"$REPLY")
send b "$(jq -nc --argjson ep "$ea" '{v:1, id:4, op:"peer", endpoint:$ep}')"; recv b
assert_eq "server armed" armed "$(jq -r .event <<<"$REPLY")"
send a '{"v":1,"id":4,"op":"go"}'
recv a
assert_eq "matching tokens: client ok" true "$(jq -r .ok <<<"$REPLY")"
assert_eq "matching tokens: 10 samples" 10 "$(jq -r .result.lat_ns.samples <<<"$REPLY")"
assert_eq "steered: recorded udp_sport" "$SPF $SPR" "$(jq -r '.result.udp_sport | "\(.fwd) \(.rev)"' <<<"$REPLY")"
recv b
assert_eq "matching tokens: server ok" true "$(jq -r .ok <<<"$REPLY")"
cap_stop
pretty "steered capture: $(wc -l <"$tmp/cap-steer.txt") packets"
assert_eq "steered: captured a->b source port (flow label $((SPF & 0x3fff)))" "$SPF" \
	"$(cap_ports steer 192.168.77.1 192.168.77.2)"
assert_eq "steered: captured b->a source port (flow label $((SPR & 0x3fff)))" "$SPR" \
	"$(cap_ports steer 192.168.77.2 192.168.77.1)"
send a '{"v":1,"id":9,"op":"bye"}'; recv a
send b '{"v":1,"id":9,"op":"bye"}'; recv b
echo "42-sweep-verbs: all checks passed"
