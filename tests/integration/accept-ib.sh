#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# fabricctl accept on InfiniBand, under ibsim: a 2-level fat tree (radix 8)
# grown by one leaf (leaf-008) and its four HCAs (h0029..h0032), judged
# against an ibnetdiscover plan of the grown fabric.  An IB-only lab has no
# workers: --no-workers skips reach, configuration and traffic, saying so;
# cabling (stage 3) and the counter stages (4, 6) read the subnet from
# this node (umad2sim).
#  1. clean: ACCEPT, exit 0; stages skipped/skipped/passed/passed/skipped/
#     passed; the counter stages read the new nodes' ports and the ports
#     their cables reach (4 HCA ports + 8 leaf-008 ports + 4 leaf-008
#     uplinks' spine ends = 16).
#  1b. a new host the fabric does not hold (h0033), no plan: REJECT at
#     stage 3, FAB-CABLE-MISSING naming it.
#  1c. leaf-001's forwarding entry for the new h0030 taken out (a
#     SubnSet(LFT), tests/tools/ib-lft-set.c): REJECT at stage 3, one
#     FAB-CABLE-ROUTE naming h0030 with its 4 broken routes and where they
#     break; the entry put back: ACCEPT.
#  2. symbol errors set with PerformanceSet on a new HCA port (h0030 port 1)
#     between the two counter reads (during --counter-window, after the
#     baseline line on stderr), and on an existing HCA port (h0001): REJECT
#     at stage 6, one FAB-COUNTER-ERRORS naming h0030 port 1 and the delta;
#     the existing port is not judged.
#  3. the same fabric with leaf-008's first uplink at 1X, h0029 and h0030's
#     cables swapped on leaf-008, and an existing uplink (leaf-001 port 5)
#     at 1X: REJECT at stage 3 with FAB-CABLE-DEGRADED on leaf-008 port 5
#     and FAB-CABLE-MISWIRED saying where each cable should go; the
#     existing 1X link is counted as not judged, not a finding.
#  4. bad input: --no-workers without --topology ib: exit 2.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd ibsim opensm jq awk
need_fabricctl
[ -r /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ] || skip "libumad2sim.so missing (ibsim-utils)"
# shellcheck source=../lab/ibsim
. "$TOP/tests/lab/ibsim"
# accept_summary (accept and q are this script's own, below)
# shellcheck source=../lib/accept.sh
. "$TOP/tests/lib/accept.sh"

tmpdir_with_cleanup accept-ib
cleanup_hook() { ibsim_stop; }

GEN="$TOP/tests/lab/gen-fattree --levels 2 --radix 8 --hcas 32"
{
	for i in $(seq 1 32); do
		printf 'h%04d 10.99.0.%d%s\n' "$i" "$i" "$([ "$i" -gt 28 ] && echo ' new')"
	done
	for i in $(seq 1 8); do
		printf 'leaf-%03d 10.99.254.%d role=leaf%s\n' "$i" "$i" "$([ "$i" = 8 ] && echo ' new')"
	done
} >"$TMP/hosts"

ARGS=(--hosts "$TMP/hosts" --topology ib --no-workers --plan "$TMP/plan.topo"
      --policy "$TOP/examples/accept-policy.yaml")
# accept OUT [ARGS...]: accept -j under umad2sim, JSON to $TMP/OUT, exit status in $rc.
accept() {
	local out=$1
	shift
	rc=0
	ibsim_run "$FABRICCTL" -j accept "${ARGS[@]}" "$@" >"$TMP/$out" 2>"$TMP/$out.err" || rc=$?
	show "$out"
}
show() {
	grep -v ibwarn "$TMP/$1.err" | tail -n 5 >&2 || true
	accept_summary "$TMP/$1"
}
q() { local f=$1; shift; jq -r "$@" "$TMP/$f"; }

# --- the plan: the grown fabric as ibnetdiscover sees it -----------------------------
run $GEN -o "$TMP/clean.net"
ibsim_start "$TMP/clean.net"
run ibsim_sm
run ibsim_run "$FABRICCTL" discover --ib --save-plan "$TMP/plan.topo" >/dev/null 2>"$TMP/plan.err" ||
	{ cat "$TMP/plan.err" >&2; fail "discover --save-plan failed"; }
grep -q '"leaf-008"' "$TMP/plan.topo" || fail "plan has no leaf-008"

# --- 1. clean ---------------------------------------------------------------------------
accept clean.json
assert_eq "clean: rc" 0 "$rc"
assert_eq "clean: verdict" ACCEPT "$(q clean.json .verdict)"
assert_eq "clean: stages" "skipped skipped passed passed skipped passed" \
	"$(q clean.json '[.stages[].status] | join(" ")')"
assert_eq "clean: reach skipped, saying why" yes \
	"$(q clean.json 'if (.stages[0].note | test("--no-workers")) then "yes" else "no" end')"
assert_eq "clean: 4 new, 28 existing, 1 new switch" "4 28 1" \
	"$(q clean.json '.nodes | "\(.new) \(.existing) \(.new_switches)"')"
assert_eq "clean: baseline on the new nodes' ports and their peers" 16 \
	"$(q clean.json '.stages[3].note | capture("on (?<n>[0-9]+) ports").n')"
assert_eq "clean: deltas on the same ports" 16 \
	"$(q clean.json '.stages[5].note | capture("on (?<n>[0-9]+) ports").n')"

# --- 1b. a new host the fabric does not hold, without a plan --------------------------------
{ cat "$TMP/hosts"; echo "h0033 10.99.0.33 new"; } >"$TMP/hosts.ghost"
rc=0
ibsim_run "$FABRICCTL" -j accept --hosts "$TMP/hosts.ghost" --topology ib --no-workers \
	>"$TMP/ghost.json" 2>"$TMP/ghost.json.err" || rc=$?
show ghost.json
assert_eq "absent new host: rc" 1 "$rc"
assert_eq "absent new host: failed stage" 3 "$(q ghost.json .failed_stage)"
assert_eq "absent new host: the finding" "FAB-CABLE-MISSING h0033" \
	"$(q ghost.json '[.findings[] | "\(.code) \(.node)"] | join(";")')"

# --- 1c. the route to a new host taken out at an existing leaf ------------------------------
# One SubnSet(LFT) (tests/tools/ib-lft-set.c) after the SM: leaf-001 forgets
# h0030's LID, so its four HCAs cannot reach the new host.
# shellcheck disable=SC2046 # pkg-config's flags are words
run cc -std=c17 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$TMP/ib-lft-set" "$TOP/tests/tools/ib-lft-set.c" \
	$(pkg-config --libs libibmad libibumad)
ibsim_run ibnetdiscover >"$TMP/ibnet" 2>/dev/null
LEAF1=$(awk '/^Switch.*"leaf-001"/ { match($0, / lid [0-9]+ /); print substr($0, RSTART + 5, RLENGTH - 6); exit }' "$TMP/ibnet")
DLID=$(awk '/^Ca.*"h0030"/ { f = 1; next } f && /^\[[0-9]+\]\(/ { match($0, /# lid [0-9]+ /); print substr($0, RSTART + 6, RLENGTH - 7); exit }' "$TMP/ibnet")
if [ -z "$LEAF1" ] || [ -z "$DLID" ]; then fail "leaf-001 or h0030 lid not found"; fi
ibsim_run "$TMP/ib-lft-set" "$LEAF1" "$DLID" 255 >"$TMP/lft.out" 2>&1 || { cat "$TMP/lft.out" >&2; fail "ib-lft-set"; }
OLD=$(sed -n 's/.*lft\[[0-9]*\] \([0-9]*\) -> .*/\1/p' "$TMP/lft.out")
accept hole.json
assert_eq "route hole: rc" 1 "$rc"
assert_eq "route hole: failed stage" 3 "$(q hole.json .failed_stage)"
assert_eq "route hole: the finding" "FAB-CABLE-ROUTE h0030" \
	"$(q hole.json '[.findings[] | "\(.code) \(.node)"] | join(";")')"
assert_eq "route hole: how many, where and why" "yes" \
	"$(q hole.json 'if (.findings[0].evidence | test("^4 routes to or from it do not reach .*lid '"$DLID"', breaks at leaf-001, lft entry none, 0: no-entry")) then "yes" else .findings[0].evidence end')"
run ibsim_run "$TMP/ib-lft-set" "$LEAF1" "$DLID" "$OLD" >/dev/null
accept healed.json
assert_eq "route restored: verdict" ACCEPT "$(q healed.json .verdict)"

# --- 2. symbol errors between the two counter reads ----------------------------------------
pretty "accept --counter-window 8 in the background; PerformanceSet after the baseline"
rc=0
ibsim_run "$FABRICCTL" -j accept "${ARGS[@]}" --counter-window 8 >"$TMP/sym.json" 2>"$TMP/sym.json.err" &
pid=$!
for _ in $(seq 1 200); do
	grep -q "counters baseline read" "$TMP/sym.json.err" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
grep -q "counters baseline read" "$TMP/sym.json.err" || { cat "$TMP/sym.json.err" >&2; fail "no baseline line"; }
run ibsim_console 'PerformanceSet "h0030"[1] PortCounters.SymbolErrorCounter=25' >/dev/null
run ibsim_console 'PerformanceSet "h0001"[1] PortCounters.SymbolErrorCounter=30' >/dev/null
wait "$pid" || rc=$?
show sym.json
assert_eq "symbol errors: rc" 1 "$rc"
assert_eq "symbol errors: verdict" REJECT "$(q sym.json .verdict)"
assert_eq "symbol errors: failed stage" 6 "$(q sym.json .failed_stage)"
assert_eq "symbol errors: the one finding" "FAB-COUNTER-ERRORS h0030 6" \
	"$(q sym.json '[.findings[] | "\(.code) \(.node) \(.stage)"] | join(";")')"
q sym.json '.findings[0].evidence' | grep -q "h0030 port 1 symbol_errors +25" ||
	fail "symbol errors: evidence: $(q sym.json '.findings[0].evidence')"
q sym.json '.findings[0].link' | grep -q "h0030 port 1 <-> leaf-008 port 2" ||
	fail "symbol errors: link: $(q sym.json '.findings[0].link')"
ibsim_stop

# --- 3. a 1X uplink and two swapped cables on the new leaf -----------------------------------
run $GEN --thin leaf-008:5 --thin leaf-001:5 -o "$TMP/thin.net"
awk '
/^(Switch|Hca)/ { node = $0 }
node ~ /"h0029"$/ && /^\[1\]/ { $0 = "[1]\t\"leaf-008\"[2]" }
node ~ /"h0030"$/ && /^\[1\]/ { $0 = "[1]\t\"leaf-008\"[1]" }
node ~ /"leaf-008"$/ && /^\[1\]/ { $0 = "[1]\t\"h0030\"[1]" }
node ~ /"leaf-008"$/ && /^\[2\]/ { $0 = "[2]\t\"h0029\"[1]" }
{ print }' "$TMP/thin.net" >"$TMP/faults.net"
grep -q '"h0030"\[1\]' <(sed -n '/"leaf-008"$/,/^$/p' "$TMP/faults.net" | sed -n 2p) || fail "faults.net: swap did not apply"
ibsim_start "$TMP/faults.net"
run ibsim_sm
accept faults.json
assert_eq "faults: rc" 1 "$rc"
assert_eq "faults: verdict" REJECT "$(q faults.json .verdict)"
assert_eq "faults: failed stage" 3 "$(q faults.json .failed_stage)"
q faults.json '.findings[] | select(.code == "FAB-CABLE-DEGRADED") | .link' | grep -q "leaf-008 5" ||
	fail "faults: no degraded leaf-008 port 5: $(q faults.json -c .findings)"
q faults.json '.findings[] | select(.code == "FAB-CABLE-DEGRADED") | .evidence' | grep -q "1x" ||
	fail "faults: degraded evidence has no width"
assert_eq "faults: the existing 1X uplink not judged" 0 \
	"$(q faults.json '[.findings[] | select(.link // "" | test("leaf-001"))] | length')"
q faults.json '.stages[2].note' | grep -q "1 problem among existing nodes only" ||
	fail "faults: the existing problem not counted: $(q faults.json '.stages[2].note')"
assert_eq "faults: two miswired cables" 2 \
	"$(q faults.json '[.findings[] | select(.code == "FAB-CABLE-MISWIRED")] | length')"
q faults.json '.findings[] | select(.code == "FAB-CABLE-MISWIRED") | .evidence' | grep -q "should go to" ||
	fail "faults: no 'should go to'"
assert_eq "faults: all findings at stage 3" 0 "$(q faults.json '[.findings[] | select(.stage != 3)] | length')"
ibsim_stop

# --- 4. bad input --------------------------------------------------------------------------------
expect_rc 2 "$FABRICCTL" accept --hosts "$TMP/hosts" --no-workers
echo "accept-ib: all checks passed" >&2
