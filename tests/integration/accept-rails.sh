#!/bin/bash
# fabricctl accept of a new host of two fabric ports (rails) in the netns
# lab: 4 hosts x 2 NICs (eth0 on leaf1, rail 0; eth1 on leaf2, rail 1), one
# spine, host cables shaped to 1 Gbit/s, lldpd; h4 is new.  The plan is
# discover --save-plan's with the rails added (rail:, nics:).
#  1. Clean: ACCEPT; stage 1 judged both of h4's ports; stage 5 measured
#     the pairs the coverage picker chose a rail (K = 2: each h4 port with
#     2 ports of its rail, 4 pairs of the 6 new rail pairs), both rails,
#     each pair on one rail; the leaves' uplinks, which no rail pair
#     crosses, counted as such.
#  1b. h4's rail-1 cable slowed to 200 Mbit/s (tbf): REJECT at stage 5, its
#     findings naming h4:eth1 (or its cable) alone.
#  2. h4's eth1 down: REJECT at stage 1, FAB-REACH-PORT-DOWN naming h4:eth1.
#  3. h4's rail-1 NIC cabled to the rail-0 leaf (leaf1): REJECT at stage 3,
#     FAB-CABLE-RAIL naming h4 eth1 and leaf1.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip tc jq lldpd lldpcli
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

L=ar$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$L" || true; }

# accept: JSON to $TMP/out, exit status in $rc.
accept() {
	pretty "$FABRICCTL -j accept --hosts $TMP/hosts --launcher netns --plan $TMP/plan.yaml --duration 0.5 --lat-iters 200"
	rc=0
	"$FABRICCTL" -j accept --hosts "$TMP/hosts" --launcher netns --plan "$TMP/plan.yaml" \
		--duration 0.5 --lat-iters 200 >"$TMP/out" 2>"$TMP/err" || rc=$?
	tail -n 3 "$TMP/err" >&2
	jq -r '.stages[] | "  stage \(.stage // "") \(.name // "") \(.status): \(.note // "")"' "$TMP/out" >&2 || true
	jq -r '.findings[] | "    \(.code) \(.node) \(.evidence)"' "$TMP/out" >&2 || true
}
q() { jq -r "$@" "$TMP/out"; }

run lab_up --name "$L" --hosts 4 --leaves 2 --spines 1 --rails 2 --host-rate 1gbit
lab_hostsfile --switches | sed -E "s/^($L-h4 .*)/\1 new/" >"$TMP/hosts"
run lab_lldp_wait
assert_eq "hosts file: h4's two ports new" 2 "$(grep -c "^$L-h4 .* new\$" "$TMP/hosts")"
# The plan as discover saves it, its rails from the hosts file (nics:, rail:).
run "$FABRICCTL" discover --lldp --hosts "$TMP/hosts" --launcher netns --save-plan "$TMP/plan.yaml" >/dev/null
assert_eq "plan: hosts' nics" 4 "$(grep -c "^- {name: $L-h[1-4], type: host, nics: \[eth0, eth1\]" "$TMP/plan.yaml")"
assert_eq "plan: leaves' rails" 2 "$(grep -c "^- {name: $L-leaf1, type: switch, rail: 0\|^- {name: $L-leaf2, type: switch, rail: 1" "$TMP/plan.yaml")"

# --- 1. clean ----------------------------------------------------------------------
accept
assert_eq "clean: rc" 0 "$rc"
assert_eq "clean: verdict" ACCEPT "$(q .verdict)"
assert_eq "clean: no finding" 0 "$(q '.findings | length')"
q '.stages[0].note' | grep -q "fabric ports of 2 new hosts: 2 judged, 0 down" ||
	fail "clean: stage 1 did not judge both of h4's ports: $(q '.stages[0].note')"
q '.stages[3].note' | grep -q "^counters read on 2 new hosts through their workers" ||
	fail "clean: stage 4 did not read both of h4's ports' counters: $(q '.stages[3].note')"
assert_eq "clean: stage 5's pairs, K = 2 a rail" "4 4 2" "$(q '"\(.nodes.pairs_measured) \(.nodes.pairs_chosen) \(.input.coverage)"')"
q '.stages[4].note' | grep -q "^4 pairs measured (each new port with ports of its rail; all rail pairs would be 12), every one of 2 new links and new-leaf uplinks of a rail crossed by >= 2 of its pairs (2 short, 2 of them crossed by no rail pair)" ||
	fail "clean: stage 5 did not measure h4's rail pairs as chosen: $(q '.stages[4].note')"

# --- 1b. h4's rail-1 cable slow: the fewer pairs still name it ------------------------
run lab_slow h4:eth1 200mbit
accept
assert_eq "h4:eth1 slow: rc, verdict, failed stage" "1 REJECT 5" "$rc $(q .verdict) $(q .failed_stage)"
assert_eq "h4:eth1 slow: stage 5's findings name h4:eth1 or its cable alone" "" \
	"$(q --arg n "$L-h4:eth1" '.findings[] | select(.stage == 5) | select((.node != $n) and ((.link // "") | contains($n) | not)) | "\(.code) \(.node) \(.link)"')"
assert_eq "h4:eth1 slow: a stage-5 finding" true "$(q '[.findings[] | select(.stage == 5)] | length > 0')"
run lab_unslow h4:eth1

# --- 2. h4's eth1 down -------------------------------------------------------------
run lab_exec h4 ip link set eth1 down
accept
assert_eq "eth1 down: rc" 1 "$rc"
assert_eq "eth1 down: verdict" REJECT "$(q .verdict)"
assert_eq "eth1 down: stage 1 failed" failed "$(q '.stages[0].status')"
assert_eq "eth1 down: the finding names h4:eth1" "FAB-REACH-PORT-DOWN $L-h4:eth1" \
	"$(q '.findings[] | select(.stage == 1) | "\(.code) \(.node)"')"
run lab_exec h4 ip link set eth1 up

# --- 3. h4's rail-1 NIC on the rail-0 leaf ------------------------------------------
run lab_move h4:eth1 leaf1 swp10
run lab_exec h4 ip addr add "$(awk -v h="$L-h4" '$1 == h && / ifname=eth1/ { print $2 }' "$TMP/hosts")/24" dev eth1
run lab_lldp_wait
accept
assert_eq "rail crossed: rc" 1 "$rc"
assert_eq "rail crossed: verdict" REJECT "$(q .verdict)"
assert_eq "rail crossed: stage 3 failed" failed "$(q '.stages[2].status')"
assert_eq "rail crossed: FAB-CABLE-RAIL names h4 eth1 on leaf1" "$L-h4 $L-h4 eth1 <-> $L-leaf1 swp10" \
	"$(q '.findings[] | select(.code == "FAB-CABLE-RAIL") | "\(.node) \(.link)"')"
q '.findings[] | select(.code == "FAB-CABLE-RAIL") | .evidence' | grep -q "nic 1 (rail 1) reaches $L-leaf1 of rail 0" ||
	fail "rail crossed: the rail finding does not say which rail: $(q -c '.findings')"
echo "accept-rails: ok" >&2
