#!/bin/bash
# `fabricctl status -j` against real kernel objects the host lacks: two
# Soft-RoCE ports on a veth pair and an active-backup bond of two dummies.
# Runs inside the VM (tests/vm/run-tests tests/vm/one-vm/10-status-vm.sh).
# Build first with `make` at the repo root: a missing ./fabricctl fails.
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need
need_cmd jq rdma
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make at the repo root first)"

cleanup() {
	set +e
	vm_reset >/dev/null 2>&1
}
trap cleanup EXIT

vm_rxe_pair fabta fabtb 192.168.77.1 192.168.77.2
vm_dummy fabtd0 fabtd1
vm_bond fabtbond active-backup fabtd0 fabtd1

js=/tmp/status.$$.json
rc=0
run "$FABRICCTL" status -j >"$js" || rc=$?
jq . "$js" >&2 || fail "status -j output is not JSON: $(head -c 500 "$js")"
assert_eq "fabricctl status -j exit status" 0 "$rc"
q() { jq -r "$@" "$js"; }

assert_eq "schema" "fabricctl.status/1" "$(q .schema)"
assert_eq "hostname" "$(hostname)" "$(q .hostname)"

# Links: the veths, the bond and its members.
assert_eq "fabta kind" veth "$(q '.links[] | select(.name == "fabta") | .kind')"
assert_eq "fabta ifindex" "$(cat /sys/class/net/fabta/ifindex)" "$(q '.links[] | select(.name == "fabta") | .ifindex')"
assert_eq "fabta operstate" up "$(q '.links[] | select(.name == "fabta") | .operstate')"
assert_eq "fabtbond kind" bond "$(q '.links[] | select(.name == "fabtbond") | .kind')"
assert_eq "fabtbond master" null "$(q '.links[] | select(.name == "fabtbond") | .master')"
assert_eq "fabtd0 master" fabtbond "$(q '.links[] | select(.name == "fabtd0") | .master')"
assert_eq "fabtd1 master" fabtbond "$(q '.links[] | select(.name == "fabtd1") | .master')"
assert_eq "fabta master" null "$(q '.links[] | select(.name == "fabta") | .master')"

# RDMA: both rxe devices, one Ethernet port each, on their own veth.
for x in "$RXE_A:fabta:$GID_A:192.168.77.1" "$RXE_B:fabtb:$GID_B:192.168.77.2"; do
	IFS=: read -r dev nd gi ip <<<"$x"
	p=".rdma[] | select(.name == \"$dev\") | .ports[]"
	assert_eq "$dev present" 1 "$(q "[.rdma[] | select(.name == \"$dev\")] | length")"
	assert_eq "$dev port count" 1 "$(q "[$p] | length")"
	assert_eq "$dev port number" 1 "$(q "$p | .port")"
	assert_eq "$dev link_layer" Ethernet "$(q "$p | .link_layer")"
	assert_eq "$dev netdev" "$nd" "$(q "$p | .netdev")"
	assert_eq "$dev counters is an object" object "$(q "$p | .counters | type")"
	assert_eq "$dev gids is an array" array "$(q "$p | .gids | type")"
	# The IPv4 GID (index found in sysfs by address): RoCE v2 on the veth.
	assert_eq "$dev gid $gi type" "RoCE v2" "$(q "$p | .gids[] | select(.index == $gi) | .type")"
	assert_eq "$dev gid $gi netdev" "$nd" "$(q "$p | .gids[] | select(.index == $gi) | .netdev")"
	g=$(q "$p | .gids[] | select(.index == $gi) | .gid")
	sysfs=$(cat "/sys/class/infiniband/$dev/ports/1/gids/$gi")
	case $g in
	"$sysfs" | "::ffff:$ip") printf '  ok: %s gid %s = %s\n' "$dev" "$gi" "$g" >&2 ;;
	*) fail "$dev gid $gi: expected '$sysfs' or '::ffff:$ip', got '$g'" ;;
	esac
	# Some GID of type RoCE v2 sits on the veth (the brief's contract).
	n=$(q "[$p | .gids[] | select(.type == \"RoCE v2\" and .netdev == \"$nd\")] | length")
	[ "$n" -ge 1 ] || fail "$dev: no RoCE v2 GID with netdev $nd"
	printf '  ok: %s has %s RoCE v2 GIDs on %s\n' "$dev" "$n" "$nd" >&2
done
echo "10-status-vm: all checks passed"
