#!/bin/bash
# NOT IN CI (tests/vm/manual/): the dual-homed legs with LLDP, the switch
# port in the finding.  lldpd in each of the lab's four namespaces (and the
# wait for every neighbour) adds ~15 s under TCG to the 42 s of
# one-vm/70-bond-legs.sh, which runs the same legs without a topology; the
# lookup itself (model/bond_legs.c bond_leg_neighbour()) is unit-tested.
# Run: tests/vm/run-tests --results /tmp/r tests/vm/manual/71-legs-lldp.sh
#
# The lab of tests/vm/legs-lab.sh (hosts ha, hb: balance-xor layer3+4 bonds
# over bridges s1, s2), lldpd in every namespace, the switches as hosts
# file lines (role=leaf lldp_socket=), each host placed by one of its legs
# (port=a1s, port=b1s: a host with two cabled ports needs port= under
# --topology lldp).  a2 cut to 4 Mbit/s, one sweep --topology lldp:
# exit 1, the finding "slow leg: ha a2 (switch s2 port a2s): 4 of 19
# Mbit/s", the JSON legs naming every member's switch and port.
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/vm/legs-lab.sh"
vm_need
need_cmd ip jq tc lldpd lldpcli
need_fabricctl
tmpdir_with_cleanup legs-lldp
HA='' HB='' S1='' S2='' D=/run/lg$$ LLDPD=''
cleanup_hook() {
	local p
	for p in $LLDPD; do kill "$p" 2>/dev/null || true; done
	legs_lab_down
	rm -rf "$D"
}
legs_lab_up
# lldpd drops its privileges: its sockets and config where it can reach them
mkdir -p "$D" /run/lldpd
chmod 755 "$D"
for n in "$HA" "$HB" "$S1" "$S2"; do
	printf '%s\n' "configure system hostname $n" "configure lldp tx-interval 1" \
		"configure lldp portidsubtype ifname" >"$D/$n.conf"
	pretty "ip netns exec $n lldpd -dd -u $D/$n.sock -O $D/$n.conf &"
	ip netns exec "$n" lldpd -dd -u "$D/$n.sock" -p "$D/$n.pid" -O "$D/$n.conf" \
		</dev/null >"$D/$n.log" 2>&1 &
	LLDPD="$LLDPD $!"
done
run ip -n "$S1" addr add 10.25.254.1/32 dev lo
run ip -n "$S2" addr add 10.25.254.2/32 dev lo
# sees NS WHO: NS's lldpd has WHO as a neighbour.
sees() { lldpcli -u "$D/$1.sock" show neighbors 2>/dev/null | grep -q "$2"; }
for w in "$HA $S1" "$HA $S2" "$HB $S1" "$HB $S2" "$S1 $HA" "$S1 $HB" "$S2 $HA" "$S2 $HB"; do
	vm_wait_for "${w% *} sees ${w#* }" 30 sees "${w% *}" "${w#* }"
done
{
	echo "$HA 10.25.0.1 port=a1s lldp_socket=$D/$HA.sock"
	echo "$HB 10.25.0.2 port=b1s lldp_socket=$D/$HB.sock"
	echo "$S1 10.25.254.1 role=leaf lldp_socket=$D/$S1.sock"
	echo "$S2 10.25.254.2 role=leaf lldp_socket=$D/$S2.sock"
} >"$TMP/hosts"
echo "lab and lldpd up in $SECONDS s" >&2

run ip netns exec "$HA" tc qdisc replace dev a2 root tbf rate 4mbit burst 16kb latency 100ms
fab -j -v sweep --hosts "$TMP/hosts" --launcher netns --transport tcp --duration 0.5 \
	--lat-iters 100 --slow-pct 50 --topology lldp
[ "$rc" = 1 ] || fail "sweep exit $rc (want 1)"
q() { jq -r "$@" "$TMP/out"; }
assert_eq "legs' switch ports" \
	"a1 $S1 a1s ok|a2 $S2 a2s slow|b1 $S1 b1s ok|b2 $S2 b2s ok" \
	"$(q '[.pairs[0].legs[].legs[] | "\(.member) \(.switch) \(.switch_port) \(.verdict)"] | join("|")')"
finding=$(q '.legs.findings[0]')
echo "finding: $finding" >&2
case $finding in
"slow leg: $HA a2 (switch $S2 port a2s): "*) ;;
*) fail "finding '$finding'" ;;
esac
assert_eq "findings" 1 "$(q '.legs.findings | length')"
echo "PASS: the slow leg named with its LLDP neighbour's switch port (in $SECONDS s)" >&2
