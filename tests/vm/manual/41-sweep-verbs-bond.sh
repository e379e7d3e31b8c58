#!/bin/bash
# NOT IN CI (tests/vm/manual/): once in four runs the 6.1 guest kernel
# livelocked at the cable cut (soft lockup in the worker's rxe post-send
# syscall, 1-vCPU TCG), taking the whole VM tier down.  See docs/verbs.md.
# Dual-homed RoCE: Soft-RoCE on two active-backup bonds joined by two veth
# "cables" (leg 1 and leg 2), all in the VM's root namespace (rxe on 6.1
# works only there).  A sweep runs over the bonds and leg 1 is cut in the
# middle of its bandwidth phase: the sweep must end within its bound with
# the pair either ok (the bond failed over and RC retransmission carried
# the writes across) or failed with a reason -- never hang.  Then a new
# sweep must succeed over leg 2 (the GID is re-resolved for the new
# connection) with its bytes on leg 2's counters.  Runs inside the VM:
#   tests/vm/run-tests --results tests/out/vm-results.txt tests/vm/manual/41-sweep-verbs-bond.sh
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need
need_cmd jq rdma
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make at the repo root first)"

tmp=$(mktemp -d /tmp/sweep-bond.$$.XXXXXX)
spid=
cleanup() {
	set +e
	[ -z "$spid" ] || { kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; }
	rm -rf "$tmp"
	vm_reset >/dev/null 2>&1
}
trap cleanup EXIT

A=fbnda B=fbndb IPA=192.168.78.1 IPB=192.168.78.2
vm_veth fbl1a fbl1b
vm_veth fbl2a fbl2b
vm_bond "$A" active-backup fbl1a fbl2a
vm_bond "$B" active-backup fbl1b fbl2b
vm_wait_for "$A active leg" 10 grep -qx fbl1a "/sys/class/net/$A/bonding/active_slave"
vm_wait_for "$B active leg" 10 grep -qx fbl1b "/sys/class/net/$B/bonding/active_slave"
run ip addr add "$IPA/24" dev "$A"
run ip addr add "$IPB/24" dev "$B"
# Same routing as vm_rxe_pair: traffic between the two local addresses
# leaves through the bonds instead of lo.
vm_sysctl net.ipv4.conf.all.rp_filter 0
vm_sysctl net.ipv4.conf.default.rp_filter 0
for i in "$A" "$B"; do
	vm_sysctl "net.ipv4.conf.$i.rp_filter" 0
	vm_sysctl "net.ipv4.conf.$i.accept_local" 1
	vm_sysctl "net.ipv4.conf.$i.arp_ignore" 1
done
run ip neigh replace "$IPB" lladdr "$(cat "/sys/class/net/$B/address")" dev "$A" nud permanent
run ip neigh replace "$IPA" lladdr "$(cat "/sys/class/net/$A/address")" dev "$B" nud permanent
t=$((100 + $(ip rule show | grep -c 'iif lo lookup' || true)))
run ip route add "$IPB/32" dev "$A" src "$IPA" table "$t"
run ip rule add pref 100 from "$IPA" to "$IPB" iif lo lookup "$t"
run ip route add "$IPA/32" dev "$B" src "$IPB" table $((t + 1))
run ip rule add pref 100 from "$IPB" to "$IPA" iif lo lookup $((t + 1))
if ip rule show | grep -q '^0:.*lookup local'; then
	run ip rule add pref 1000 lookup local
	run ip rule del pref 0 lookup local
fi
vm_modprobe rdma_rxe
run rdma link add "rxe_$A" type rxe netdev "$A"
run rdma link add "rxe_$B" type rxe netdev "$B"
vm_wait_for "rxe_$A IPv4 GID" 10 vm_gid_index "rxe_$A" 1 "$IPA"
vm_wait_for "rxe_$B IPv4 GID" 10 vm_gid_index "rxe_$B" 1 "$IPB"
printf 'ba %s rdma=rxe_%s\nbb %s rdma=rxe_%s\n' "$IPA" "$A" "$IPB" "$B" >"$tmp/hosts"

tx() { cat "/sys/class/net/$1/statistics/tx_bytes"; }
DUR=${VERBS_BOND_DURATION:-4}
BOUND=${VERBS_BOND_BOUND_S:-120}

# 1. Cut leg 1 in the middle of the a->b bandwidth phase.
l1=$(tx fbl1a)
pretty "sweep in the background; leg 1 is cut once 1 MB crossed it"
timeout "$BOUND" "$FABRICCTL" sweep --hosts "$tmp/hosts" --launcher 'env FAB_NODE={host}' \
	--transport verbs -j --duration "$DUR" --lat-iters 0 --timeout 20 --no-progress \
	>"$tmp/cut.json" 2>"$tmp/cut.err" &
spid=$!
vm_wait_for "1 MB of RDMA writes on leg 1" 60 sh -c "[ \$(( \$(cat /sys/class/net/fbl1a/statistics/tx_bytes) - $l1 )) -gt 1000000 ]"
s0=$(date +%s)
run ip link set fbl1b down
rc=0
wait "$spid" || rc=$?
spid=
cat "$tmp/cut.err" >&2
pretty "sweep ended $(( $(date +%s) - s0 )) s after the cut, rc $rc"
[ "$rc" != 124 ] || fail "the sweep hung: still running ${BOUND}s after it started"
jq . "$tmp/cut.json" >&2 || fail "sweep -j output is not JSON"
assert_eq "bond $A failed over" fbl2a "$(cat "/sys/class/net/$A/bonding/active_slave")"
st=$(jq -r '.pairs[0].status' "$tmp/cut.json")
case "$rc:$st" in
0:ok)
	pretty "the pair survived the cut: $(jq -c '.pairs[0].bw_ab' "$tmp/cut.json")"
	assert_eq "bw_ab measured" true "$(jq '.pairs[0].bw_ab.bytes > 0' "$tmp/cut.json")" ;;
1:failed)
	r=$(jq -r '.pairs[0].reason' "$tmp/cut.json")
	[ -n "$r" ] && [ "$r" != null ] || fail "failed pair without a reason"
	pretty "the pair failed with: $r" ;;
1:slow)
	pretty "the pair was judged slow: $(jq -r '.pairs[0].reason' "$tmp/cut.json")" ;;
*) fail "unexpected outcome: rc $rc, status $st" ;;
esac

# 2. A new sweep over leg 2 only.
l2a=$(tx fbl2a) l2b=$(tx fbl2b) l1=$(tx fbl1a)
rc=0
run timeout "$BOUND" "$FABRICCTL" sweep --hosts "$tmp/hosts" --launcher 'env FAB_NODE={host}' \
	--transport verbs -j --duration 1 --lat-iters 50 --timeout 20 --no-progress \
	>"$tmp/after.json" || rc=$?
jq -c '.pairs[0] | {status, reason, p50: .lat_ns.p50, ab: .bw_ab.bytes, ba: .bw_ba.bytes}' "$tmp/after.json" >&2
assert_eq "sweep after the failover: exit" 0 "$rc"
assert_eq "sweep after the failover: status" ok "$(jq -r '.pairs[0].status' "$tmp/after.json")"
ab=$(jq -r '.pairs[0].bw_ab.bytes' "$tmp/after.json") ba=$(jq -r '.pairs[0].bw_ba.bytes' "$tmp/after.json")
[ $(( $(tx fbl2a) - l2a )) -ge "$ab" ] || fail "leg 2 (a) carried less than the reported $ab bytes"
[ $(( $(tx fbl2b) - l2b )) -ge "$ba" ] || fail "leg 2 (b) carried less than the reported $ba bytes"
[ $(( $(tx fbl1a) - l1 )) -lt 100000 ] || fail "traffic still on the cut leg 1"
pretty "after the failover: a->b $ab bytes, b->a $ba bytes, all on leg 2"
echo "41-sweep-verbs-bond: all checks passed"
