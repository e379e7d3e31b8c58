#!/bin/bash
# fabricctl accept, dual-homing, in the netns lab: an existing fabric
# (leaf1, leaf2, h1 h2 h4 h5) and a new leaf3 with two new hosts h3 and h6,
# each dual-homed: eth0 to leaf3 and eth1 to another leaf (h3 eth1 ->
# leaf2 swp10, h6 eth1 -> leaf1 swp10).  The profile bonds eth0 and eth1
# (bond0); the kernel of this lab has no bonding driver, so the bond itself
# cannot exist: the policy turns the configuration stage off (verify would
# report bond0 missing, checked in 4) and dual-homing is judged, as accept
# always judges it, from the LLDP neighbours of the profile's bond members.
# Traffic is off here too (accept-netns.sh covers it).
#  1. both new hosts dual-homed: ACCEPT, exit 0, no finding.
#  1b. h6's eth1 (a member of the profile's bond) down: REJECT at stage 1,
#     FAB-REACH-PORT-DOWN naming h6 and eth1 (the worker still answers).
#  2. h3 eth1 re-cabled to leaf3 swp10 (both legs on leaf3): REJECT at
#     stage 3, FAB-CABLE-SINGLE-HOMED naming h3 and the shared switch leaf3,
#     the only finding without a plan; against the plan (cabled as in 1)
#     the cable is also FAB-CABLE-MISWIRED, "should go to" leaf2 swp10.
#  3. bad policy input names the file, line and field.
#  4. verify --hosts with the same profile on the new hosts: bond0 missing
#     on both (the kernel cannot build it), and h3's bond0 not dual-homed
#     (drift field "dual-homing", found "one switch, leaf3 (...)", from the
#     LLDP neighbours of its members, as accept judges it); h6's is.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq lldpd lldpcli
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"
# shellcheck source=../lib/accept.sh
. "$TOP/tests/lib/accept.sh"

P=h13dh$$
tmpdir_with_cleanup accept-dualhome
cleanup_hook() { lab_down --name "$P" || true; }

run lab_up --name "$P" --hosts 6 --leaves 3 --spines 1
run lab_add_link h3 eth1 leaf2 swp10
run lab_add_link h6 eth1 leaf1 swp10
# Two linked ports: port= names the leaf port of the host's test traffic (route.h).
lab_hostsfile --switches | sed -E -e 's/leaf_port=(swp[0-9]+)/& port=\1/' \
	-e "s/^($P-(h3|h6|leaf3) .*)/\1 new/" >"$TMP/hosts"
lab_planfile --current >"$TMP/plan.yaml"
cat >"$TMP/profile.yaml" <<'EOF'
name: dual-homed
interfaces:
  - match: "eth0"
    mtu: 1500
bonds:
  - name: bond0
    mode: active-backup
    members: [eth0, eth1]
EOF
sed -e 's/^  configuration: true/  configuration: false/' -e 's/^  traffic: true/  traffic: false/' \
	"$TOP/examples/accept-policy.yaml" >"$TMP/policy.yaml"
grep -q "configuration: false" "$TMP/policy.yaml" || fail "policy edit did not apply"
run lab_lldp_wait
cat "$TMP/hosts" >&2

ARGS=(--hosts "$TMP/hosts" --launcher netns --profile "$TMP/profile.yaml" --policy "$TMP/policy.yaml")

# --- 1. dual-homed ---------------------------------------------------------------------
accept --plan "$TMP/plan.yaml"
assert_eq "dual-homed: rc" 0 "$rc"
assert_eq "dual-homed: verdict" ACCEPT "$(q .verdict)"
assert_eq "dual-homed: stages" "passed skipped passed passed skipped passed" "$(q '[.stages[].status] | join(" ")')"
assert_eq "dual-homed: configuration off by the policy" "turned off by the policy" "$(q '.stages[1].note')"

# --- 1b. a leg of h6's bond down: stage 1 judges the profile's bond members ----------------
run lab_exec h6 ip link set eth1 down
accept --plan "$TMP/plan.yaml"
assert_eq "h6 eth1 down: rc" 1 "$rc"
assert_eq "h6 eth1 down: failed stage" 1 "$(q .failed_stage)"
assert_eq "h6 eth1 down: the finding" \
	"FAB-REACH-PORT-DOWN $P-h6: eth1 down (admin down, operstate down): a member of the profile's bond bond0" \
	"$(q '.findings[] | "\(.code) \(.node): \(.evidence)"')"
run lab_exec h6 ip link set eth1 up
run lab_lldp_wait

# --- 2. both legs of h3 on leaf3 ---------------------------------------------------------
run lab_move h3:eth1 leaf3 swp10
run lab_lldp_wait
accept
assert_eq "single-homed: rc" 1 "$rc"
assert_eq "single-homed: failed stage" 3 "$(q .failed_stage)"
assert_eq "single-homed: the one finding" "FAB-CABLE-SINGLE-HOMED $P-h3 3" \
	"$(q '[.findings[] | "\(.code) \(.node) \(.stage)"] | join(";")')"
q '.findings[0].evidence' | grep -q "all 2 linked members reach one switch, $P-leaf3" ||
	fail "single-homed: the shared switch not named: $(q '.findings[0].evidence')"
accept --plan "$TMP/plan.yaml"
assert_eq "single-homed vs plan: failed stage" 3 "$(q .failed_stage)"
assert_eq "single-homed vs plan: codes" "FAB-CABLE-MISWIRED FAB-CABLE-SINGLE-HOMED" \
	"$(q '[.findings[].code] | sort | join(" ")')"
q '.findings[] | select(.code == "FAB-CABLE-MISWIRED") | .evidence' | grep -q "should go to $P-leaf2 swp10" ||
	fail "single-homed vs plan: no 'should go to'"
"$FABRICCTL" accept "${ARGS[@]}" >"$TMP/text" 2>&1 && fail "text run: exit 0"
grep -q "FAB-CABLE-SINGLE-HOMED.*$P-h3" "$TMP/text" || fail "text: $(cat "$TMP/text")"

# --- 3. bad policy input -------------------------------------------------------------------
printf 'coverage: 2\nstages:\n  cabling: maybe\n' >"$TMP/bad.yaml"
expect_rc 2 "$FABRICCTL" accept --hosts "$TMP/hosts" --launcher netns --policy "$TMP/bad.yaml"
"$FABRICCTL" accept --hosts "$TMP/hosts" --launcher netns --policy "$TMP/bad.yaml" 2>&1 |
	grep -q "bad.yaml:3:.*cabling" || fail "the policy error does not name line 3 and the field"

# --- 4. verify with the same profile ---------------------------------------------------------
grep -E "^$P-(h3|h6) " "$TMP/hosts" >"$TMP/hosts.new"
rc=0
"$FABRICCTL" -j verify --hosts "$TMP/hosts.new" --launcher netns "$TMP/profile.yaml" \
	>"$TMP/verify.json" 2>"$TMP/verify.err" || rc=$?
tail -n 3 "$TMP/verify.err" >&2
jq -r '.drift[] | "  \(.node) \(.interface) \(.field): wanted \(.wanted), found \(.found)"' "$TMP/verify.json" >&2 || true
assert_eq "verify: rc (drift)" 1 "$rc"
assert_eq "verify: bond0 missing on both new hosts" 2 \
	"$(jq '[.drift[] | select(.interface == "bond0" and .field != "dual-homing")] | length' "$TMP/verify.json")"
assert_eq "verify: h3 not dual-homed, h6 is" "$P-h3" \
	"$(jq -r '[.drift[] | select(.field == "dual-homing") | .node] | join(" ")' "$TMP/verify.json")"
jq -r '.drift[] | select(.field == "dual-homing") | .found' "$TMP/verify.json" | grep -q "one switch, $P-leaf3" ||
	fail "verify: the shared switch not named"
"$FABRICCTL" verify --hosts "$TMP/hosts.new" --launcher netns "$TMP/profile.yaml" >"$TMP/verify.txt" 2>&1 || true
grep -q "dual-homing" "$TMP/verify.txt" || fail "verify text: $(cat "$TMP/verify.txt")"
echo "accept-dualhome: all checks passed" >&2
