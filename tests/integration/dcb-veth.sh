#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# DCB netlink against a device without DCB: a veth pair in a private
# network namespace.  The kernel answers EOPNOTSUPP (veth has no
# dcbnl_ops); fabricctl must say so per capability, clearly, exit 3 on
# apply and report drift "unknown (...)" on verify, and change nothing.
# iproute2's dcb(8) is asked the same question as a cross-check that the
# kernel really refused (not our code).
# The positive path (a device with DCB ops) is tests/vm/one-vm/31-dcb.sh.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq dcb
need_fabricctl

NS=fabdcb$$
A=dcbv$$a B=dcbv$$b
tmpdir_with_cleanup
cleanup_hook() { ip netns del "$NS" 2>/dev/null; }

run ip netns add "$NS"
run ip -n "$NS" link add "$A" type veth peer name "$B"
run ip -n "$NS" link set "$A" up
run ip -n "$NS" link set "$B" up

fab() { fab_ns "$NS" "$@"; }	# in the namespace; rc, $TMP/out, $TMP/err
profile() { # profile NAME BODY: an interfaces item for $A
	printf 'interfaces:\n  - match: "%s"\n%s\n' "$A" "$2" >"$TMP/$1.yaml"
}

# --- the kernel's own answer (iproute2) ------------------------------------
rc=0
ip netns exec "$NS" dcb pfc show dev "$A" >"$TMP/dcb.out" 2>&1 || rc=$?
cat "$TMP/dcb.out" >&2
[ "$rc" != 0 ] || fail "dcb pfc show on a veth succeeded: expected EOPNOTSUPP from the kernel"
grep -q "Operation not supported" "$TMP/dcb.out" || fail "iproute2 did not see EOPNOTSUPP: $(cat "$TMP/dcb.out")"

# --- apply: one capability at a time, each named ---------------------------
check_apply() { # name yaml-body expected-message
	profile "$1" "$2"
	fab apply "$TMP/$1.yaml"
	assert_eq "apply $1: exit status" 3 "$rc"
	grep -qF "$3" "$TMP/err" || fail "apply $1: stderr lacks '$3'"
	printf '  ok: apply %s says "%s"\n' "$1" "$3" >&2
}
check_apply pfc '    pfc: {enable: [3]}' "dcb: $A: pfc not supported by driver"
check_apply ets '    ets: {prio_tc: [0,0,0,1,0,0,0,0], tc_bw: [50,50,0,0,0,0,0,0], tsa: [ets,ets,strict,strict,strict,strict,strict,strict]}' \
	"dcb: $A: ets not supported by driver"
check_apply app '    dscp_map: {26: 3, 48: 6}' "dcb: $A: app table not supported by driver"

# --- rollback: the MTU step before the refused PFC step is undone ----------
profile mtu-pfc '    mtu: 4000
    pfc: {enable: [3]}'
fab apply "$TMP/mtu-pfc.yaml"
assert_eq "apply mtu+pfc: exit status" 3 "$rc"
grep -qF "dcb: $A: pfc not supported by driver" "$TMP/err" || fail "apply mtu+pfc: no pfc message"
assert_eq "mtu of $A after the rolled-back apply" 1500 "$(ip -n "$NS" -j link show "$A" | jq -r '.[0].mtu')"

# --- apply --dry-run: steps certain to fail are marked, exit 3 -------------
# (PFC without DCB, ToS without an RDMA device, a bond member that does
# not exist); roce.mtu is named verify-only.  Nothing is changed.
profile dry '    mtu: 4000
    pfc: {enable: [3]}
    roce: {tos: 106, mtu: 4096}'
printf 'bonds:\n  - name: dbond%s\n    mode: active-backup\n    members: [%s, nosuch%s]\n' "$$" "$B" "$$" >>"$TMP/dry.yaml"
fab apply --dry-run "$TMP/dry.yaml"
assert_eq "dry run with certain failures: exit status" 3 "$rc"
grep -Eq "^ +[0-9]+ WOULD-FAIL +$A +pfc.enable " "$TMP/out" || fail "dry run: pfc not marked: $(cat "$TMP/out")"
grep -qF "dcb: $A: dcb not supported by driver" "$TMP/out" || fail "dry run: pfc reason missing"
grep -Eq "^ +[0-9]+ WOULD-FAIL +$A +roce.tos " "$TMP/out" || fail "dry run: roce.tos not marked"
grep -Eq "^ +[0-9]+ WOULD-FAIL +dbond$$ +members +- -> nosuch$$" "$TMP/out" || fail "dry run: missing member not marked"
grep -Eq "^ +[0-9]+ would +dbond$$ +members +- -> $B" "$TMP/out" || fail "dry run: existing member marked"
grep -Eq "^ +[0-9]+ would +$A +mtu " "$TMP/out" || fail "dry run: mtu step marked"
grep -qF "1 verify-only field" "$TMP/out" || fail "dry run: roce.mtu not named verify-only"
grep -qF "dry run: 3 step(s) certain to fail" "$TMP/err" || fail "dry run: stderr: $(cat "$TMP/err")"
fab -j apply --dry-run "$TMP/dry.yaml"
assert_eq "dry run -j: steps that fail" 3 "$(jq '[.steps[] | select(.fails != null)] | length' "$TMP/out")"
assert_eq "dry run -j: verify-only" "roce.mtu" "$(jq -r '.verify_only[].field' "$TMP/out")"
assert_eq "mtu of $A after the dry run" 1500 "$(ip -n "$NS" -j link show "$A" | jq -r '.[0].mtu')"
ip -n "$NS" link show "dbond$$" >/dev/null 2>&1 && fail "dry run created the bond"
# Verify-only fields alone: apply says so instead of a bare "nothing to do".
profile vo '    roce: {mtu: 4096}'
fab apply "$TMP/vo.yaml"
assert_eq "verify-only profile: exit status" 0 "$rc"
grep -qF "1 verify-only field (apply does not set it; 'fabricctl verify' reports it):" "$TMP/out" ||
	fail "verify-only profile: $(cat "$TMP/out")"

# --- verify: drift with the reason, same JSON keys -------------------------
profile all '    pfc: {enable: [3]}
    dscp_map: {26: 3}'
fab -j verify "$TMP/all.yaml"
assert_eq "verify: exit status" 1 "$rc"
j=$(cat "$TMP/out")
assert_eq "verify: schema" "fabricctl.verify/1" "$(jq -r .schema <<<"$j")"
assert_eq "verify: ok" false "$(jq -r .ok <<<"$j")"
assert_eq "verify: pfc.enable found" "unknown (dcb: $A: dcb not supported by driver)" \
	"$(jq -r --arg i "$A" '.drift[] | select(.interface == $i and .field == "pfc.enable") | .found' <<<"$j")"
assert_eq "verify: dscp_map.26 found" "unknown (dcb: $A: dcb not supported by driver)" \
	"$(jq -r --arg i "$A" '.drift[] | select(.interface == $i and .field == "dscp_map.26") | .found' <<<"$j")"
assert_eq "verify: pfc.enable wanted" 3 \
	"$(jq -r --arg i "$A" '.drift[] | select(.interface == $i and .field == "pfc.enable") | .wanted' <<<"$j")"

# --- roce.mtu: verify reports it (a veth has no RDMA device); the value
# check against a real port is tests/vm/one-vm/30-apply-vm.sh --------------
profile rmtu '    roce: {mtu: 4096}'
fab -j verify "$TMP/rmtu.yaml"
assert_eq "verify roce.mtu: exit status" 1 "$rc"
assert_eq "verify roce.mtu: drift" "$A roce.mtu 4096 no rdma device" \
	"$(jq -r '.drift[] | "\(.interface) \(.field) \(.wanted) \(.found)"' "$TMP/out")"

# --- an interface that does not exist: no such device, not a crash ---------
printf 'interfaces:\n  - match: "nodev%s"\n    pfc: {enable: [3]}\n' "$$" >"$TMP/nodev.yaml"
fab apply "$TMP/nodev.yaml"
assert_eq "apply on a missing interface: exit status" 3 "$rc"
grep -qF "'nodev$$' matches no interface on this node" "$TMP/err" ||
	fail "apply on a missing interface: stderr lacks the reason: $(cat "$TMP/err")"
echo "dcb-veth: all checks passed"
