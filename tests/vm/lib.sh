# shellcheck shell=bash
# Helpers for test scripts that run INSIDE a tests/vm VM (sourced after
# tests/lib/common.sh, which provides run/fail/skip/assert_eq).
# They change the VM's root network namespace freely: the VM is thrown
# away after the run.  Never source this on the host (vm_need refuses).

# vm_need: skip unless inside a fabricctl VM.
vm_need() {
	[ "${FABVM:-}" = 1 ] || skip "not inside a tests/vm VM (run it with tests/vm/run-tests)"
}

# vm_modprobe MODULE [PARAM=VALUE...]: load a module from the VM kernel's
# tree; fail (not skip) when it is missing: the tree is ours to provide.
vm_modprobe() {
	run modprobe "$@" || fail "modprobe $*: failed (tests/vm/kernel module list?)"
}

# vm_sysctl KEY VALUE: write a sysctl, logged, and check it stuck.
vm_sysctl() {
	run sysctl -qw "$1=$2" || fail "sysctl $1=$2"
}

# vm_veth A B: a veth pair A<->B in the root namespace, both up.
vm_veth() {
	vm_modprobe veth
	run ip link add "$1" type veth peer name "$2"
	run ip link set "$1" up
	run ip link set "$2" up
}

# vm_ip4_hex ADDR: 192.168.77.1 -> c0a8:4d01 (as in an IPv4-mapped GID).
vm_ip4_hex() {
	local IFS=.
	# shellcheck disable=SC2086
	set -- $1
	printf '%02x%02x:%02x%02x' "$1" "$2" "$3" "$4"
}

# vm_gid_index DEV PORT ADDR: index of the RoCE v2 GID carrying IPv4 ADDR
# (never assume a fixed index).  Prints nothing and returns 1 if absent.
# One grep over the table (rxe has 1024 entries: a cat each took seconds
# under TCG), then the type of the entries that hold it.
vm_gid_index() {
	local dev=$1 port=$2 want g i t
	want="0000:0000:0000:0000:0000:ffff:$(vm_ip4_hex "$3")"
	for g in $(grep -lx "$want" /sys/class/infiniband/"$dev"/ports/"$port"/gids/* 2>/dev/null); do
		i=${g##*/}
		t=$(cat "/sys/class/infiniband/$dev/ports/$port/gid_attrs/types/$i" 2>/dev/null) || continue
		[ "$t" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}

# vm_wait_for WHAT TIMEOUT_S CMD...: poll CMD (quietly) until it succeeds.
vm_wait_for() {
	local what=$1 tmo=$2 end
	shift 2
	pretty "wait for $what (<= ${tmo}s): $*"
	end=$((SECONDS + tmo))
	while ! "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$end" ] || fail "timed out after ${tmo}s waiting for $what"
		sleep 0.1
	done
}

# vm_rxe_pair [A B [ADDR_A ADDR_B]]: veth pair A<->B (default fabra/fabrb),
# ADDR_A/ADDR_B (default 192.168.77.1 / .2, /24), and a Soft-RoCE device
# rxe_A / rxe_B on each end.  Both ends live in the root namespace (rxe in
# 6.1 only works there), so:
#  - policy routing makes locally generated traffic A->B leave through A
#    (and B->A through B) instead of short-cutting over lo: rules at
#    pref 100 matching "iif lo" only, the local table moved below them;
#  - accept_local=1 and rp_filter=0 let each end accept packets whose
#    source is a local address; static neighbours avoid ARP between them.
# Sets RXE_A RXE_B (device names), GID_A GID_B (RoCE v2 IPv4 GID indexes).
vm_rxe_pair() {
	local a=${1:-fabra} b=${2:-fabrb} ipa=${3:-192.168.77.1} ipb=${4:-192.168.77.2}
	local t i
	vm_veth "$a" "$b"
	run ip addr add "$ipa/24" dev "$a"
	run ip addr add "$ipb/24" dev "$b"
	vm_sysctl net.ipv4.conf.all.rp_filter 0
	vm_sysctl net.ipv4.conf.default.rp_filter 0
	for i in "$a" "$b"; do
		vm_sysctl "net.ipv4.conf.$i.rp_filter" 0
		vm_sysctl "net.ipv4.conf.$i.accept_local" 1
		vm_sysctl "net.ipv4.conf.$i.arp_ignore" 1
	done
	run ip neigh replace "$ipb" lladdr "$(cat "/sys/class/net/$b/address")" dev "$a" nud permanent
	run ip neigh replace "$ipa" lladdr "$(cat "/sys/class/net/$a/address")" dev "$b" nud permanent
	t=$(ip rule show | grep -c 'iif lo lookup' || true)
	t=$((100 + t))
	run ip route add "$ipb/32" dev "$a" src "$ipa" table "$t"
	run ip rule add pref 100 from "$ipa" to "$ipb" iif lo lookup "$t"
	t=$((t + 1))
	run ip route add "$ipa/32" dev "$b" src "$ipb" table "$t"
	run ip rule add pref 100 from "$ipb" to "$ipa" iif lo lookup "$t"
	if ip rule show | grep -q '^0:.*lookup local'; then
		run ip rule add pref 1000 lookup local
		run ip rule del pref 0 lookup local
	fi
	vm_modprobe rdma_rxe
	run rdma link add "rxe_$a" type rxe netdev "$a"
	run rdma link add "rxe_$b" type rxe netdev "$b"
	RXE_A=rxe_$a RXE_B=rxe_$b
	vm_wait_for "$RXE_A IPv4 GID" 10 vm_gid_index "$RXE_A" 1 "$ipa"
	vm_wait_for "$RXE_B IPv4 GID" 10 vm_gid_index "$RXE_B" 1 "$ipb"
	GID_A=$(vm_gid_index "$RXE_A" 1 "$ipa")
	GID_B=$(vm_gid_index "$RXE_B" 1 "$ipb")
	pretty "rxe pair: $RXE_A ($a $ipa gid $GID_A) <-> $RXE_B ($b $ipb gid $GID_B)"
}

# vm_bond NAME MODE IF...: bond NAME (mode MODE, miimon 100; lacp_rate
# fast for 802.3ad) enslaving IF..., all up.  Loads bonding max_bonds=0.
vm_bond() {
	local name=$1 mode=$2 i
	shift 2
	grep -q '^bonding ' /proc/modules || vm_modprobe bonding max_bonds=0
	if [ "$mode" = 802.3ad ]; then
		run ip link add "$name" type bond mode "$mode" miimon 100 lacp_rate fast
	else
		run ip link add "$name" type bond mode "$mode" miimon 100
	fi
	for i in "$@"; do
		run ip link set "$i" down
		run ip link set "$i" master "$name"
	done
	# active-backup: the first member is the primary, so which leg is
	# active does not depend on which link came up first.
	[ "$mode" != active-backup ] || run ip link set "$name" type bond primary "$1"
	run ip link set "$name" up
}

# vm_dummy NAME...: dummy interfaces, up.
vm_dummy() {
	local i
	vm_modprobe dummy numdummies=0
	for i in "$@"; do
		run ip link add "$i" type dummy
		run ip link set "$i" up
	done
}

# vm_free_tcp_port: a TCP port nothing listens on inside the VM.
vm_free_tcp_port() {
	local p
	while :; do
		p=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000 ))
		ss -Hltn "sport = :$p" | grep -q . || { echo "$p"; return 0; }
	done
}

# vm_reset: undo what the helpers above create, so the next test in the
# same boot starts clean: rxe links, virtual interfaces (veth, dummy,
# bond, vlan: every interface without a backing device, except lo),
# the pref 100 policy rules and their tables, local table back at pref 0.
# Interfaces with a device (the NICs of tests/vm/pair) are kept, released
# from any master and flushed of addresses.
vm_reset() {
	local l i
	for l in $(rdma link show 2>/dev/null | awk '$1 == "link" { sub("/.*", "", $2); print $2 }'); do
		run rdma link delete "$l" || true
	done
	for i in /sys/class/net/*; do
		i=${i##*/}
		[ "$i" != lo ] || continue
		[ -e "/sys/class/net/$i" ] || continue
		if [ -e "/sys/class/net/$i/device" ]; then
			run ip link set "$i" nomaster 2>/dev/null || true
			run ip addr flush dev "$i" || true
		else
			run ip link del "$i" 2>/dev/null || true
		fi
	done
	for i in $(ip rule show pref 100 | sed -n 's/.* lookup \([0-9]*\).*/\1/p' | sort -u); do
		run ip route flush table "$i" || true
	done
	while ip rule show | grep -q '^100:'; do
		run ip rule del pref 100 || break
	done
	if ! ip rule show | grep -q '^0:.*lookup local'; then
		run ip rule add pref 0 lookup local
	fi
	while ip rule show | grep -q '^1000:.*lookup local'; do
		run ip rule del pref 1000 lookup local || break
	done
}

# --- tests/vm/pair (two VMs, VM_NODE=a|b) ------------------------------

# vm_need_pair: skip unless running as a node of tests/vm/pair.
vm_need_pair() {
	vm_need
	case ${VM_NODE:-} in a|b) ;; *) skip "not a tests/vm/pair node (VM_NODE unset)" ;; esac
}

# vm_pair_nic I: interface name of pair link I in this VM (found by MAC).
vm_pair_nic() {
	local mac="52:54:00:fa:0$VM_NODE:0$1" i
	for i in /sys/class/net/*; do
		if [ "$(cat "$i/address")" = "$mac" ]; then
			echo "${i##*/}"
			return 0
		fi
	done
	fail "no NIC with MAC $mac (pair link $1)"
}

# vm_ctl_port: the control port device (virtio-serial "fabvm.ctl").
vm_ctl_port() {
	local p
	for p in /sys/class/virtio-ports/*; do
		[ "$(cat "$p/name" 2>/dev/null)" = fabvm.ctl ] || continue
		echo "/dev/${p##*/}"
		return 0
	done
	fail "no fabvm.ctl virtio port (not under tests/vm/pair?)"
}

# vm_link I on|off [local]: plug or cut pair link I (both ends, like a
# cable; "local": only this VM's NIC).  Waits for the host's "ok", then
# for this VM's NIC carrier to follow when the NIC is up.
vm_link() {
	local i=$1 st=$2 scope=${3:-} port reply nic want
	port=$(vm_ctl_port)
	pretty "vm_link $i $st $scope (via $port)"
	exec 9<>"$port"
	printf 'link %s %s %s\n' "$i" "$st" "$scope" >&9
	read -r -t 30 reply <&9 || reply="(no answer in 30s)"
	exec 9<&-
	[ "$reply" = ok ] || fail "vm_link $i $st: $reply"
	nic=$(vm_pair_nic "$i")
	if ip link show "$nic" | grep -q '[<,]UP[,>]'; then
		want=1
		[ "$st" = on ] || want=0
		vm_wait_for "$nic carrier $want" 10 sh -c "[ \"\$(cat /sys/class/net/$nic/carrier)\" = $want ]"
	fi
}

# vm_barrier NAME [TIMEOUT_S]: wait until the peer VM reached the same
# barrier (files in the shared folder /run/vm/shared).
vm_barrier() {
	local name=$1 tmo=${2:-120}
	[ -d /run/vm/shared ] || fail "vm_barrier: no /run/vm/shared (not under tests/vm/pair?)"
	: >"/run/vm/shared/barrier.$name.$VM_NODE"
	local end=$((SECONDS + tmo))
	pretty "barrier $name: wait for peer $VM_PEER (<= ${tmo}s)"
	while [ ! -e "/run/vm/shared/barrier.$name.$VM_PEER" ]; do
		[ ! -e "/run/vm/shared/abort.$VM_PEER" ] || fail "peer $VM_PEER failed before barrier $name"
		[ "$SECONDS" -lt "$end" ] || fail "timed out after ${tmo}s at barrier $name"
		sleep 0.1
	done
}

# vm_pair_abort: tell the peer this node failed (call from an EXIT trap
# when $? != 0); its next vm_barrier fails at once instead of timing out.
vm_pair_abort() {
	[ ! -d /run/vm/shared ] || : >"/run/vm/shared/abort.$VM_NODE"
}

# dcbtest_insmod ARGS...: tests/vm/dcbtest's module (built on the host for
# this kernel by tests/vm/dcbtest/build) loaded afresh with ARGS.
dcbtest_insmod() {
	local ko
	ko=$TOP/tests/vm/dcbtest/out/$(uname -r)/dcbtest.ko
	[ -f "$ko" ] || fail "dcbtest.ko for $(uname -r) not built: run tests/vm/dcbtest/build on the host first"
	if grep -q '^dcbtest ' /proc/modules; then run rmmod dcbtest; fi
	run insmod "$ko" "$@"
}

# dcbtest_cleanup: a dcbtest test's exit trap: the Soft-RoCE device on
# dcbt0 deleted, the module unloaded, $TMP removed.
dcbtest_cleanup() {
	set +e
	rdma link delete rxe_dcbt0 2>/dev/null
	grep -q '^dcbtest ' /proc/modules && rmmod dcbtest
	rm -rf "$TMP"
}

# vm_legs_read ARRAY HEAD: one jq (each process costs under TCG) reads the
# sweep document $TMP/out into the associative ARRAY: ARRAY[DIR.MEMBER.FIELD]
# for every leg of the first pair (verdict sport bytes tx_bytes bw_mbps
# finding ...) and ARRAY[head], the jq string HEAD (the caller's summary
# fields); the head is logged.
vm_legs_read() {
	local -n vlr_a=$1
	local k v out
	vlr_a=()
	out=$(jq -r "\"head\\t\" + $2,
		(.pairs[0].legs | to_entries[] | select(.value != null) | .key as \$d | .value.legs[] | .member as \$m |
		 to_entries[] | \"\\(\$d).\\(\$m).\\(.key)\\t\\(.value)\")" "$TMP/out")
	# (a here-string: the VM has no /dev/fd for <(...))
	while IFS=$'\t' read -r k v; do vlr_a[$k]=$v; done <<<"$out"
	echo "legs: ${vlr_a[head]}" >&2
}
