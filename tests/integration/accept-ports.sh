#!/bin/bash
# fabricctl accept, stage 1 (reach): the new hosts' fabric ports, read
# through their workers, in the netns lab: an existing leaf1 with h1 and
# h3, a new leaf2 with h2 and h4 (new), lldpd everywhere, a profile (MTU
# 1500 on eth0).  The worker is reached through the `ip netns exec`
# launcher, not over the data path, so a host whose data link is down still
# answers.  The traffic stage is off (accept-netns.sh covers it).
#  1. clean: stage 1 passed, its note counting the 2 new hosts' ports
#     judged (eth0 each: the data-path interface and the profile's),
#     none down or below; ACCEPT.
#  2. h4's eth0 set down inside its namespace (and the existing h1's too):
#     REJECT at stage 1, one FAB-REACH-PORT-DOWN naming h4 and "eth0 down
#     (admin down, ...)"; every node still reported reached; h1 (existing)
#     is not judged, only counted in the note; stages 2-6 blocked (5 off).
#  3. h2's cable pulled at the leaf (h2 keeps eth0 admin up, no carrier):
#     REJECT at stage 1, FAB-REACH-PORT-DOWN naming h2, operstate shown.
#  4. rated speeds: a veth says 10000 Mb/s whatever it carries, so a
#     rated speed comes only from the hosts file or the policy: h2 with
#     rate_gbps=25 is FAB-REACH-PORT-DEGRADED "eth0 10000 Mb/s, rated 25
#     Gb/s"; rate_gbps=10 passes; the policy's port_rate_gbps: 40 makes
#     both new hosts (no rate_gbps=) degraded and never the existing ones
#     (counted in the note).
#  5. ifname= naming an interface h4 lacks: FAB-REACH-PORT-UNREAD naming
#     it ("no data-path interface for ...").
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

P=ap$$
tmpdir_with_cleanup accept-ports
cleanup_hook() { lab_down --name "$P" || true; }

run lab_up --name "$P" --hosts 4 --leaves 2 --spines 1
lab_hostsfile --switches | sed -E "s/^($P-(h2|h4|leaf2) .*)/\1 new/" >"$TMP/hosts"
lab_planfile >"$TMP/plan.yaml"
printf 'name: lab\ninterfaces:\n  - match: "eth0"\n    mtu: 1500\n' >"$TMP/profile.yaml"
sed -e 's/^  traffic: true/  traffic: false/' "$TOP/examples/accept-policy.yaml" >"$TMP/policy.yaml"
grep -q "traffic: false" "$TMP/policy.yaml" || fail "policy edit did not apply"
run lab_lldp_wait
cat "$TMP/hosts" >&2

ARGS=(--hosts "$TMP/hosts" --launcher netns --profile "$TMP/profile.yaml" --plan "$TMP/plan.yaml"
      --policy "$TMP/policy.yaml")
# The stage 1 findings as "CODE NODE: EVIDENCE" lines.
reach() { q '.findings[] | select(.stage == 1) | "\(.code) \(.node): \(.evidence)"'; }

# --- 1. clean ----------------------------------------------------------------------------
accept
assert_eq "clean: rc" 0 "$rc"
assert_eq "clean: verdict" ACCEPT "$(q .verdict)"
assert_eq "clean: stage 1" passed "$(q '.stages[0].status')"
q '.stages[0].note' | grep -q "fabric ports of 2 new hosts: 2 judged, 0 down, 0 below rated or expected; existing hosts' ports read on 2, 0 problems there not judged" ||
	fail "clean: stage 1 note: $(q '.stages[0].note')"
assert_eq "clean: no finding" 0 "$(q '.findings | length')"

# --- 2. a new host's data link down, the worker still reachable ---------------------------
run lab_exec h4 ip link set eth0 down
run lab_exec h1 ip link set eth0 down
accept
assert_eq "h4 down: rc" 1 "$rc"
assert_eq "h4 down: verdict" REJECT "$(q .verdict)"
assert_eq "h4 down: failed stage" 1 "$(q .failed_stage)"
assert_eq "h4 down: the finding" \
	"FAB-REACH-PORT-DOWN $P-h4: eth0 down (admin down, operstate down): the data-path interface" "$(reach)"
assert_eq "h4 down: only h4 named (h1 is existing)" "$P-h4" "$(q '[.findings[].node] | unique | join(",")')"
assert_eq "h4 down: every node reached" "$(q '.nodes.list | length')" "$(q '[.nodes.list[] | select(.reached)] | length')"
assert_eq "h4 down: 7 nodes in the list" 7 "$(q '.nodes.list | length')"
q '.stages[0].note' | grep -q "2 judged, 1 down, 0 below rated or expected; existing hosts' ports read on 2, 1 problem there not judged" ||
	fail "h4 down: stage 1 note: $(q '.stages[0].note')"
assert_eq "h4 down: stages 2-6 blocked (traffic off)" "blocked blocked blocked skipped blocked" \
	"$(q '[.stages[1:][].status] | join(" ")')"
run lab_exec h4 ip link set eth0 up
run lab_exec h1 ip link set eth0 up
run lab_lldp_wait

# --- 3. a new host's cable pulled at the leaf ---------------------------------------------
run lab_cut h2:eth0
accept
assert_eq "h2 cut: rc" 1 "$rc"
assert_eq "h2 cut: failed stage" 1 "$(q .failed_stage)"
reach | grep -Eq "^FAB-REACH-PORT-DOWN $P-h2: eth0 down \(operstate [a-z]+\): the data-path interface$" ||
	fail "h2 cut: the finding: $(reach)"
assert_eq "h2 cut: one finding" 1 "$(q '.findings | length')"
run lab_mend h2:eth0
run lab_lldp_wait

# --- 4. rated speeds ------------------------------------------------------------------------
sed -E "s/^($P-h2 .*)/\1 rate_gbps=25/" "$TMP/hosts" >"$TMP/hosts.25"
grep -q "^$P-h2 .*rate_gbps=25" "$TMP/hosts.25" || fail "hosts.25: edit did not apply"
accept --hosts "$TMP/hosts.25"
assert_eq "rated 25: rc" 1 "$rc"
assert_eq "rated 25: failed stage" 1 "$(q .failed_stage)"
assert_eq "rated 25: the finding" \
	"FAB-REACH-PORT-DEGRADED $P-h2: eth0 10000 Mb/s, rated 25 Gb/s (rate_gbps=): the data-path interface" "$(reach)"
sed -E "s/^($P-h2 .*)/\1 rate_gbps=10/" "$TMP/hosts" >"$TMP/hosts.10"
accept --hosts "$TMP/hosts.10"
assert_eq "rated 10: rc" 0 "$rc"
assert_eq "rated 10: stage 1" passed "$(q '.stages[0].status')"
sed 's/^port_rate_gbps: 0$/port_rate_gbps: 40/' "$TMP/policy.yaml" >"$TMP/policy.40"
grep -q '^port_rate_gbps: 40$' "$TMP/policy.40" || fail "policy.40: edit did not apply"
accept --policy "$TMP/policy.40"
assert_eq "policy 40: rc" 1 "$rc"
assert_eq "policy 40: both new hosts, nothing else" \
	"FAB-REACH-PORT-DEGRADED $P-h2: eth0 10000 Mb/s, rated 40 Gb/s (the policy's port_rate_gbps): the data-path interface
FAB-REACH-PORT-DEGRADED $P-h4: eth0 10000 Mb/s, rated 40 Gb/s (the policy's port_rate_gbps): the data-path interface" \
	"$(reach | sort)"
assert_eq "policy 40: only stage 1 findings" 2 "$(q '.findings | length')"
q '.stages[0].note' | grep -q "existing hosts' ports read on 2, 2 problems there not judged" ||
	fail "policy 40: the existing hosts' slow ports not counted: $(q '.stages[0].note')"

# --- 5. ifname= naming an interface the host lacks -------------------------------------------
sed -E "s/^($P-h4 .*)/\1 ifname=eth7/" "$TMP/hosts" >"$TMP/hosts.if"
accept --hosts "$TMP/hosts.if"
assert_eq "ifname: rc" 1 "$rc"
reach | grep -q "^FAB-REACH-PORT-UNREAD $P-h4: no data-path interface for $(lab_addr h4): .*eth7" ||
	fail "ifname: the finding: $(reach)"
echo "accept-ports: all checks passed" >&2
