#!/bin/bash
# Dual-homed legs over RoCE v2 (issue 25 item 3; docs/sweep.md
# "Dual-homed legs", docs/verbs.md "Bonds"): `fabricctl sweep --transport
# verbs` between two Soft-RoCE hosts whose data-path interfaces are
# balance-xor layer3+4 bonds finds, by trial flows (RDMA writes, each QP
# with its own GRH flow label, so its own UDP source port) and the members'
# tx_bytes, a port per member, and measures one verbs flow per leg, both
# directions.  rxe on 6.1 works only in the VM's root namespace, so both
# bonds live there (as tests/vm/manual/41-sweep-verbs-bond.sh), joined by
# two veth "cables", member 1 to member 1 and member 2 to member 2, and
# policy routing sends each host's packets to the other out of its own
# bond (vm_rxe_pair's trick).  Every member is shaped to 20 Mbit/s (tbf,
# a queue long enough that nothing is dropped: rxe would wait out its
# 67 ms retransmission timer).
#  1. No fault: exit 0; both directions, both members found (a port each,
#     in 0xc000..0xffff), measured and ok; each leg's member's own
#     tx_bytes grew by at least 90 % of its flow's bytes (the sweep's
#     reading), and the members read here from sysfs grew by at least the
#     legs' bytes: every leg carried its flow.
#  2. va's member 2 cut to 4 Mbit/s (shaped, not unplugged: a cable cut
#     under rxe traffic once livelocked this guest, docs/verbs.md): exit 1,
#     that leg named slow ("slow leg: va fvl2a: ..."), the others ok.
# Runs inside the VM:
#   tests/vm/run-tests --results /tmp/r.txt tests/vm/one-vm-b/72-verbs-legs.sh
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need
need_cmd ip jq tc rdma
need_fabricctl
tmpdir_with_cleanup verbs-legs
cleanup_hook() {
	vm_reset >/dev/null 2>&1
}

A=fvla B=fvlb IPA=192.168.79.1 IPB=192.168.79.2
grep -q '^bonding ' /proc/modules || vm_modprobe bonding max_bonds=0
vm_modprobe veth
modprobe sch_tbf 2>/dev/null || true
# The cables and bonds, IPv6 off on every one (router solicitations and
# DAD on the members would be counted against the trials).
{
	echo "link add fvl1a type veth peer name fvl1b"
	echo "link add fvl2a type veth peer name fvl2b"
	for b in "$A" "$B"; do
		echo "link add $b type bond mode balance-xor xmit_hash_policy layer3+4 miimon 100"
	done
} >"$TMP/batch"
run ip -batch "$TMP/batch"
for i in fvl1a fvl2a fvl1b fvl2b "$A" "$B"; do
	echo 1 >"/proc/sys/net/ipv6/conf/$i/disable_ipv6"
done
cat >"$TMP/batch" <<EOF
link set fvl1a mtu 9000
link set fvl2a mtu 9000
link set fvl1b mtu 9000
link set fvl2b mtu 9000
link set fvl1a master $A
link set fvl2a master $A
link set fvl1b master $B
link set fvl2b master $B
addr add $IPA/24 dev $A
addr add $IPB/24 dev $B
link set $A mtu 9000
link set $B mtu 9000
link set $A up
link set $B up
EOF
run ip -batch "$TMP/batch"
for i in fvl1a fvl2a fvl1b fvl2b; do
	echo "qdisc add dev $i root tbf rate 20mbit burst 16kb limit 1mb"
done >"$TMP/tc"
run tc -batch "$TMP/tc"
# Each end's packets to the other leave through its own bond, not lo
# (vm_rxe_pair's routing, in one sysctl and one ip: each process costs
# under TCG): rules at pref 100 for locally sent packets only, the local
# table moved below them; accept_local and rp_filter 0 let each end take
# packets from a local address; static neighbours, no ARP.
run sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
	"net.ipv4.conf.$A.rp_filter=0" "net.ipv4.conf.$A.accept_local=1" "net.ipv4.conf.$A.arp_ignore=1" \
	"net.ipv4.conf.$B.rp_filter=0" "net.ipv4.conf.$B.accept_local=1" "net.ipv4.conf.$B.arp_ignore=1"
t=$((100 + $(ip rule show | grep -c 'iif lo lookup' || true)))
cat >"$TMP/batch" <<EOF
neigh replace $IPB lladdr $(cat "/sys/class/net/$B/address") dev $A nud permanent
neigh replace $IPA lladdr $(cat "/sys/class/net/$A/address") dev $B nud permanent
route add $IPB/32 dev $A src $IPA table $t
rule add pref 100 from $IPA to $IPB iif lo lookup $t
route add $IPA/32 dev $B src $IPB table $((t + 1))
rule add pref 100 from $IPB to $IPA iif lo lookup $((t + 1))
EOF
if ip rule show | grep -q '^0:.*lookup local'; then
	printf 'rule add pref 1000 lookup local\nrule del pref 0 lookup local\n' >>"$TMP/batch"
fi
run ip -batch "$TMP/batch"
vm_modprobe rdma_rxe
run rdma link add "rxe_$A" type rxe netdev "$A"
run rdma link add "rxe_$B" type rxe netdev "$B"
vm_wait_for "rxe_$A IPv4 GID" 10 vm_gid_index "rxe_$A" 1 "$IPA"
vm_wait_for "rxe_$B IPv4 GID" 10 vm_gid_index "rxe_$B" 1 "$IPB"
printf 'va %s rdma=rxe_%s\nvb %s rdma=rxe_%s\n' "$IPA" "$A" "$IPB" "$B" >"$TMP/hosts"
echo "lab up in $SECONDS s" >&2

tx() { cat "/sys/class/net/$1/statistics/tx_bytes"; }
MEMBERS="fvl1a fvl2a fvl1b fvl2b"
# sweep: JSON in $TMP/out, -v on stderr, exit status in $rc; each member's
# tx_bytes growth over it in T[member].  A window of 16 writes of 4 KiB,
# one packet each (MTU 9000: rxe's path MTU 4096): the default 128 x 64
# KiB would take 3 s to drain at 20 Mbit/s (ten trials' worth).  With
# MTU 1500 (1024-byte packets) the same 64 KiB window is 64 packets, rxe's
# in-flight limit per QP (RXE_INFLIGHT_SKBS_PER_QP_HIGH), and behind a
# 4 Mbit/s shaper the slowed leg's flows stalled after their first window
# (no figure: dead, not slow); a window of 8 writes (32 KiB) ran, but
# bound by the round trip under TCG (6.5 to 13 Mbit/s), not by the shaper.
declare -A T
sweep() {
	local m t0=$SECONDS
	declare -A B0
	for m in $MEMBERS; do B0[$m]=$(tx "$m"); done
	fab -j -v sweep --hosts "$TMP/hosts" --launcher 'env FAB_NODE={host}' --transport verbs \
		--duration 0.5 --lat-iters 20 --slow-pct 50 --timeout 20 --no-progress \
		--verbs-bw-bytes 4096 --verbs-tx-depth 16 --verbs-cq-mod 4
	for m in $MEMBERS; do T[$m]=$(($(tx "$m") - B0[$m])); done
	echo "sweep took $((SECONDS - t0)) s; members grew fvl1a +${T[fvl1a]} fvl2a +${T[fvl2a]}" \
		"fvl1b +${T[fvl1b]} fvl2b +${T[fvl2b]}" >&2
}
# legs: one jq reads the document into L[DIR.MEMBER.FIELD] (verdict sport
# bytes tx_bytes bw_mbps finding) and L[head] (legs.bad, the findings'
# count, ab's sender, ba's sender, ab's policy, ab's dport).
declare -A L
legs() {
	vm_legs_read L '"\(.legs.bad) \(.legs.findings | length) \(.pairs[0].legs.ab.node)" +
		" \(.pairs[0].legs.ba.node) \(.pairs[0].legs.ab.mode)/\(.pairs[0].legs.ab.xmit_hash_policy)" +
		" \(.pairs[0].legs.ab.dport)"'
}

# --- 1. no fault: every leg found, carried its flow, ok -------------------------
sweep
[ "$rc" = 0 ] || fail "no fault: sweep exit $rc (want 0)"
legs
assert_eq "no fault: legs bad, findings, senders, policy, dport" \
	"0 0 va vb balance-xor/layer3+4 4791" "${L[head]}"
for dm in ab.fvl1a ab.fvl2a ba.fvl1b ba.fvl2b; do
	m=${dm#*.}
	assert_eq "no fault: leg $dm" ok "${L[$dm.verdict]}"
	p=${L[$dm.sport]}
	if [ "$p" = null ] || [ "$p" -lt 49152 ] || [ "$p" -gt 65535 ]; then
		fail "no fault: leg $dm: port $p (want one in 0xc000..0xffff)"
	fi
	bytes=${L[$dm.bytes]} own=${L[$dm.tx_bytes]}
	[ "$bytes" -gt 100000 ] || fail "no fault: leg $dm: $bytes bytes received"
	[ $((own * 100)) -ge $((bytes * 90)) ] || fail "no fault: leg $dm: tx +$own of $bytes"
	[ "${T[$m]}" -ge "$bytes" ] || fail "no fault: member $m grew +${T[$m]}, under its leg's $bytes"
	echo "no fault: leg $dm port $p ${L[$dm.bw_mbps]} Mbit/s, $bytes bytes, member +$own ok" >&2
done
[ "${L[ab.fvl1a.sport]}" != "${L[ab.fvl2a.sport]}" ] || fail "no fault: fvl1a and fvl2a on one port"
grep -q "legs va -> vb $A: " "$TMP/err" || fail "no fault: no -v line for va's legs"

# --- 2. va's member 2 slowed: that leg named, exit 1 ---------------------------------
run tc qdisc replace dev fvl2a root tbf rate 4mbit burst 16kb limit 1mb
sweep
[ "$rc" = 1 ] || fail "slow leg: sweep exit $rc (want 1)"
legs
assert_eq "slow leg: leg ab.fvl2a" slow "${L[ab.fvl2a.verdict]}"
for dm in ab.fvl1a ba.fvl1b ba.fvl2b; do
	assert_eq "slow leg: leg $dm" ok "${L[$dm.verdict]}"
done
echo "slow leg: ${L[ab.fvl2a.finding]}" >&2
case ${L[ab.fvl2a.finding]} in
"slow leg: va fvl2a: "*) ;;
*) fail "slow leg: fvl2a's finding '${L[ab.fvl2a.finding]}'" ;;
esac
assert_eq "slow leg: legs bad, findings" "1 1" "$(echo "${L[head]}" | cut -d' ' -f1-2)"
echo "PASS: every RoCE leg found and carried its flow; the slowed leg named (in $SECONDS s)" >&2
