#!/bin/bash
# Dual-homed pair: two VMs joined by two cables, an 802.3ad bond (lacp_rate
# fast, xmit_hash_policy layer3+4) over both NICs on each node.  Checks LACP converges (same
# aggregator, partner = peer's bond MAC), traffic flows, cutting cable 1
# leaves the bond up on cable 2 on both ends, and plugging it back makes
# the slave rejoin.  Then rdma_rxe on each bond: ib_write_bw between the
# two nodes, GID index found by address.  Then, on the same bonds,
# fabricctl sweep's dual-homed legs between the two VMs, the workers
# dialling back (tests/vm/pair-legs.sh): no fault, every leg of both bonds
# ok and on its own member's counter, exit 0; one of b's members slowed
# with tbf, that leg named, exit 1.
# Run: tests/vm/pair -- tests/vm/two-vm/50-pair-bond.sh   (same script on a and b)
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need_pair
need_cmd rdma ib_write_bw ping ss jq tc
need_fabricctl
. "$TOP/tests/vm/pair-legs.sh"

srv_pid=
cleanup() {
	local rc=$?
	set +e
	[ -z "$srv_pid" ] || kill "$srv_pid" 2>/dev/null
	[ "$rc" = 0 ] || vm_pair_abort
	exit "$rc"
}
trap cleanup EXIT

me=1 peer=2
[ "$VM_NODE" = a ] || { me=2 peer=1; }
ip_me=10.77.0.$me ip_peer=10.77.0.$peer
n1=$(vm_pair_nic 1) n2=$(vm_pair_nic 2)
b=/proc/net/bonding/fabbond

vm_bond fabbond 802.3ad "$n1" "$n2"
run ip link set fabbond type bond xmit_hash_policy layer3+4
run ip addr add "$ip_me/24" dev fabbond
bondmac=$(cat /sys/class/net/fabbond/address)
echo "$bondmac" >"/run/vm/shared/bondmac.$VM_NODE"

# LACP: both slaves in one aggregator whose partner is the peer's bond.
vm_barrier bonds-created 120
peermac=$(cat "/run/vm/shared/bondmac.$VM_PEER")
vm_wait_for "LACP partner $peermac on both slaves" 60 \
	sh -c "[ \$(grep -c 'details partner lacp pdu' $b) = 2 ] && [ \$(sed -n '/details partner lacp pdu/,/oper key/p' $b | grep -ci 'system mac address: $peermac') = 2 ]"
vm_wait_for "ping $ip_peer over the bond" 60 ping -c 1 -W 1 "$ip_peer"
pretty "cat $b"; cat $b
aggs=$(sed -n '/^Slave Interface/,$p' $b | sed -n 's/^Aggregator ID: //p' | sort -u)
assert_eq "slaves share one aggregator" 1 "$(echo "$aggs" | wc -l)"
assert_eq "active aggregator = slaves' aggregator" "$aggs" \
	"$(sed -n '/^Active Aggregator Info/,/^Slave Interface/p' $b | sed -n 's/^\s*Aggregator ID: //p')"
assert_eq "slave $n1 MII" up "$(sed -n "/^Slave Interface: $n1/,/^\$/p" $b | sed -n 's/^MII Status: //p')"
assert_eq "slave $n2 MII" up "$(sed -n "/^Slave Interface: $n2/,/^\$/p" $b | sed -n 's/^MII Status: //p')"
vm_barrier lacp-up 120

# Cut cable 1 (from a; both ends lose carrier like a real cable).
if [ "$VM_NODE" = a ]; then
	vm_link 1 off
fi
vm_wait_for "$n1 carrier down" 30 sh -c "[ \"\$(cat /sys/class/net/$n1/carrier)\" = 0 ]"
vm_wait_for "slave $n1 MII down in $b" 30 \
	sh -c "sed -n '/^Slave Interface: $n1/,/^\$/p' $b | grep -q '^MII Status: down'"
assert_eq "bond operstate with one cable" up "$(cat /sys/class/net/fabbond/operstate)"
run ping -c 3 -W 2 "$ip_peer"
assert_eq "slave $n2 MII with cable 1 cut" up "$(sed -n "/^Slave Interface: $n2/,/^\$/p" $b | sed -n 's/^MII Status: //p')"
vm_barrier cut-checked 120

if [ "$VM_NODE" = a ]; then
	vm_link 1 on
fi
vm_wait_for "slave $n1 MII up again" 30 \
	sh -c "sed -n '/^Slave Interface: $n1/,/^\$/p' $b | grep -q '^MII Status: up'"
vm_wait_for "$n1 back in the active aggregator" 30 \
	sh -c "[ \$(sed -n '/^Slave Interface/,\$p' $b | sed -n 's/^Aggregator ID: //p' | sort -u | wc -l) = 1 ]"
run ping -c 2 -W 2 "$ip_peer"
vm_barrier replugged 120

# Soft-RoCE over the bond, between the two nodes.
vm_modprobe rdma_rxe
run rdma link add rxe_bond type rxe netdev fabbond
vm_wait_for "rxe_bond IPv4 GID" 20 vm_gid_index rxe_bond 1 "$ip_me"
gid=$(vm_gid_index rxe_bond 1 "$ip_me")
assert_eq "rxe_bond link_layer" Ethernet "$(cat /sys/class/infiniband/rxe_bond/ports/1/link_layer)"
if [ "$VM_NODE" = a ]; then
	port=$(vm_free_tcp_port)
	echo "$port" >/run/vm/shared/perftest.port.tmp
	pretty "ib_write_bw -d rxe_bond -x $gid -n 100 -F -p $port (server, background)"
	ib_write_bw -d rxe_bond -x "$gid" -n 100 -F -p "$port" --report_gbits >/tmp/srv.$$ 2>&1 &
	srv_pid=$!
	vm_wait_for "ib_write_bw server on tcp $port" 20 sh -c "ss -Hltn 'sport = :$port' | grep -q ."
	mv /run/vm/shared/perftest.port.tmp /run/vm/shared/perftest.port
	wait "$srv_pid" || fail "ib_write_bw server failed: $(cat /tmp/srv.$$)"
	srv_pid=
	cat /tmp/srv.$$
else
	vm_wait_for "perftest server port from a" 120 test -e /run/vm/shared/perftest.port
	port=$(cat /run/vm/shared/perftest.port)
	out=$(run timeout 120 ib_write_bw -d rxe_bond -x "$gid" -n 100 -F -p "$port" --report_gbits "$ip_peer") ||
		fail "ib_write_bw client failed: $out"
	printf '%s\n' "$out"
	bw=$(awk '$1 == 65536 && NF >= 5 { print $4 }' <<<"$out")
	[ -n "$bw" ] && awk -v b="$bw" 'BEGIN { exit !(b > 0) }' || fail "no positive bandwidth in ib_write_bw output"
	printf '  ok: ib_write_bw a<->b over the bond: %s Gb/s\n' "$bw" >&2
fi
vm_barrier rxe-done 180

# The sweep's dual-homed legs on these bonds (tests/vm/pair-legs.sh).
pair_legs fabbond 10.77.0.1 10.77.0.2
vm_barrier finished 180
echo "50-pair-bond ($VM_NODE): all checks passed"
