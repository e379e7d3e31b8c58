#!/bin/bash
# NOT IN CI (tests/vm/manual/): the trials and per-leg flows below are run
# by this script with iperf3, not by fabricctl's sweep (issue 25: the sweep
# does not run them yet); only step 1 runs fabricctl.  It is the lab the
# sweep's legs will be tested on, and the source of test_bond_legs.c's
# recorded counters.  Run: tests/vm/manual/70-bond-legs.sh (boots its VM).
# Dual-homed legs (issue 25 item 3): the lab, and the leg-finding rule
# (src/model/bond_legs.c) checked against the kernel's bonding driver.
# Run on the host: it boots its own VM (tests/vm/run) and re-runs itself
# inside it.  In the VM, four network namespaces:
#
#     ha: bond0 (balance-xor, layer3+4) = a1 + a2      10.25.0.1
#     hb: bond0 (balance-xor, layer3+4) = b1 + b2      10.25.0.2
#     s1: bridge, ports a1s b1s isl1   (the leg-1 switch)
#     s2: bridge, ports a2s b2s isl2   (the leg-2 switch)
#     isl1 <-> isl2 joins the switches, so either leg reaches the other host.
#
# What it shows:
#  1. fabricctl sweep between ha and hb (launcher netns, one flow, as
#     today): exactly one of ha's members carries it (its tx_bytes grew by
#     the flow, the other's by noise): a sweep measures one leg only.
#  2. Trial flows from distinct source ports (iperf3 --cport, 256 KiB each),
#     one at a time, ha's members' tx_bytes read before and after each,
#     judged by the rule of bond_legs_trial_member() (written again here in
#     shell: fabricctl does not run the trials yet): a member carried a
#     trial when its counter grew by >= 90 % of the bytes the receiver got
#     and the other's by < 10 %.  Within 20 trials three ports per member
#     are found: both legs get a flow (layer3+4 is deterministic: the same
#     ports land on the same members every run).  Every delta is logged
#     (the unit test's recorded counters, tests/unit/test_bond_legs.c,
#     come from this log).
#  3. One flow per leg, one after another (so that each leg's figure is
#     its own, not a share of the host's CPU under TCG), on each member's
#     second port; when a leg looks slow, both again on their third and
#     judged on that (the sweep's retest).  Each of ha's legs is shaped to
#     20 Mbit/s; ok is >= 80 % of the faster leg, by the receiver's rate
#     over 2 s after 1 s of slow start: both legs ok.
#  4. a2's shaper cut to 4 Mbit/s: two more ports per member found the
#     same way, the legs measured again (and retested): "slow leg: ha a2
#     (switch s2 port a2s): 3 of 18 Mbit/s" (the reference is the faster
#     leg), a1 ok.
#
# Left for the fabricctl code (see the report of the h-legs25 session):
# the trials and per-leg flows run by the sweep's own workers
# (spec.sport_fwd), legs in the sweep's JSON/text, the LLDP neighbour's
# port; this script is the lab they will be tested on.
set -eu
. "$(dirname "$0")/../../lib/common.sh"

if [ "${FABVM:-}" != 1 ]; then
	need_cmd qemu-system-x86_64 iperf3
	need_fabricctl
	exec "$TOP/tests/vm/run" --smp 2 --mem 1024 --timeout 240 -- "$(realpath "$0")"
fi

. "$TOP/tests/vm/lib.sh"
vm_need
need_cmd jq iperf3 tc
need_fabricctl
grep -q '^bonding ' /proc/modules || vm_modprobe bonding max_bonds=0
vm_modprobe veth
modprobe sch_tbf 2>/dev/null || true
tmpdir_with_cleanup legs

P=lg$$
HA=$P-ha HB=$P-hb S1=$P-s1 S2=$P-s2
IPERF_PID=
cleanup_hook() {
	[ -z "$IPERF_PID" ] || kill "$IPERF_PID" 2>/dev/null || true
	for n in "$HA" "$HB" "$S1" "$S2"; do ip netns del "$n" 2>/dev/null || true; done
}

for n in "$HA" "$HB" "$S1" "$S2"; do
	run ip netns add "$n"
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$n" link set lo up
done
# wire NS1 IF1 NS2 IF2: a veth pair between two namespaces.
wire() {
	run ip link add "$2" netns "$1" type veth peer name "$4" netns "$3"
}
wire "$HA" a1 "$S1" a1s
wire "$HA" a2 "$S2" a2s
wire "$HB" b1 "$S1" b1s
wire "$HB" b2 "$S2" b2s
wire "$S1" isl1 "$S2" isl2
for s in "$S1:a1s b1s isl1" "$S2:a2s b2s isl2"; do
	ns=${s%%:*}
	run ip -n "$ns" link add br0 type bridge
	for p in ${s#*:}; do
		run ip -n "$ns" link set "$p" master br0
		run ip -n "$ns" link set "$p" up
	done
	run ip -n "$ns" link set br0 up
done
# bond NS ADDR M1 M2
bond() {
	run ip -n "$1" link add bond0 type bond mode balance-xor xmit_hash_policy layer3+4 miimon 100
	run ip -n "$1" link set "$3" master bond0
	run ip -n "$1" link set "$4" master bond0
	run ip -n "$1" addr add "$2/24" dev bond0
	run ip -n "$1" link set bond0 up
}
bond "$HA" 10.25.0.1 a1 a2
bond "$HB" 10.25.0.2 b1 b2
# Each of ha's legs is a 20 Mbit/s link (tbf): under TCG on a busy host a
# bare veth's rate swings 2x from one second to the next, and even a
# 50 Mbit/s shaper was not reached on every run; a 20 Mbit/s leg is
# steady, and 20 Mbit/s is the legs' expected rate.
for m in a1 a2; do
	run ip netns exec "$HA" tc qdisc add dev "$m" root tbf rate 20mbit burst 16kb latency 100ms
done
assert_eq "ha bond policy" "layer3+4 1" \
	"$(ip netns exec "$HA" cat /sys/class/net/bond0/bonding/xmit_hash_policy)"
vm_wait_for "ha reaches hb over bond0" 20 ip netns exec "$HA" ping -c1 -W1 10.25.0.2

# tx NS IF: its tx_bytes.
tx() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_bytes"; }
# drained SPORT: wait (<= 5 s) until ha's connection from SPORT is gone
# or past its last data (no socket of it established, fin-wait-1, closing
# or last-ack).  A trial's bytes are what the receiver got (iperf3's
# sum_received), not what the sender wrote: behind a shaper iperf3's last
# write returns with 30-65 % of a 1 MiB trial still queued, and the server
# resets the connection at the test's end with that tail unsent (seen:
# a2 +362369 of 1048576 written).  The trials also use a 32 KiB socket
# buffer (-w), so that the tail left unsent is small and the receiver gets
# most of each trial.
drained() {
	for _ in $(seq 1 50); do
		[ -n "$(ip netns exec "$HA" ss -Htn state established state fin-wait-1 \
			state closing state last-ack "( sport = :$1 )")" ] || return 0
		sleep 0.1
	done
	fail "the flow from port $1 did not drain in 5 s"
}

# --- 1. a sweep between the two: one leg -----------------------------------------
printf '%s 10.25.0.1\n%s 10.25.0.2\n' "$HA" "$HB" >"$TMP/hosts"
t1=$(tx "$HA" a1) t2=$(tx "$HA" a2)
rc=0
fab -j sweep --hosts "$TMP/hosts" --launcher netns --transport tcp --duration 1 --lat-iters 100
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "sweep: rc $rc"
d1=$(($(tx "$HA" a1) - t1)) d2=$(($(tx "$HA" a2) - t2))
echo "sweep: ha's members grew a1 +$d1 a2 +$d2 bytes" >&2
big=$((d1 > d2 ? d1 : d2)) small=$((d1 > d2 ? d2 : d1))
[ "$big" -gt 1000000 ] || fail "sweep: neither member carried the flow (a1 +$d1, a2 +$d2)"
# both ways of the pair run: ha sends its a -> b phase and acks of b -> a on one tuple each
echo "sweep: one leg carried $((big * 100 / (big + small)))% of ha's bytes" >&2

# --- 2. trial flows: which source port lands on which member -------------------
ip netns exec "$HB" iperf3 -s -p 5201 >"$TMP/iperf-s.log" 2>&1 &
IPERF_PID=$!
vm_wait_for "iperf3 listening in hb" 10 \
	sh -c "ip netns exec $HB ss -ltn | grep -q ':5201 '"
# member SPORT: 1 or 2 when that member carried a 256 KiB trial from SPORT (the
# rule of bond_legs_trial_member()), 0 when none clearly did.
trial() {
	local b1 b2 e1 e2 sent
	b1=$(tx "$HA" a1) b2=$(tx "$HA" a2)
	ip netns exec "$HA" iperf3 -c 10.25.0.2 -p 5201 --cport "$1" -n 256K -w 32K -J >"$TMP/t$1.json" ||
		fail "trial from port $1: iperf3 failed"
	drained "$1"
	e1=$(($(tx "$HA" a1) - b1)) e2=$(($(tx "$HA" a2) - b2))
	# what the receiver got: iperf3 counts what it wrote, and the server
	# closes (resets) the data connection with the shaped tail unsent
	sent=$(jq '.end.sum_received.bytes' "$TMP/t$1.json")
	[ "$sent" -gt 65536 ] || fail "trial from port $1: only $sent bytes received"
	echo "trial sport $1 received $sent: a1 +$e1 a2 +$e2" >&2
	if [ $((e1 * 100)) -ge $((sent * 90)) ] && [ $((e2 * 100)) -lt $((sent * 10)) ]; then
		echo 1
	elif [ $((e2 * 100)) -ge $((sent * 90)) ] && [ $((e1 * 100)) -lt $((sent * 10)) ]; then
		echo 2
	else
		echo 0
	fi
}
P1=() P2=()
# add MEMBER SPORT: one more port found on that member.
add() { if [ "$1" = 1 ]; then P1+=("$2"); elif [ "$1" = 2 ]; then P2+=("$2"); fi; }
for sport in $(seq 40001 40020); do
	m=$(trial "$sport")
	add "$m" "$sport"
	[ "${#P1[@]}" -lt 3 ] || [ "${#P2[@]}" -lt 3 ] || break
done
echo "ports per member: a1: ${P1[*]}  a2: ${P2[*]}" >&2
[ "${#P1[@]}" -ge 3 ] || fail "no three trials of 20 landed on a1 (a1: ${P1[*]}; a2: ${P2[*]})"
[ "${#P2[@]}" -ge 3 ] || fail "no three trials of 20 landed on a2 (a1: ${P1[*]}; a2: ${P2[*]})"

# --- 3./4. one flow per leg, one after another ----------------------------------
# leg SPORT MEMBER: Mbit/s (received) of a 2 s flow from SPORT (after 1 s
# of slow start, omitted), and that MEMBER carried it.
leg() {
	local b e sent
	b=$(tx "$HA" "$2")
	ip netns exec "$HA" iperf3 -c 10.25.0.2 -p 5201 --cport "$1" -O 1 -t 2 -J >"$TMP/l$1.json" ||
		fail "leg $2 from port $1: iperf3 failed"
	drained "$1"
	e=$(($(tx "$HA" "$2") - b))
	sent=$(jq '.end.sum_received.bytes' "$TMP/l$1.json")
	[ $((e * 100)) -ge $((sent * 90)) ] || fail "leg $2: port $1 did not stay on $2 (+$e of $sent)"
	# the receiver's rate: the sender's counts what is still queued
	jq '.end.sum_received.bits_per_second / 1e6 | floor' "$TMP/l$1.json"
}
# judge: "ok" or "slow" for leg rate $1 against $2, the faster leg of the
# bond (80 %).  Not against the shaper's 20 Mbit/s: under TCG a shaped
# leg's payload rate is 17-18 Mbit/s, too near 80 % of 20 to be steady.
judge() { [ $(($1 * 100)) -ge $(($2 * 80)) ] && echo ok || echo slow; }

# legs I: both legs measured, one after another, on their I-th ports: m1 m2
# top.  When one looks slow, both are measured again on their next ports
# and judged on that second look (the sweep's retest): under TCG on a busy
# host one 2 s flow can fall to 13 of 18 Mbit/s.
legs() {
	p1=${P1[$1]} p2=${P2[$1]}
	m1=$(leg "$p1" a1) m2=$(leg "$p2" a2)
	top=$((m1 > m2 ? m1 : m2))
	if [ "$(judge "$m1" "$top")" = slow ] || [ "$(judge "$m2" "$top")" = slow ]; then
		echo "retest: a1 $m1, a2 $m2 Mbit/s on ports $p1, $p2" >&2
		p1=${P1[$(($1 + 1))]} p2=${P2[$(($1 + 1))]}
		m1=$(leg "$p1" a1) m2=$(leg "$p2" a2)
		top=$((m1 > m2 ? m1 : m2))
	fi
}
legs 1
[ "$top" -ge 10 ] || fail "no fault: the faster leg at $top Mbit/s (shaped to 20)"
echo "no fault: leg a1 (port $p1) $m1 Mbit/s $(judge "$m1" "$top")," \
	"leg a2 (port $p2) $m2 Mbit/s $(judge "$m2" "$top")" >&2
assert_eq "no fault: leg a1" ok "$(judge "$m1" "$top")"
assert_eq "no fault: leg a2" ok "$(judge "$m2" "$top")"

run ip netns exec "$HA" tc qdisc replace dev a2 root tbf rate 4mbit burst 16kb latency 100ms
# fresh ports for the second measurement: the fourth and fifth of each member,
# found the same way (a 256 KiB trial on a2 takes ~0.5 s at 4 Mbit/s)
for sport in $(seq 40021 40040); do
	m=$(trial "$sport")
	add "$m" "$sport"
	[ "${#P1[@]}" -lt 5 ] || [ "${#P2[@]}" -lt 5 ] || break
done
{ [ "${#P1[@]}" -ge 5 ] && [ "${#P2[@]}" -ge 5 ]; } ||
	fail "with tbf: no fifth port per member (a1: ${P1[*]}; a2: ${P2[*]})"
legs 3
q1=$p1 q2=$p2
v1=$(judge "$m1" "$top") v2=$(judge "$m2" "$top")
echo "tbf on a2: leg a1 (port $q1) $m1 Mbit/s $v1, leg a2 (port $q2) $m2 Mbit/s $v2" >&2
# the finding as bond_leg_finding() words it (src/model/bond_legs.c)
[ "$v2" = ok ] || echo "slow leg: $HA a2 (switch $S2 port a2s): $m2 of $top Mbit/s" >&2
assert_eq "tbf: leg a1" ok "$v1"
assert_eq "tbf: leg a2" slow "$v2"
[ "$m2" -le 5 ] || fail "tbf: leg a2 at $m2 Mbit/s, over tbf's 4"
echo "PASS: both legs carried flows; the slowed leg named" >&2
