#!/bin/bash
# fabricctl accept in the netns lab: an existing fabric (leaf1, leaf2, six
# hosts) and a new leaf (leaf3) with three new hosts (h3, h6, h9), lldpd
# everywhere, every cable shaped to 300 Mbit/s (little CPU per measurement:
# slack on a loaded machine), a YAML plan of the lab's cabling and a
# profile (MTU 1500 on eth0).
#  1. clean: ACCEPT, exit 0; every stage that ran passed (stage 1 judged
#     the 3 new hosts' data-path ports up at their rate_gbps=0.3; down and
#     slow ports: accept-ports.sh); the pairs come
#     from the coverage picker: new x new and new x existing only, every
#     new link (the three new cables) and leaf3's uplink crossed by >= 2
#     pairs, none short, fewer than the 36 of all pairs (number printed in
#     the text report); the existing hosts' MTU is unchanged (read before
#     and after).
#  1b. a policy with latency_p99_us: 1: REJECT at stage 5, one
#     FAB-TRAFFIC-LATENCY per measured pair.
#  1c. h6's cable cut and mended during --counter-window (after the
#     traffic): REJECT at stage 6, FAB-COUNTER-ERRORS naming h6 with its
#     carrier_changes delta, read through h6's worker.
#  2. h6 at MTU 9000: REJECT at stage 2, FAB-CONFIG-DRIFT naming h6 and
#     "mtu"; traffic blocked (fail-closed).
#  3. h3 and h9 (new) swap cables: REJECT at stage 3, FAB-CABLE-MISWIRED
#     with "should go to" naming the planned port.
#  4. leaf3's uplink slowed to 60 Mbit/s: REJECT at stage 5,
#     FAB-TRAFFIC-SLOW-LINK naming leaf3 swp49 <-> spine1 swp3.
#  5. a new node whose worker cannot start (its namespace does not exist):
#     REJECT at stage 1, FAB-REACH-NO-WORKER naming it, the other 13
#     nodes (hosts and switches) reported reached; with --keep-going the configuration stage
#     still verifies the reachable new hosts.
#  6. bad input: no new host, a policy below the floor: exit 2.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip tc jq lldpd lldpcli
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"
# shellcheck source=../lib/accept.sh
. "$TOP/tests/lib/accept.sh"

P=ac$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P" || true; }

run lab_up --name "$P" --hosts 9 --leaves 3 --spines 1 --host-rate 300mbit --uplink-rate 300mbit
lab_hostsfile --switches --rate-gbps 0.3 | sed -E "s/^($P-(h3|h6|h9|leaf3) .*)/\1 new/" >"$TMP/hosts"
lab_planfile >"$TMP/plan.yaml"
printf 'name: lab\ninterfaces:\n  - match: "eth0"\n    mtu: 1500\n' >"$TMP/profile.yaml"
run lab_lldp_wait
cat "$TMP/hosts" >&2

ARGS=(--hosts "$TMP/hosts" --launcher netns --profile "$TMP/profile.yaml" --plan "$TMP/plan.yaml"
      --policy "$TOP/examples/accept-policy.yaml" --duration 1 --lat-iters 200)
mtus() { local h; for h in 1 2 4 5 7 8; do lab_exec "h$h" cat /sys/class/net/eth0/mtu; done | paste -sd,; }

# --- 1. clean ---------------------------------------------------------------------
before=$(mtus)
accept
assert_eq "clean: rc" 0 "$rc"
assert_eq "clean: schema" fabricctl.accept/1 "$(q .schema)"
assert_eq "clean: verdict" ACCEPT "$(q .verdict)"
assert_eq "clean: no finding" 0 "$(q '.findings | length')"
assert_eq "clean: stages" "passed passed passed passed passed passed" "$(q '[.stages[].status] | join(" ")')"
q '.stages[0].note' | grep -q "fabric ports of 3 new hosts: 3 judged, 0 down, 0 below rated or expected" ||
	fail "clean: stage 1 did not judge the 3 new hosts' ports (rated 0.3 Gb/s): $(q '.stages[0].note')"
q '.stages[3].note' | grep -q "^counters read on 3 new hosts through their workers" ||
	fail "clean: stage 4 did not read the 3 new hosts' counters: $(q '.stages[3].note')"
assert_eq "clean: 3 new, 6 existing, 1 new switch" "3 6 1" "$(q '.nodes | "\(.new) \(.existing) \(.new_switches)"')"
assert_eq "clean: pairs measured = pairs chosen" "$(q .nodes.pairs_chosen)" "$(q .nodes.pairs_measured)"
assert_eq "clean: 4 links to cross (3 new cables, leaf3's uplink), none short" "4 0" \
	"$(q '.nodes | "\(.links_target) \(.links_short)"')"
n=$(q .nodes.pairs_measured)
[ "$n" -ge 3 ] || fail "clean: $n pairs measured (want 3..35)"
[ "$n" -lt 36 ] || fail "clean: $n pairs measured (want 3..35)"
assert_eq "clean: existing hosts' MTU unchanged" "$before" "$(mtus)"
assert_eq "clean: existing hosts' MTU" "1500,1500,1500,1500,1500,1500" "$before"
"$FABRICCTL" accept "${ARGS[@]}" >"$TMP/text" 2>&1 || fail "text run: exit $?: $(cat "$TMP/text")"
grep -q '^\[ACCEPT\] 7 verdict' "$TMP/text" || fail "text: no ACCEPT line: $(cat "$TMP/text")"
grep -q "traffic .* [0-9]* pairs measured (new x new, new x existing; all pairs would be 36)" "$TMP/text" ||
	fail "text: the number of pairs measured is not printed"

# --- 1b. a latency p99 bound no pair can meet ----------------------------------------------
sed 's/^latency_p99_us: 0$/latency_p99_us: 1/' "$TOP/examples/accept-policy.yaml" >"$TMP/policy.lat"
grep -q '^latency_p99_us: 1$' "$TMP/policy.lat" || fail "policy.lat: edit did not apply"
accept --policy "$TMP/policy.lat"
assert_eq "latency bound: rc" 1 "$rc"
assert_eq "latency bound: failed stage" 5 "$(q .failed_stage)"
assert_eq "latency bound: one FAB-TRAFFIC-LATENCY per measured pair" "$(q .nodes.pairs_measured)" \
	"$(q '[.findings[] | select(.code == "FAB-TRAFFIC-LATENCY" and .stage == 5)] | length')"
q '[.findings[] | select(.code == "FAB-TRAFFIC-LATENCY")][0].evidence' | grep -q "above the policy's 1 us" ||
	fail "latency bound: evidence: $(q -c '.findings[0]')"

# --- 1c. a new host's cable flaps between the two counter reads ------------------------------
pretty "$FABRICCTL -j accept ${ARGS[*]} --counter-window 4 (h6's cable cut and mended in the window)"
rc=0
"$FABRICCTL" -j accept "${ARGS[@]}" --counter-window 4 >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 1 600); do
	grep -q "counter window" "$TMP/err" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
grep -q "counter window" "$TMP/err" ||
	{ wait "$pid" || true; accept_summary "$TMP/out"; fail "flap: accept never reached its counter window: $(cat "$TMP/err")"; }
run lab_cut h6:eth0
sleep 0.5
run lab_mend h6:eth0
wait "$pid" || rc=$?
assert_eq "flap: rc" 1 "$rc"
assert_eq "flap: failed stage" 6 "$(q .failed_stage)"
assert_eq "flap: traffic passed before it" passed "$(q '.stages[4].status')"
q '.findings[] | select(.stage == 6 and .code == "FAB-COUNTER-ERRORS" and .node == "'"$P"'-h6") | .evidence' |
	grep -q "carrier_changes +[1-9]" || fail "flap: no carrier_changes finding on h6: $(q -c .findings)"
assert_eq "flap: only h6 named" "$P-h6" "$(q '[.findings[].node] | unique | join(",")')"
run lab_lldp_wait

# --- 2. a new host with the wrong MTU -----------------------------------------------------
run lab_set_mtu h6 eth0 9000
accept
assert_eq "wrong MTU: rc" 1 "$rc"
assert_eq "wrong MTU: verdict" REJECT "$(q .verdict)"
assert_eq "wrong MTU: failed stage" 2 "$(q .failed_stage)"
assert_eq "wrong MTU: the drift" "FAB-CONFIG-DRIFT $P-h6 eth0 mtu: wanted 1500, found 9000" \
	"$(q '.findings[] | select(.stage == 2) | "\(.code) \(.node) \(.evidence)"')"
assert_eq "wrong MTU: traffic blocked" blocked "$(q '.stages[4].status')"
assert_eq "wrong MTU: existing hosts' MTU unchanged" "$before" "$(mtus)"
run lab_set_mtu h6 eth0 1500

# --- 3. two new hosts' cables swapped ------------------------------------------------------
run lab_swap h3 h9
run lab_lldp_wait
accept
assert_eq "swap: rc" 1 "$rc"
assert_eq "swap: failed stage" 3 "$(q .failed_stage)"
assert_eq "swap: config passed first" passed "$(q '.stages[1].status')"
q '.findings[] | select(.code == "FAB-CABLE-MISWIRED") | .evidence' | grep -q "$P-h3 eth0 is cabled to $P-leaf3 swp3; it should go to $P-leaf3 swp1" ||
	fail "swap: no miswiring of h3 with where it should go: $(q -c .findings)"
assert_eq "swap: traffic blocked" blocked "$(q '.stages[4].status')"
run lab_swap h3 h9
run lab_lldp_wait

# --- 4. the new leaf's uplink slowed -------------------------------------------------------
run lab_slow leaf3:swp49 60mbit
accept
assert_eq "slow uplink: rc" 1 "$rc"
assert_eq "slow uplink: failed stage" 5 "$(q .failed_stage)"
assert_eq "slow uplink: the uplink named" "FAB-TRAFFIC-SLOW-LINK $P-leaf3 swp49 <-> $P-spine1 swp3" \
	"$(q '[.findings[] | select(.stage == 5) | "\(.code) \(.link)"] | first')"
assert_eq "slow uplink: only traffic findings" 0 "$(q '[.findings[] | select(.stage != 5)] | length')"
run lab_unslow leaf3:swp49

# --- 5. a new node without a worker --------------------------------------------------------
{ cat "$TMP/hosts"; echo "$P-h10 10.77.0.10 leaf=$P-leaf3 rate_gbps=0.3 new"; } >"$TMP/hosts.ghost"
ARGS[1]=$TMP/hosts.ghost
accept
assert_eq "no worker: rc" 1 "$rc"
assert_eq "no worker: failed stage" 1 "$(q .failed_stage)"
assert_eq "no worker: the finding" "FAB-REACH-NO-WORKER $P-h10" "$(q '.findings[] | "\(.code) \(.node)"')"
assert_eq "no worker: the other 13 nodes reported reached" 13 "$(q '[.nodes.list[] | select(.reached)] | length')"
assert_eq "no worker: stages 2-6 blocked" "blocked blocked blocked blocked blocked" \
	"$(q '[.stages[1:][].status] | join(" ")')"
accept --keep-going
assert_eq "no worker, --keep-going: rc" 1 "$rc"
assert_eq "no worker, --keep-going: the reachable new hosts verified" "0" \
	"$(q '[.findings[] | select(.code == "FAB-CONFIG-DRIFT")] | length')"
assert_eq "no worker, --keep-going: the ghost cannot be verified" "FAB-CONFIG-UNREAD $P-h10" \
	"$(q '.findings[] | select(.stage == 2) | "\(.code) \(.node)"')"
ARGS[1]=$TMP/hosts

# --- 6. bad input ----------------------------------------------------------------------------
sed 's/ new$//' "$TMP/hosts" >"$TMP/hosts.old"
expect_rc 2 "$FABRICCTL" accept --hosts "$TMP/hosts.old" --launcher netns
printf 'pct_expected: 50\n' >"$TMP/policy.low"
expect_rc 2 "$FABRICCTL" accept --hosts "$TMP/hosts" --launcher netns --policy "$TMP/policy.low"
"$FABRICCTL" accept --hosts "$TMP/hosts" --launcher netns --policy "$TMP/policy.low" 2>&1 | grep -q "policy.low:1:" ||
	fail "the policy error does not point at the line"
echo "accept-netns: all checks passed" >&2
