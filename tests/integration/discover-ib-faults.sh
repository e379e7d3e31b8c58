#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# fabricctl discover finds injected InfiniBand faults under ibsim, each
# named with the right ports, and reports nothing on the clean fabric:
#   - a link declared 1X (gen-fattree --thin: both ends w=1): degraded
#     without a plan (below the 4X its tier runs at, also an HCA's cable
#     whose HCA is not known to do better) and against the plan; a link whose one end is 1X-only while the other
#     enables 4X: degraded without a plan (width below enabled);
#   - a link taken down with the ibsim console `Unlink`: down/missing
#     against the plan, with the planned peer named;
#   - symbol errors set with `PerformanceSet`: errors over threshold on
#     that port (and not with a higher --thresholds);
#   - two cables swapped in the netfile versus the plan: two miswired
#     links (one per wrong cable), each saying where it should go.
# Fabric: 2-level fat tree, radix 8 (32 HCAs, 8 leaves, 4 spines), with
# an opensm sweep so the PMA has LIDs to talk to.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd ibsim opensm jq awk
[ -r /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ] || skip "libumad2sim.so missing (ibsim-utils)"
need_fabricctl
# shellcheck source=../lab/ibsim
. "$TOP/tests/lab/ibsim"

tmpdir_with_cleanup discover-ib-faults
cleanup_hook() { ibsim_stop; }

GEN="$TOP/tests/lab/gen-fattree --levels 2 --radix 8"

# discover NAME [ARGS...]: run fabricctl discover --ib -j; keep rc in $RC.
discover() {
	local name=$1
	shift
	RC=0
	run ibsim_run "$FABRICCTL" discover --ib -j "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" || RC=$?
	jq -e .schema "$TMP/$name.json" >/dev/null || { cat "$TMP/$name.err" >&2; fail "$name: no JSON"; }
}
# problems NAME: "kind node[port] node[port] -> expected[port] | detail" lines, sorted.
problems() {
	jq -r '.problems[] | [.kind, (.ports | map(.node + "[" + (.port | tostring) + "]") | join(" ")),
		(if .expected then "-> " + .expected.node + "[" + (.expected.port | tostring) + "]" else "" end),
		"| " + .detail] | join(" ")' "$TMP/$1.json" | sort
}

# --- clean fabric: no problems, exit 0; its graph becomes the plan.
run $GEN -o "$TMP/clean.net"
ibsim_start "$TMP/clean.net"
ibsim_sm
discover clean --save-plan "$TMP/plan.topo"
assert_eq "clean: exit" 0 "$RC"
assert_eq "clean: problems" "" "$(problems clean)"
assert_eq "clean: links" 64 "$(jq '.links | length' "$TMP/clean.json")"
assert_eq "clean: counters read" 128 "$(jq '[.links[] | .a, .b | select(.counters != null)] | length' "$TMP/clean.json")"
discover clean-plan --expect "$TMP/plan.topo"
assert_eq "clean vs plan: exit" 0 "$RC"
assert_eq "clean vs plan: problems" "" "$(problems clean-plan)"

# --- symbol errors on h0003 port 1 (PMA PortCounters).
ibsim_console 'PerformanceSet "h0003"[1] PortCounters.SymbolErrorCounter=57' >/dev/null
discover symerr
assert_eq "symbol errors: exit" 1 "$RC"
assert_eq "symbol errors: problems" "errors h0003[1] leaf-001[3]  | symbol_errors 57 > 10" "$(problems symerr)"
assert_eq "symbol errors: link status" errors \
	"$(jq -r '.links[] | select(.b.node == "h0003") | .status' "$TMP/symerr.json")"
discover symerr-th --thresholds symbol_errors=100
assert_eq "symbol errors under a higher threshold: exit" 0 "$RC"
ibsim_console 'PerformanceSet "h0003"[1] PortCounters.SymbolErrorCounter=0' >/dev/null

# --- Unlink leaf-002 port 1 (h0005's only cable).
ibsim_console 'Unlink "leaf-002"[1]' >/dev/null
discover unlink --expect "$TMP/plan.topo"
assert_eq "unlink: exit" 1 "$RC"
assert_eq "unlink: problems" "down leaf-002[1] -> h0005[1] | planned link, port down/polling" "$(problems unlink)"
assert_eq "unlink: h0005 gone" 0 "$(jq '[.nodes[] | select(.name == "h0005")] | length' "$TMP/unlink.json")"
# Without a plan an empty socket is not a problem (only a plan knows a cable belongs there).
discover unlink-noplan
assert_eq "unlink without plan: exit" 0 "$RC"
ibsim_stop

# --- a link declared 1X at both ends: below the plan's 4X.
# Both ends enable only 1X (as the simulator sets LinkWidthEnabled), so
# without a plan only the link's tier tells: 31 of the 32 leaf-spine links
# run 4X, and both switches run other ports at 4X; against the plan, the
# plan's 4X for that cable.
run $GEN --thin leaf-003:5 -o "$TMP/thin.net"
ibsim_start "$TMP/thin.net"
discover thin-noplan --no-counters
assert_eq "thin without plan: exit" 1 "$RC"
assert_eq "thin without plan: problems" \
	"degraded leaf-003[5] spine-01[3]  | width 1x; 31 of 32 leaf-spine links run 4x" "$(problems thin-noplan)"
assert_eq "thin without plan: link status" degraded \
	"$(jq -r '.links[] | select(.a.node == "leaf-003" and .a.port == 5) | .status' "$TMP/thin-noplan.json")"
discover thin --no-counters --expect "$TMP/plan.topo"
assert_eq "thin: exit" 1 "$RC"
# The plan states 4X for that cable: its width is the one the cable is held to.
assert_eq "thin: problems" "degraded leaf-003[5] spine-01[3]  | width 1x, expected 4x" "$(problems thin)"
ibsim_stop
# An HCA's cable at 1X: the leaf runs other ports at 4X, but nothing shows
# the HCA can (one port, enabled 1X, and ibsim's NodeInfo has VendorID and
# DeviceID 0, so no other HCA is known to be the same model): without a
# plan it is held to its tier all the same, saying so; the plan's 4X wins.
# (More in discover-ib-tier.sh.)
run $GEN --thin h0005:1 -o "$TMP/thin-ca.net"
ibsim_start "$TMP/thin-ca.net"
discover thin-ca --no-counters
assert_eq "thin HCA link without plan: exit" 1 "$RC"
assert_eq "thin HCA link without plan: problems" \
	"degraded leaf-002[1] h0005[1]  | width 1x; 31 of 32 ca-leaf links run 4x; h0005 port 1 not known to support 4x" \
	"$(problems thin-ca)"
discover thin-ca-plan --no-counters --expect "$TMP/plan.topo"
assert_eq "thin HCA link against the plan: problems" \
	"degraded leaf-002[1] h0005[1]  | width 1x, expected 4x" "$(problems thin-ca-plan)"
ibsim_stop

# --- one end 1X-only, the other enables 4X: trained at 1X, found without a plan.
# (ibsim needs a common width: the spine end enables 1X|4X, w=3.)
awk '
/^(Switch|Hca)/ { node = $0 }
node ~ /"leaf-004"$/ && /^\[6\]/ { $0 = $0 " w=1" }
node ~ /"spine-02"$/ && /^\[4\]/ { $0 = $0 " w=3" }
{ print }' "$TMP/clean.net" >"$TMP/half.net"
grep -q '"spine-02"\[4\] w=1' "$TMP/half.net" || fail "half.net: edit did not apply"
grep -q '"leaf-004"\[6\] w=3' "$TMP/half.net" || fail "half.net: edit did not apply"
ibsim_start "$TMP/half.net"
discover half --no-counters
assert_eq "half-width: exit" 1 "$RC"
assert_eq "half-width: problems" "degraded spine-02[4] leaf-004[6]  | width 1x, enabled 4x" "$(problems half)"
ibsim_stop

# --- h0002 and h0005 swapped: leaf-001[2] <-> h0005, leaf-002[1] <-> h0002.
awk '
/^(Switch|Hca)/ { node = $0 }
node ~ /"leaf-001"/ && /^\[2\]/ { sub(/"h0002"/, "\"h0005\"") }
node ~ /"leaf-002"/ && /^\[1\]/ { sub(/"h0005"/, "\"h0002\"") }
node ~ /"h0002"$/ && /^\[1\]/ { $0 = "[1]\t\"leaf-002\"[1]" }
node ~ /"h0005"$/ && /^\[1\]/ { $0 = "[1]\t\"leaf-001\"[2]" }
{ print }' "$TMP/clean.net" >"$TMP/swap.net"
ibsim_start "$TMP/swap.net"
discover swap --no-counters --expect "$TMP/plan.topo"
assert_eq "swap: exit" 1 "$RC"
assert_eq "swap: problems" "miswired h0002[1] leaf-002[1] -> leaf-001[2] | should go to \"leaf-001\"[2]
miswired leaf-001[2] h0005[1] -> h0002[1] | should go to \"h0002\"[1]" "$(problems swap)"
# The same fabric without a plan is healthy: only the plan knows the cabling is wrong.
discover swap-noplan --no-counters
assert_eq "swap without plan: exit" 0 "$RC"
# Text output names the same ports and marks nothing as a healthy link.
run ibsim_run "$FABRICCTL" discover --ib --no-counters --expect "$TMP/plan.topo" >"$TMP/swap.txt" 2>/dev/null || true
grep -q 'miswired .*"h0002"\[1\] <-> "leaf-002"\[1\] expected "leaf-001"\[2\]' "$TMP/swap.txt" ||
	{ cat "$TMP/swap.txt" >&2; fail "swap: text output"; }
ibsim_stop
echo "discover-ib-faults: all checks passed"
