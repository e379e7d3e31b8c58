#!/bin/bash
# Dual-homed legs (issue 25 item 3; docs/sweep.md "Dual-homed legs"):
# fabricctl sweep between two hosts whose data-path interfaces are bonds
# over two switches finds, by trial flows and the members' tx_bytes, a
# source port per member, and measures one flow per leg, both directions.
# Inside the VM (the kernel's bonding driver), the lab of
# tests/vm/legs-lab.sh: hosts ha and hb, each a balance-xor layer3+4 bond
# of two members on two bridges (switches s1, s2), every member shaped to
# 20 Mbit/s.
#  1. No fault: the sweep exits 0; pairs[0].legs has both directions, each
#     with both members found (a port each), measured and ok; every
#     member's own tx_bytes (read here, from sysfs) grew by at least its
#     leg flow's bytes: every leg carried a flow.
#  2. a2 cut to 4 Mbit/s and b2's cable cut (its switch port down, the
#     bond drops it): exit 1, ha's leg a2 slow and named ("slow leg: ha
#     a2: ..."), hb's leg b2 dead ("dead leg: hb b2: member link down:
#     ..."; no trial lands on it, and none is spent looking), a1 and b1 ok.
# The lab once ran these trials with iperf3 (tests/vm/manual, before the
# sweep did); the unit tests' recorded counters (tests/unit/test_bond_legs.c)
# come from that log.  Runs inside the VM (tests/vm/run-tests).
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/vm/legs-lab.sh"
vm_need
need_cmd ip jq tc
need_fabricctl
tmpdir_with_cleanup legs
HA='' HB='' S1='' S2=''
cleanup_hook() {
	local t0=$SECONDS
	legs_lab_down
	echo "lab down in $((SECONDS - t0)) s (at $SECONDS s)" >&2
}
legs_lab_up
printf '%s 10.25.0.1\n%s 10.25.0.2\n' "$HA" "$HB" >"$TMP/hosts"
echo "lab up in $SECONDS s" >&2

# sweep: JSON in $TMP/out, -v on stderr, exit status in $rc; each member's
# tx_bytes growth over it in T[member].
declare -A T
sweep() {
	local m t0=$SECONDS
	declare -A B
	for m in "$HA:a1" "$HA:a2" "$HB:b1" "$HB:b2"; do B[${m#*:}]=$(tx "${m%%:*}" "${m#*:}"); done
	fab -j -v sweep --hosts "$TMP/hosts" --launcher netns --transport tcp --duration 0.5 \
		--lat-iters 100 --slow-pct 50
	for m in "$HA:a1" "$HA:a2" "$HB:b1" "$HB:b2"; do
		T[${m#*:}]=$(($(tx "${m%%:*}" "${m#*:}") - B[${m#*:}]))
	done
	echo "sweep took $((SECONDS - t0)) s; members grew a1 +${T[a1]} a2 +${T[a2]} b1 +${T[b1]} b2 +${T[b2]}" >&2
}
# legs: one jq (each process costs under TCG) reads the document into
# L[DIR.MEMBER.FIELD] (verdict sport bytes tx_bytes bw_mbps finding) and
# L[head] (legs.bad, the findings' count, ab's sender, ba's sender, ab's policy).
declare -A L
legs() {
	local k v out
	L=()
	out=$(jq -r '
		"head\t\(.legs.bad) \(.legs.findings | length) \(.pairs[0].legs.ab.node)" +
		" \(.pairs[0].legs.ba.node) \(.pairs[0].legs.ab.mode)/\(.pairs[0].legs.ab.xmit_hash_policy)",
		(.pairs[0].legs | to_entries[] | select(.value != null) | .key as $d | .value.legs[] | .member as $m |
		 to_entries[] | "\($d).\($m).\(.key)\t\(.value)")' "$TMP/out")
	# (a here-string: the VM has no /dev/fd for <(...))
	while IFS=$'\t' read -r k v; do L[$k]=$v; done <<<"$out"
	echo "legs: ${L[head]}" >&2
}

# --- 1. no fault: every leg found, carried a flow, ok ---------------------------
sweep
[ "$rc" = 0 ] || fail "no fault: sweep exit $rc (want 0)"
legs
assert_eq "no fault: legs bad, findings, senders, policy" \
	"0 0 $HA $HB balance-xor/layer3+4" "${L[head]}"
for dm in ab.a1 ab.a2 ba.b1 ba.b2; do
	m=${dm#*.}
	assert_eq "no fault: leg $dm" ok "${L[$dm.verdict]}"
	[ "${L[$dm.sport]}" != null ] || fail "no fault: leg $dm has no port"
	bytes=${L[$dm.bytes]} own=${L[$dm.tx_bytes]}
	[ "$bytes" -gt 100000 ] || fail "no fault: leg $dm: $bytes bytes received"
	# the sweep's own reading, and sysfs read here: the member carried its flow
	[ $((own * 100)) -ge $((bytes * 90)) ] || fail "no fault: leg $dm: tx +$own of $bytes"
	[ "${T[$m]}" -ge "$bytes" ] || fail "no fault: member $m grew +${T[$m]}, under its leg's $bytes"
	echo "no fault: leg $dm port ${L[$dm.sport]} ${L[$dm.bw_mbps]} Mbit/s ok" >&2
done
[ "${L[ab.a1.sport]}" != "${L[ab.a2.sport]}" ] || fail "no fault: a1 and a2 on one port"
grep -q "legs $HA -> $HB bond0: " "$TMP/err" || fail "no fault: no -v line for ha's legs"

# --- 2. a2 slowed, b2's cable cut: both legs named, exit 1 ------------------------
run ip netns exec "$HA" tc qdisc replace dev a2 root tbf rate 4mbit burst 16kb latency 100ms
run ip -n "$S2" link set b2s down
vm_wait_for "hb's bond sees b2 down" 10 sh -c "ip -n $HB -d link show b2 | grep -q 'mii_status DOWN'"
sweep
[ "$rc" = 1 ] || fail "faults: sweep exit $rc (want 1)"
legs
assert_eq "faults: leg ab.a2" slow "${L[ab.a2.verdict]}"
assert_eq "faults: leg ba.b2" dead "${L[ba.b2.verdict]}"
for dm in ab.a1 ba.b1; do
	assert_eq "faults: leg $dm" ok "${L[$dm.verdict]}"
done
echo "faults: ${L[ab.a2.finding]}; ${L[ba.b2.finding]}" >&2
case ${L[ab.a2.finding]} in
"slow leg: $HA a2: "*) ;;
*) fail "faults: a2's finding '${L[ab.a2.finding]}'" ;;
esac
assert_eq "faults: b2's finding" "dead leg: $HB b2: member link down: no trial flow landed on it" \
	"${L[ba.b2.finding]}"
assert_eq "faults: legs bad, findings" "2 2" "$(echo "${L[head]}" | cut -d' ' -f1-2)"
echo "PASS: every leg found and carried a flow; the slowed leg and the cut one named (in $SECONDS s)" >&2
