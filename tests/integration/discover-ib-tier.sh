#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# The tier rule under ibsim, with and without a plan: an HCA cable trained
# at 1X among 4X cables (h0005's, gen-fattree --thin h0005:1) is degraded
# whatever plan is given, unless the plan itself says that cable is 1X.
# ibsim's HCAs enable only the width they run and report VendorID and
# DeviceID 0, so nothing shows h0005 can run 4X: the problem says so.
#   - no plan: degraded, "width 1x; 31 of 32 ca-leaf links run 4x;
#     h0005 port 1 not known to support 4x";
#   - a plan without widths (ibnetdiscover file, widths cut): the same;
#   - a plan saying 4X for it: "width 1x, expected 4x" (the plan's words);
#   - a plan saying 1X for it: nothing (the plan's width wins), exit 0;
#   - accept --topology ib (stage 3) with h0005 new, against the plan
#     without widths and without a plan: FAB-CABLE-DEGRADED on that cable.
# Fabric: 2-level fat tree, radix 8 (32 HCAs, 8 leaves, 4 spines), one
# opensm sweep.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd ibsim opensm jq awk sed
[ -r /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ] || skip "libumad2sim.so missing (ibsim-utils)"
need_fabricctl
# shellcheck source=../lab/ibsim
. "$TOP/tests/lab/ibsim"

tmpdir_with_cleanup discover-ib-tier
cleanup_hook() { ibsim_stop; }

# discover NAME [ARGS...]: fabricctl discover --ib -j; exit status in $RC.
discover() {
	local name=$1
	shift
	RC=0
	run ibsim_run "$FABRICCTL" discover --ib --no-counters -j "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" || RC=$?
	jq -e .schema "$TMP/$name.json" >/dev/null || { cat "$TMP/$name.err" >&2; fail "$name: no JSON"; }
}
# problems NAME: "kind node[port] node[port] | detail" lines, sorted.
problems() {
	jq -r '.problems[] | [.kind, (.ports | map(.node + "[" + (.port | tostring) + "]") | join(" ")),
		"| " + .detail] | join(" ")' "$TMP/$1.json" | sort
}

run "$TOP/tests/lab/gen-fattree" --levels 2 --radix 8 --thin h0005:1 -o "$TMP/thin.net"
grep -q '"h0005"\[1\].*w=1' "$TMP/thin.net" || fail "thin.net: h0005's cable is not 1X"
ibsim_start "$TMP/thin.net"
run ibsim_sm

# The plans: the fabric as found, h0005's cable said 4X (as planned), said
# 1X (as found), and with no widths at all.
discover found --save-plan "$TMP/found.topo"
grep -q '"h0005" .* 1xEDR$' "$TMP/found.topo" || fail "found.topo: h0005's cable not 1xEDR"
sed -E 's/(# .*"(h0005|leaf-002)" .*) 1xEDR$/\1 4xEDR/' "$TMP/found.topo" >"$TMP/plan-4x.topo"
grep -q '1xEDR' "$TMP/plan-4x.topo" && fail "plan-4x.topo: a 1xEDR left"
sed -E 's/ [0-9]+x[A-Z0-9]+$//' "$TMP/found.topo" >"$TMP/plan-nowidth.topo"
grep -qE '[0-9]x(SDR|DDR|QDR|FDR|EDR)' "$TMP/plan-nowidth.topo" && fail "plan-nowidth.topo: widths left"

WANT='degraded leaf-002[1] h0005[1] | width 1x; 31 of 32 ca-leaf links run 4x; h0005 port 1 not known to support 4x'

# --- no plan: held to its tier, saying what is not known.
assert_eq "no plan: exit" 1 "$RC"
assert_eq "no plan: problems" "$WANT" "$(problems found)"
assert_eq "no plan: link status" degraded \
	"$(jq -r '.links[] | select(.b.node == "h0005") | .status' "$TMP/found.json")"

# --- a plan without widths: the same finding.
discover nowidth --expect "$TMP/plan-nowidth.topo"
assert_eq "plan without widths: exit" 1 "$RC"
assert_eq "plan without widths: problems" "$WANT" "$(problems nowidth)"

# --- a plan that says 4X for it: the plan's words.
discover plan4x --expect "$TMP/plan-4x.topo"
assert_eq "plan 4x: exit" 1 "$RC"
assert_eq "plan 4x: problems" "degraded leaf-002[1] h0005[1] | width 1x, expected 4x" "$(problems plan4x)"

# --- a plan that says 1X for it: the plan wins, nothing to report.
discover plan1x --expect "$TMP/found.topo"
assert_eq "plan 1x: exit" 0 "$RC"
assert_eq "plan 1x: problems" "" "$(problems plan1x)"

# --- text output: the same words.
run ibsim_run "$FABRICCTL" discover --ib --no-counters --expect "$TMP/plan-nowidth.topo" \
	>"$TMP/nowidth.txt" 2>/dev/null && fail "text: exit 0"
grep -q '"leaf-002"\[1\] <-> "h0005"\[1\]: width 1x; 31 of 32 ca-leaf links run 4x; h0005 port 1 not known to support 4x' \
	"$TMP/nowidth.txt" || { cat "$TMP/nowidth.txt" >&2; fail "text: no tier problem"; }

# --- accept --topology ib, stage 3, h0005 new: its cable found with a
# plan without widths and without a plan.
for i in $(seq 1 32); do
	printf 'h%04d 10.99.0.%d%s\n' "$i" "$i" "$([ "$i" = 5 ] && echo ' new')"
done >"$TMP/hosts"
for plan in nowidth none; do
	args=(--hosts "$TMP/hosts" --topology ib --no-workers)
	[ "$plan" = none ] || args+=(--plan "$TMP/plan-nowidth.topo")
	rc=0
	run ibsim_run "$FABRICCTL" -j accept "${args[@]}" >"$TMP/accept-$plan.json" 2>"$TMP/accept-$plan.err" || rc=$?
	jq -e .schema "$TMP/accept-$plan.json" >/dev/null || { cat "$TMP/accept-$plan.err" >&2; fail "accept $plan: no JSON"; }
	assert_eq "accept $plan: exit" 1 "$rc"
	assert_eq "accept $plan: verdict" REJECT "$(jq -r .verdict "$TMP/accept-$plan.json")"
	assert_eq "accept $plan: failed stage" 3 "$(jq -r .failed_stage "$TMP/accept-$plan.json")"
	ev=$(jq -r '.findings[] | select(.code == "FAB-CABLE-DEGRADED") | .evidence' "$TMP/accept-$plan.json")
	case $ev in
	*"width 1x; 31 of 32 ca-leaf links run 4x; h0005 port 1 not known to support 4x"*) ;;
	*) fail "accept $plan: no FAB-CABLE-DEGRADED for h0005: $(jq -c .findings "$TMP/accept-$plan.json")" ;;
	esac
done
ibsim_stop
echo "discover-ib-tier: all checks passed"
