#!/bin/bash
# fabricctl apply / verify end to end on kernel objects the host lacks
# (inside the VM): DCB (PFC, ETS, DSCP APP table) on dcbtest devices, which
# give a virtual netdev the kernel's real dcbnl path; a real 802.3ad bond
# created, configured and enslaved by apply; RoCE default ToS through the
# real rdma_cm configfs on a Soft-RoCE port.  Cross-checked with dcb(8),
# /sys/class/net/BOND/bonding and configfs; rollback restores all of them.
# Runs inside the VM (tests/vm/run-tests tests/vm/one-vm/30-apply-vm.sh).
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need
need_cmd jq dcb rdma
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make at the repo root first)"
# dcbtest.ko is ours to provide (tests/vm/dcbtest/build, run on the host;
# with the headers cached it also builds here): missing is a failure.
KO=$TOP/tests/vm/dcbtest/out/$(uname -r)/dcbtest.ko
if [ ! -f "$KO" ]; then
	[ -f "$TOP/tests/vm/dcbtest/cache/$(uname -r)/stamp" ] ||
		fail "dcbtest.ko for $(uname -r) not built: run tests/vm/dcbtest/build on the host first"
	KO=$(VM_KVER=$(uname -r) run "$TOP/tests/vm/dcbtest/build" | sed -n 's/^DCBTEST_KO=//p')
	[ -f "$KO" ] || fail "tests/vm/dcbtest/build did not produce dcbtest.ko"
fi
grep -q '^dcbtest ' /proc/modules && run rmmod dcbtest

TMP=$(mktemp -d)
export FABRICCTL_RUNDIR=$TMP/run
cleanup() {
	set +e
	vm_reset >/dev/null 2>&1
	rmmod dcbtest 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

fab() {
	pretty "$FABRICCTL $*"
	rc=0
	"$FABRICCTL" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/out" "$TMP/err" >&2
}

run insmod "$KO" pairs=1
run ip link set dcbt0 up
run ip link set dcbt1 up
vm_dummy fabd0 fabd1
vm_modprobe bonding max_bonds=0
vm_rxe_pair fabra fabrb 192.168.78.1 192.168.78.2

# --- DCB on a device that has it -----------------------------------------
cat >"$TMP/dcb.yaml" <<'Y'
interfaces:
  - match: dcbt0
    mtu: 9000
    pfc: {enable: [3]}
    ets:
      prio_tc: [0, 1, 2, 3, 4, 5, 6, 7]
      tc_bw:   [10, 5, 5, 50, 10, 10, 0, 10]
      tsa:     [ets, ets, ets, ets, ets, ets, strict, ets]
    dscp_map: {26: 3, 48: 6}
Y
run dcb app add dev dcbt0 dscp-prio 26:1	# stale mapping apply must replace
fab -j verify "$TMP/dcb.yaml"
assert_eq "dcb verify rc" 1 "$rc"
assert_eq "dcb drift fields" "mtu pfc.enable ets.prio_tc ets.tc_bw ets.tsa dscp_map.26 dscp_map.48" \
	"$(jq -r '[.drift[].field] | join(" ")' "$TMP/out")"
assert_eq "dscp 26 found" 1 "$(jq -r '.drift[] | select(.field == "dscp_map.26") | .found' "$TMP/out")"
fab -j apply "$TMP/dcb.yaml"
assert_eq "dcb apply rc" 0 "$rc"
assert_eq "dcb steps" "mtu pfc.enable ets dscp_map.26 dscp_map.26 dscp_map.48" \
	"$(jq -r '[.steps[].field] | join(" ")' "$TMP/out")"
# Cross-check with iproute2's dcb(8), text output ("prio-pfc 0:off ... 3:on ...").
pfc_on() { dcb pfc show dev dcbt0 prio-pfc | tr ' ' '\n' | grep ':on$' | xargs; }
dscp_map() { dcb -N app show dev dcbt0 dscp-prio | tr ' ' '\n' | grep '^[0-9]*:[0-9]$' | sort -n | xargs; }
run dcb pfc show dev dcbt0
run dcb ets show dev dcbt0
run dcb -N app show dev dcbt0
assert_eq "dcb prio-pfc on" "3:on" "$(pfc_on)"
assert_eq "dcb ets tc-bw" "0:10 1:5 2:5 3:50 4:10 5:10 6:0 7:10" \
	"$(dcb ets show dev dcbt0 tc-bw | tr ' ' '\n' | grep '^[0-7]:' | xargs)"
assert_eq "dcb app dscp-prio" "26:3 48:6" "$(dscp_map)"
assert_eq "mtu" 9000 "$(cat /sys/class/net/dcbt0/mtu)"
fab verify "$TMP/dcb.yaml"
assert_eq "dcb verify after apply rc" 0 "$rc"
fab -j apply "$TMP/dcb.yaml"
assert_eq "dcb second apply changes" 0 "$(jq -r .changes "$TMP/out")"

# Rollback across DCB: the last step cannot be done (no RDMA device on dcbt0).
cat >"$TMP/dcb-fail.yaml" <<'Y'
interfaces:
  - match: dcbt0
    mtu: 4000
    pfc: {enable: [3, 4]}
    dscp_map: {26: 4, 10: 1}
    roce: {tos: 106}
Y
fab -j apply "$TMP/dcb-fail.yaml"
assert_eq "dcb rollback rc" 3 "$rc"
assert_eq "dcb rollback statuses" "undone undone undone undone undone failed" \
	"$(jq -r '[.steps[].status] | join(" ")' "$TMP/out")"
assert_eq "pfc restored" "3:on" "$(pfc_on)"
assert_eq "app restored" "26:3 48:6" "$(dscp_map)"
assert_eq "mtu restored" 9000 "$(cat /sys/class/net/dcbt0/mtu)"

# --- a dual-homing bond created by apply ------------------------------------
cat >"$TMP/bond.yaml" <<'Y'
bonds:
  - name: fabbond0
    mode: 802.3ad
    miimon: 100
    lacp_rate: fast
    xmit_hash_policy: layer3+4
    min_links: 1
    members: [fabd0, fabd1]
    mtu: 9000
Y
fab -j verify "$TMP/bond.yaml"
assert_eq "bond verify rc" 1 "$rc"
assert_eq "bond drift" "fabbond0 present yes no" \
	"$(jq -r '.drift[0] | "\(.interface) \(.field) \(.wanted) \(.found)"' "$TMP/out")"
fab -j apply "$TMP/bond.yaml"
assert_eq "bond apply rc" 0 "$rc"
B=/sys/class/net/fabbond0/bonding
assert_eq "bond mode" "802.3ad 4" "$(cat $B/mode)"
assert_eq "bond miimon" 100 "$(cat $B/miimon)"
assert_eq "bond lacp_rate" "fast 1" "$(cat $B/lacp_rate)"
assert_eq "bond xmit_hash_policy" "layer3+4 1" "$(cat $B/xmit_hash_policy)"
assert_eq "bond min_links" 1 "$(cat $B/min_links)"
assert_eq "bond members" "fabd0 fabd1" "$(tr ' ' '\n' <$B/slaves | sort | xargs)"
assert_eq "bond mtu" 9000 "$(cat /sys/class/net/fabbond0/mtu)"
assert_eq "member mtu follows" 9000 "$(cat /sys/class/net/fabd1/mtu)"
# Dummies have no LACP partner, so each leg stays in an aggregator of its
# own: exactly the degraded 802.3ad bond verify must report (a dual-homed
# bond whose second leg carries nothing).  Every configured option matches.
fab -j verify "$TMP/bond.yaml"
assert_eq "bond verify after apply rc (no LACP partner)" 1 "$rc"
assert_eq "bond verify: only the unaggregated leg" "fabbond0 members.fabd1.aggregator" \
	"$(jq -r '.drift[] | "\(.interface) \(.field)"' "$TMP/out")"
fab -j apply "$TMP/bond.yaml"
assert_eq "bond second apply changes" 0 "$(jq -r .changes "$TMP/out")"
# Drift: a member leaves; apply puts it back.
run ip link set fabd1 nomaster
fab -j verify "$TMP/bond.yaml"
assert_eq "member drift" "fabbond0 members fabd0,fabd1 fabd0" \
	"$(jq -r '.drift[] | select(.field == "members") | "\(.interface) \(.field) \(.wanted) \(.found)"' "$TMP/out")"
fab apply "$TMP/bond.yaml"
assert_eq "member fix rc" 0 "$rc"
assert_eq "bond members again" "fabd0 fabd1" "$(tr ' ' '\n' <$B/slaves | sort | xargs)"

# Rollback of a bond creation: a later step fails, the bond disappears.
run ip link del fabbond0
sed 's/fabbond0/fabbond1/' "$TMP/bond.yaml" >"$TMP/bond-fail.yaml"
printf 'interfaces:\n  - match: fabd0\n    roce: {tos: 106}\n' >>"$TMP/bond-fail.yaml"
fab -j apply "$TMP/bond-fail.yaml"
assert_eq "bond rollback rc" 3 "$rc"
[ ! -e /sys/class/net/fabbond1 ] || fail "fabbond1 still exists after rollback"
[ ! -e /sys/class/net/fabd0/master ] || fail "fabd0 still enslaved after rollback"

# --- RoCE default ToS through the real rdma_cm configfs ---------------------
grep -q '^rdma_cm ' /proc/modules || vm_modprobe rdma_cm
grep -q '^configfs ' /proc/modules || modprobe configfs 2>/dev/null || true
mountpoint -q /sys/kernel/config || run mount -t configfs none /sys/kernel/config
[ -d /sys/kernel/config/rdma_cm ] || fail "no rdma_cm configfs after loading rdma_cm"
printf 'interfaces:\n  - match: fabra\n    roce: {tos: 106}\n' >"$TMP/tos.yaml"
fab -j verify "$TMP/tos.yaml"
assert_eq "tos verify rc" 1 "$rc"
assert_eq "tos drift" "roce.tos 106 0" "$(jq -r '.drift[0] | "\(.field) \(.wanted) \(.found)"' "$TMP/out")"
fab apply "$TMP/tos.yaml"
assert_eq "tos apply rc" 0 "$rc"
[ ! -e "/sys/kernel/config/rdma_cm/$RXE_A" ] || fail "configfs directory of $RXE_A left behind"
run mkdir "/sys/kernel/config/rdma_cm/$RXE_A"
assert_eq "default_roce_tos" 106 "$(cat "/sys/kernel/config/rdma_cm/$RXE_A/ports/1/default_roce_tos")"
run rmdir "/sys/kernel/config/rdma_cm/$RXE_A"
fab verify "$TMP/tos.yaml"
assert_eq "tos verify after apply rc" 0 "$rc"

# roce.mtu (verify only): the Soft-RoCE port's active MTU, as status reads
# it, is no drift; any other value is drift naming both, and apply does
# not pretend to set it (it lists it as verify-only).
fab -j status
active=$(jq -r --arg d "$RXE_A" '.rdma[] | select(.name == $d) | .ports[0].active_mtu' "$TMP/out")
case $active in 256|512|1024|2048|4096) ;; *) fail "no active MTU for $RXE_A: '$active'" ;; esac
other=4096; [ "$active" != 4096 ] || other=1024
printf 'interfaces:\n  - match: fabra\n    roce: {mtu: %s}\n' "$active" >"$TMP/rmtu-ok.yaml"
printf 'interfaces:\n  - match: fabra\n    roce: {mtu: %s}\n' "$other" >"$TMP/rmtu-bad.yaml"
fab verify "$TMP/rmtu-ok.yaml"
assert_eq "roce.mtu $active verify rc" 0 "$rc"
fab -j verify "$TMP/rmtu-bad.yaml"
assert_eq "roce.mtu $other verify rc" 1 "$rc"
assert_eq "roce.mtu drift" "fabra roce.mtu $other $active" \
	"$(jq -r '.drift[] | "\(.interface) \(.field) \(.wanted) \(.found)"' "$TMP/out")"
fab -j apply "$TMP/rmtu-bad.yaml"
assert_eq "roce.mtu apply rc" 0 "$rc"
assert_eq "roce.mtu apply: verify-only, no step" "0 roce.mtu" \
	"$(jq -r '"\(.changes) \(.verify_only[0].field)"' "$TMP/out")"
echo "30-apply-vm: all checks passed"
