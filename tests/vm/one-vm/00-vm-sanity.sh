#!/bin/bash
# VM tier sanity: the kernel features the host lacks really work here.
#  - rdma_rxe: two Soft-RoCE devices on a veth pair, both ports ACTIVE,
#    link layer Ethernet, a RoCE v2 IPv4 GID, listed by ibv_devices;
#  - verbs traffic: a short ib_write_bw between them, GID index found by
#    address, bandwidth > 0, and the bytes crossed the veth (not lo);
#  - bonding: active-backup bond of two dummies, seen in /proc/net/bonding.
# Runs inside the VM (tests/vm/run-tests tests/vm/one-vm/00-vm-sanity.sh).
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need
need_cmd rdma ibv_devices ib_write_bw jq ss

srv_pid=
cleanup() {
	set +e
	[ -z "$srv_pid" ] || kill "$srv_pid" 2>/dev/null
	vm_reset >/dev/null 2>&1
}
trap cleanup EXIT

# --- rxe pair ---------------------------------------------------------
vm_rxe_pair fabsa fabsb 192.168.77.1 192.168.77.2
pretty "rdma link show"; rdma link show
links=$(rdma -j link show)
for dev in "$RXE_A:fabsa" "$RXE_B:fabsb"; do
	d=${dev%%:*} nd=${dev#*:}
	assert_eq "$d state" ACTIVE "$(jq -r --arg d "$d" '.[] | select(.ifname == $d) | .state' <<<"$links")"
	assert_eq "$d physical_state" LINK_UP "$(jq -r --arg d "$d" '.[] | select(.ifname == $d) | .physical_state' <<<"$links")"
	assert_eq "$d netdev" "$nd" "$(jq -r --arg d "$d" '.[] | select(.ifname == $d) | .netdev' <<<"$links")"
	assert_eq "$d link_layer" Ethernet "$(cat "/sys/class/infiniband/$d/ports/1/link_layer")"
	assert_eq "$d active_mtu (netdev mtu 1500)" "1024 (3)" "$(cat "/sys/class/infiniband/$d/ports/1/active_mtu" 2>/dev/null ||
		ibv_devinfo -d "$d" | awk '/active_mtu/ { print $2, $3 }')"
done
assert_eq "GID type at $RXE_A index $GID_A" "RoCE v2" "$(cat "/sys/class/infiniband/$RXE_A/ports/1/gid_attrs/types/$GID_A")"
assert_eq "GID netdev at $RXE_A index $GID_A" fabsa "$(cat "/sys/class/infiniband/$RXE_A/ports/1/gid_attrs/ndevs/$GID_A")"

pretty "ibv_devices"; ibv_devices
devs=$(ibv_devices | awk 'NR > 2 { print $1 }' | sort | tr '\n' ' ')
assert_eq "ibv_devices" "$RXE_A $RXE_B " "$devs"

# --- verbs traffic over the veth --------------------------------------
tx0=$(cat /sys/class/net/fabsb/statistics/tx_bytes)
rx0=$(cat /sys/class/net/fabsa/statistics/rx_bytes)
port=$(vm_free_tcp_port)
iters=200 size=65536
pretty "ib_write_bw -d $RXE_A -x $GID_A -s $size -n $iters -F -p $port --report_gbits (server, background)"
ib_write_bw -d "$RXE_A" -x "$GID_A" -s "$size" -n "$iters" -F -p "$port" --report_gbits >/tmp/srv.$$ 2>&1 &
srv_pid=$!
vm_wait_for "ib_write_bw server on tcp $port" 20 sh -c "ss -Hltn 'sport = :$port' | grep -q ."
out=$(run timeout 120 ib_write_bw -d "$RXE_B" -x "$GID_B" -s "$size" -n "$iters" -F -p "$port" --report_gbits 192.168.77.1) ||
	fail "ib_write_bw client failed: $out"
printf '%s\n' "$out"
wait "$srv_pid" || fail "ib_write_bw server failed: $(cat /tmp/srv.$$)"
srv_pid=
bw=$(awk -v s="$size" '$1 == s && NF >= 5 { print $4 }' <<<"$out")
[ -n "$bw" ] || fail "no bandwidth line for $size bytes in ib_write_bw output"
awk -v b="$bw" 'BEGIN { exit !(b > 0) }' || fail "ib_write_bw average bandwidth $bw Gb/s is not > 0"
printf '  ok: ib_write_bw average %s Gb/s\n' "$bw" >&2
# The client (rxe on fabsb) writes iters*size bytes to the server: they
# must have left through fabsb and arrived on fabsa, not over lo.
tx=$(( $(cat /sys/class/net/fabsb/statistics/tx_bytes) - tx0 ))
rx=$(( $(cat /sys/class/net/fabsa/statistics/rx_bytes) - rx0 ))
[ "$tx" -ge $((iters * size)) ] || fail "fabsb sent only $tx bytes, expected >= $((iters * size)) (traffic not on the veth?)"
[ "$rx" -ge $((iters * size)) ] || fail "fabsa received only $rx bytes, expected >= $((iters * size))"
printf '  ok: veth carried %s bytes out of fabsb, %s into fabsa\n' "$tx" "$rx" >&2

# --- bonding ----------------------------------------------------------
vm_dummy fabd0 fabd1
vm_bond fabbond0 active-backup fabd0 fabd1
vm_wait_for "fabbond0 active slave" 10 grep -q '^Currently Active Slave: fabd' /proc/net/bonding/fabbond0
pretty "cat /proc/net/bonding/fabbond0"; cat /proc/net/bonding/fabbond0
b=/proc/net/bonding/fabbond0
assert_eq "bond mode" "fault-tolerance (active-backup)" "$(sed -n 's/^Bonding Mode: //p' $b)"
assert_eq "bond slaves" "fabd0 fabd1" "$(sed -n 's/^Slave Interface: //p' $b | sort | tr '\n' ' ' | sed 's/ $//')"
assert_eq "bond MII status" up "$(sed -n 's/^MII Status: //p' $b | head -1)"
assert_eq "fabd0 master" fabbond0 "$(basename "$(readlink /sys/class/net/fabd0/master)")"
assert_eq "fabd1 master" fabbond0 "$(basename "$(readlink /sys/class/net/fabd1/master)")"
echo "00-vm-sanity: all checks passed"
