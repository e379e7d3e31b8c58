# shellcheck shell=bash
# The dual-homed legs lab (sourced by tests/vm/one-vm/70-bond-legs.sh and
# tests/vm/manual/71-legs-lldp.sh, inside the VM): four namespaces,
#
#     ha: bond0 (balance-xor, layer3+4) = a1 + a2      10.25.0.1
#     hb: bond0 (balance-xor, layer3+4) = b1 + b2      10.25.0.2
#     s1: bridge, ports a1s b1s isl1   (the leg-1 switch)
#     s2: bridge, ports a2s b2s isl2   (the leg-2 switch)
#     isl1 <-> isl2 joins the switches, so either leg reaches the other host.
#
# every member shaped to 20 Mbit/s (tbf): under TCG a bare veth's rate
# swings 2x from one second to the next; a 20 Mbit/s leg is steady.
# legs_lab_up sets HA HB S1 S2 (namespace names) and brings it up, in few
# processes (each costs under TCG): one ip batch per namespace;
# legs_lab_down removes it; tx NS IF prints a member's tx_bytes.

# batch IP-ARGS... : the lines on stdin run by one ip (or tc) process, logged.
batch() {
	local lines nl=$'\n'
	lines=$(cat)
	pretty "$* -b - <<<'${lines//$nl/; }'"
	"$@" -b - <<<"$lines"
}

# switch NS PORT...: a bridge of the ports.
legs_lab_switch() {
	local ns=$1 p
	shift
	{
		echo "link set lo up"
		echo "link add br0 type bridge"
		for p in "$@"; do echo "link set $p master br0"; echo "link set $p up"; done
		echo "link set br0 up"
	} | batch ip -n "$ns"
}

# legs_lab_host NS ADDR M1 M2: bond0 of the members, each shaped to 20 Mbit/s.
legs_lab_host() {
	batch ip -n "$1" <<EOT
link set lo up
link add bond0 type bond mode balance-xor xmit_hash_policy layer3+4 miimon 100
link set $3 master bond0
link set $4 master bond0
addr add $2/24 dev bond0
link set bond0 up
EOT
	batch tc -n "$1" <<EOT
qdisc add dev $3 root tbf rate 20mbit burst 16kb latency 100ms
qdisc add dev $4 root tbf rate 20mbit burst 16kb latency 100ms
EOT
}

legs_lab_up() {
	local n
	grep -q '^bonding ' /proc/modules || vm_modprobe bonding max_bonds=0
	vm_modprobe veth
	modprobe sch_tbf 2>/dev/null || true
	HA=lg$$-ha HB=lg$$-hb S1=lg$$-s1 S2=lg$$-s2
	for n in "$HA" "$HB" "$S1" "$S2"; do
		run ip netns add "$n"
		# no IPv6 (router solicitations, DAD) on the members: their counters are the test's
		ip netns exec "$n" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6 &&
			echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6'
	done
	batch ip <<EOT
link add a1 netns $HA type veth peer name a1s netns $S1
link add a2 netns $HA type veth peer name a2s netns $S2
link add b1 netns $HB type veth peer name b1s netns $S1
link add b2 netns $HB type veth peer name b2s netns $S2
link add isl1 netns $S1 type veth peer name isl2 netns $S2
EOT
	legs_lab_switch "$S1" a1s b1s isl1
	legs_lab_switch "$S2" a2s b2s isl2
	legs_lab_host "$HA" 10.25.0.1 a1 a2
	legs_lab_host "$HB" 10.25.0.2 b1 b2
	vm_wait_for "ha reaches hb over bond0" 20 ip netns exec "$HA" ping -c1 -W1 10.25.0.2
}

legs_lab_down() {
	local n
	for n in "$HA" "$HB" "$S1" "$S2"; do ip netns del "$n" 2>/dev/null || true; done
}

# tx NS IF: its tx_bytes.
tx() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_bytes"; }
