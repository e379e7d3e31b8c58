#!/bin/bash
# Soft-RoCE counters by name through the worker's "counters" op (issue 11):
# two rxe devices on a veth pair (vm_rxe_pair), the op asked for va's
# address finds fabva, its netdev statistics, and rxe_fabva's port 1
# hw_counters under rxe's own names (sent_pkts, rcvd_pkts,
# completer_retry_err, ...; nothing invented: no mlx5 names).  Then a
# verbs pair runs and sent_pkts/rcvd_pkts move between the two reads.
# With RXE_CUT=1 the cable is also cut under it (fabvb down for 2 s) and
# the requester's retransmission counters must move: off by default, since
# on one CI run Debian's 6.1 rxe soft-locked the VM's CPU (fabricctl stuck
# in the kernel for 480 s) when the link went down under traffic (the
# rules that judge them: tests/unit/test_nic_counters.c).
#   tests/vm/run-tests --results tests/out/vm-results.txt tests/vm/one-vm/44-counters-rxe.sh
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need
need_cmd jq rdma
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make at the repo root first)"

tmp=$(mktemp -d /tmp/counters-rxe.$$.XXXXXX)
spid=
cleanup() {
	set +e
	[ -z "$spid" ] || { kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; }
	rm -rf "$tmp"
	vm_reset >/dev/null 2>&1
}
trap cleanup EXIT

vm_rxe_pair fabva fabvb 192.168.77.1 192.168.77.2

# counters OUT: the op for va's address, one JSON answer in OUT.
counters() {
	echo '{"v":1,"id":1,"op":"counters","addr":"192.168.77.1"}' | "$FABRICCTL" worker >"$1"
	jq -e '.ok' "$1" >/dev/null || fail "counters op failed: $(cat "$1")"
}
counters "$tmp/c0"
q() { jq -r "$2" "$1"; }
assert_eq "interface of the address" fabva "$(q "$tmp/c0" .result.ifname)"
assert_eq "rxe port on it" "$RXE_A 1" "$(q "$tmp/c0" '.result.rdma[0] | "\(.dev) \(.port)"')"
assert_eq "only that one (not $RXE_B)" 1 "$(q "$tmp/c0" '.result.rdma | length')"
for n in sent_pkts rcvd_pkts completer_retry_err retry_exceeded_err rcvd_seq_err out_of_seq_request; do
	assert_eq "rxe hw_counters has $n" true "$(q "$tmp/c0" ".result.rdma[0].hw_counters | has(\"$n\")")"
done
assert_eq "no mlx5 names invented" false "$(q "$tmp/c0" '.result.rdma[0].hw_counters | has("np_cnp_sent")')"
assert_eq "netdev statistics" true "$(q "$tmp/c0" '.result.stats | has("tx_packets")')"
jq -c '.result.rdma[0].hw_counters' "$tmp/c0" >&2

cat >"$tmp/hosts" <<EOF
va 192.168.77.1 rdma=$RXE_A:1
vb 192.168.77.2 rdma=$RXE_B
EOF
# A pair long enough to cut its cable in the middle.
"$FABRICCTL" sweep --hosts "$tmp/hosts" --launcher 'env FAB_NODE={host}' --transport verbs \
	-j --duration 4 --lat-iters 10 --timeout 30 --no-progress --no-retest \
	>"$tmp/sweep.json" 2>"$tmp/sweep.err" &
spid=$!
if [ "${RXE_CUT:-0}" = 1 ]; then
	sleep 2
	run ip link set fabvb down
	sleep 2
	run ip link set fabvb up
fi
wait "$spid" || true
spid=
tail -n 5 "$tmp/sweep.err" >&2
counters "$tmp/c1"
jq -c '.result.rdma[0].hw_counters' "$tmp/c1" >&2
d() { echo $(( $(q "$tmp/c1" ".result.rdma[0].hw_counters.$1") - $(q "$tmp/c0" ".result.rdma[0].hw_counters.$1") )); }
retry=$(( $(d completer_retry_err) + $(d retry_exceeded_err) ))
pretty "RXE_CUT=${RXE_CUT:-0}: completer_retry_err +$(d completer_retry_err), retry_exceeded_err +$(d retry_exceeded_err), sent_pkts +$(d sent_pkts)"
[ "$(d sent_pkts)" -gt 0 ] || fail "sent_pkts did not move: no RDMA traffic"
[ "$(d rcvd_pkts)" -gt 0 ] || fail "rcvd_pkts did not move: no RDMA traffic"
if [ "${RXE_CUT:-0}" = 1 ]; then
	[ "$retry" -gt 0 ] || fail "no retransmission counted with the cable cut"
fi
echo "counters-rxe: ok" >&2
