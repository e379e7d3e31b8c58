#!/bin/bash
# Ethernet / RoCE counters through the workers (issue 11, "counters as evidence").
#  1. veth pair in two namespaces: the worker's "counters" op finds the
#     interface by the host's address, reads /sys/class/net/IF/statistics
#     and the veth's ETHTOOL_GSTATS (peer_ifindex is the peer's ifindex);
#     with the peer down, pings are dropped and tx_dropped moves between
#     two reads.  Bad requests are refused with the reason.
#  2. sweep --topology lldp on the netns lab (4 hosts, one leaf), h2's
#     cable slowed: every worker reads a layout fixture of real mlx5
#     counter names (tests/fixtures/mlx5-roce, through --root); h2's
#     `ethtool -S` capture is a FIFO that gives the "before" text, then an
#     "after" text with rx_prio3_pause +5000, tx_prio3_pause +10 (under
#     its threshold) and rx_discards_phy +40.  The top suspect is h2's
#     access link, and its evidence cites h2 eth0 rx_prio3_pause (warn)
#     and rx_discards_phy (error), nothing else; no other suspect has
#     counter evidence.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip tc jq lldpd lldpcli
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=h11c$$
tmpdir_with_cleanup
LABS=
FEEDER= FIFO=
cleanup_hook() {
	local l
	[ -z "$FEEDER" ] || kill "$FEEDER" 2>/dev/null || true
	# A writer still blocked on the FIFO is let go.
	[ -z "$FIFO" ] || [ ! -p "$FIFO" ] || timeout 2 cat "$FIFO" >/dev/null 2>&1 || true
	ip netns del "${P}a" 2>/dev/null || true
	ip netns del "${P}b" 2>/dev/null || true
	for l in $LABS; do lab_down --name "$l" || true; done
}
FIX=$TOP/tests/fixtures/mlx5-roce

# --- 1. veth: the worker op ---------------------------------------------------------
run ip netns add "${P}a"
run ip netns add "${P}b"
run ip link add "${P}va" netns "${P}a" type veth peer name "${P}vb" netns "${P}b"
ip -n "${P}a" addr add 10.213.7.1/24 dev "${P}va"
ip -n "${P}b" addr add 10.213.7.2/24 dev "${P}vb"
ip -n "${P}a" link set "${P}va" up
ip -n "${P}b" link set "${P}vb" up
ip netns exec "${P}a" ping -c 1 -W 2 10.213.7.2 >/dev/null || fail "veth: no ping"
peer_index=$(ip -n "${P}b" -o link show "${P}vb" | cut -d: -f1)
{
	echo '{"v":1,"id":1,"op":"counters","addr":"10.213.7.1"}'
	sleep 0.5
	ip -n "${P}b" link set "${P}vb" down
	ip netns exec "${P}a" ping -c 5 -i 0.2 -W 1 10.213.7.2 >/dev/null 2>&1 || true
	echo '{"v":1,"id":2,"op":"counters","ifname":"'"${P}va"'"}'
	echo '{"v":1,"id":3,"op":"counters","addr":"192.0.2.77"}'
	echo '{"v":1,"id":4,"op":"counters","ifname":7}'
	echo '{"v":1,"id":5,"op":"counters"}'
} | ip netns exec "${P}a" "$FABRICCTL" worker >"$TMP/w.out"
r() { jq -r "select(.id == $1) | $2" "$TMP/w.out"; }
assert_eq "veth: op ok" "true true" "$(r 1 .ok) $(r 2 .ok)"
assert_eq "veth: the interface holding the address" "${P}va" "$(r 1 .result.ifname)"
assert_eq "veth: ETHTOOL_GSTATS peer_ifindex is the peer's index" "$peer_index" "$(r 1 .result.ethtool.peer_ifindex)"
[ "$(r 1 '.result.stats | has("rx_packets") and has("tx_dropped") and has("carrier_changes")')" = true ] ||
	fail "veth: netdev statistics missing: $(r 1 -c .result.stats)"
assert_eq "veth: no RDMA port on it" 0 "$(r 1 '.result.rdma | length')"
d0=$(r 1 .result.stats.tx_dropped)
d1=$(r 2 .result.stats.tx_dropped)
echo "veth: tx_dropped $d0 -> $d1 with the peer down" >&2
[ "$d1" -ge $((d0 + 3)) ] || fail "veth: tx_dropped did not move ($d0 -> $d1)"
assert_eq "veth: unknown address" "false counters: no interface has address 192.0.2.77" "$(r 3 .ok) $(r 3 .error)"
assert_eq "veth: bad ifname type" false "$(r 4 .ok)"
assert_eq "veth: nothing named" "counters: no interface and no address given" "$(r 5 .error)"
ip netns del "${P}a"
ip netns del "${P}b"

# --- 2. a sweep's suspect with mlx5 counter evidence --------------------------------
L=${P}l
LABS="$LABS $L"
run lab_up --name "$L" --hosts 4 --leaves 1 --spines 0 --host-rate 1gbit
lab_hostsfile --switches >"$TMP/hosts"
run lab_lldp_wait

# One fixture root per host, its port renamed to the lab's eth0.
for h in h1 h2 h3 h4; do
	R=$TMP/root-$L-$h
	mkdir -p "$R/ethtool-S"
	cp -r "$FIX/sys" "$R/"
	mv "$R/sys/class/net/enp1s0f0np0" "$R/sys/class/net/eth0"
	echo eth0 >"$R/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0"
	cp "$FIX/ethtool-S/enp1s0f0np0" "$R/ethtool-S/eth0"
done
R2=$TMP/root-$L-h2
cp "$FIX/ethtool-S/enp1s0f0np0" "$TMP/before.txt"
sed -e 's/rx_prio3_pause: 1200$/rx_prio3_pause: 6200/' -e 's/tx_prio3_pause: 800$/tx_prio3_pause: 810/' \
	-e 's/rx_discards_phy: 17$/rx_discards_phy: 57/' "$TMP/before.txt" >"$TMP/after.txt"
[ "$(diff "$TMP/before.txt" "$TMP/after.txt" | grep -c '^>')" = 3 ] || fail "fixture: the after text changes 3 lines"
FIFO=$R2/ethtool-S/eth0
rm "$FIFO"
mkfifo "$FIFO"
# The worker opens it once before the first round, once after the sweep
# (seconds apart: the pause keeps the two texts in separate reads).
feed() { timeout 180 sh -c 'cat "$1" >"$2"' feed "$1" "$FIFO"; }
( feed "$TMP/before.txt"; sleep 2; feed "$TMP/after.txt" ) &
FEEDER=$!

run lab_slow h2 100mbit
pretty "$FABRICCTL -j sweep --hosts $TMP/hosts --topology lldp --worker-cmd '$FABRICCTL --root $TMP/root-{host} worker' ..."
rc=0
"$FABRICCTL" -v -j sweep --hosts "$TMP/hosts" --launcher netns --transport tcp --duration 0.5 \
	--lat-iters 200 --topology lldp --worker-cmd "$FABRICCTL --root $TMP/root-{host} worker" \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
grep -E 'counters' "$TMP/err" >&2 || true
q() { jq -r "$@" "$TMP/out"; }
assert_eq "sweep: rc (h2 slow)" 1 "$rc"
if kill -0 "$FEEDER" 2>/dev/null; then
	fail "h2's ethtool -S was not read twice (feeder still waiting)"
fi
FEEDER=
assert_eq "sweep: the suspect is h2's access link" "node $L-h2 $L-h2 eth0" \
	"$(q '.suspects[0] | "\(.kind) \(.node) \(.link.a.node) \(.link.a.port)"')"
q '.suspects[0].evidence.counters' >&2
assert_eq "sweep: h2's counter evidence" \
	"$L-h2 eth0 rx_discards_phy +40 error (>0);$L-h2 eth0 rx_prio3_pause +5000 warn (>1000)" \
	"$(q '[.suspects[0].evidence.counters[] | "\(.port.node) \(.port.port) \(.counter) +\(.delta) \(.severity) (>\(.threshold))"] | sort | join(";")')"
assert_eq "sweep: counters raise the score" true "$(q '.suspects[0].score > .suspects[0].traffic_score')"
assert_eq "sweep: no other suspect has counter evidence" 0 \
	"$(q '[.suspects[1:][] | .evidence.counters[]] | length')"
grep -q "counters: read on 4 of 4 hosts before the sweep" "$TMP/err" || fail "sweep: no before read logged"
lab_down --name "$L"
echo "sweep-counters: ok" >&2
