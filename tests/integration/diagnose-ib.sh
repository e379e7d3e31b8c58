#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# sweep --topology ib and diagnose --from on ibsim: a 2-level fat tree of
# 32 HCAs (radix 8: 8 leaves, 4 spines), opensm programs the LFTs.
#  1. sweep --topology ib --dry-run: 496 pairs planned in rounds within
#     1.25 x the bound the schedule proves, every pair with its route read
#     from the forwarding tables (first and last hop: the two HCAs'
#     cables), the PMA counters of every port recorded.
#  2. A sweep result in which exactly the pairs routed through
#     leaf-001 port 5 <-> spine-01 are slow (the pairs are picked from the
#     routes in the file; the diagnosis recomputes them from the live LFTs):
#     - with symbol errors set on another port (leaf-002 port 6) since the
#       snapshot: diagnose --from names that link, both ends, exit 1, and
#       its score is lowered ("counters clean here, errors elsewhere");
#     - then symbol errors on leaf-001 port 5 itself: the same link, the
#       counter delta cited (symbol_errors +40, error), score raised; its
#       two ends on the cable scale (docs/optics.md): leaf-001 port 5
#       failing on its symbol error ratio, spine-01 port 1 healthy, then
#       marginal after a link down and a retrain there.
#  3. The same file against a healthy result (every pair ok): no suspect,
#     exit 0.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd ibsim opensm jq
need_fabricctl
[ -r /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ] || skip "libumad2sim.so missing (ibsim-utils)"
# shellcheck source=../lab/ibsim
. "$TOP/tests/lab/ibsim"

tmpdir_with_cleanup diagnose-ib
cleanup_hook() { ibsim_stop; }

run "$TOP/tests/lab/gen-fattree" --levels 2 --radix 8 --hcas 32 -o "$TMP/ft.net"
ibsim_start "$TMP/ft.net"
run ibsim_sm
for i in $(seq 1 32); do printf 'h%04d 10.99.0.%d\n' "$i" "$i"; done >"$TMP/hosts"

fab() { # OUT ARGS...: fabricctl under umad2sim, stdout to $TMP/OUT, status in $rc
	local out=$1
	shift
	rc=0
	ibsim_run "$FABRICCTL" "$@" >"$TMP/$out" 2>"$TMP/$out.err" || rc=$?
	grep -v ibwarn "$TMP/$out.err" | tail -n 3 >&2 || true
}

# --- 1. the plan ---------------------------------------------------------------
fab plan.json -j sweep --hosts "$TMP/hosts" --topology ib --dry-run
assert_eq "dry run: rc" 0 "$rc"
q() { jq -r "$@" "$TMP/plan.json"; }
assert_eq "dry run: pairs planned" 496 "$(q '[.pairs[] | select(.status == "planned")] | length')"
assert_eq "dry run: source" ib "$(q .topology.source)"
rounds=$(q .schedule.rounds) bound=$(q .schedule.bound.bound)
echo "IB: 496 pairs in $rounds rounds, bound $bound ($(q -c .schedule.bound))" >&2
[ $((rounds * 4)) -le $((bound * 5)) ] || fail "$rounds rounds > 1.25 x bound $bound"
assert_eq "every pair routed both ways" 496 \
	"$(q '[.pairs[] | select((.routes.ab | length) == 1 and (.routes.ba | length) == 1)] | length')"
assert_eq "routes start and end at the two HCAs" 496 \
	"$(q '[.pairs[] | select(.routes.ab[0].hops[0].from.node == .a and .routes.ab[0].hops[-1].to.node == .b)] | length')"
assert_eq "counters recorded for every port of the walk" yes \
	"$(q 'if (.counters | length) > 32 * 7 and ([.counters[].name] | index("symbol_errors")) != null then "yes" else "no" end')"

# --- 2. a result with the pairs through one uplink slow ------------------------------
sel='any(.path[]; (.a.node == "leaf-001" and .a.port == 5 and .b.node == "spine-01") or (.b.node == "leaf-001" and .b.port == 5 and .a.node == "spine-01"))'
jq "(.pairs[] | select($sel)) |= (.status = \"slow\" | .pct_expected = 20) |
    (.pairs[] | select(($sel) | not)) |= (.status = \"ok\" | .pct_expected = 95)" \
	"$TMP/plan.json" >"$TMP/slow.json"
nslow=$(jq '[.pairs[] | select(.status == "slow")] | length' "$TMP/slow.json")
echo "pairs routed through leaf-001 port 5: $nslow of 496" >&2
[ "$nslow" -ge 8 ] || fail "only $nslow pairs cross leaf-001 port 5"

LINK='link leaf-001 5 spine-01'
suspect() { jq -r '.suspects[0] | "\(.kind) \(.link.a.node) \(.link.a.port) \(.link.b.node)"' "$TMP/$1"; }

run ibsim_console 'PerformanceSet "leaf-002"[6] PortCounters.SymbolErrorCounter=50'
fab d1.json -j diagnose --from "$TMP/slow.json" --topology ib
assert_eq "errors elsewhere: rc" 1 "$rc"
assert_eq "errors elsewhere: the link" "$LINK" "$(suspect d1.json)"
assert_eq "errors elsewhere: evidence" "$nslow/$nslow 0/$((496 - nslow))" \
	"$(jq -r '.suspects[0].evidence | "\(.cross_bad)/\(.cross_n) \(.other_bad)/\(.other_n)"' "$TMP/d1.json")"
s1=$(jq '.suspects[0].score' "$TMP/d1.json") t1=$(jq '.suspects[0].traffic_score' "$TMP/d1.json")
echo "errors elsewhere: score $s1 (traffic $t1)" >&2
[ "$(echo "$s1 < $t1" | bc)" = 1 ] || fail "counter errors on another port did not lower the score ($s1 vs $t1)"
assert_eq "errors elsewhere: no counter on the link" 0 "$(jq '.suspects[0].evidence.counters | length' "$TMP/d1.json")"

run ibsim_console 'PerformanceSet "leaf-001"[5] PortCounters.SymbolErrorCounter=40'
fab d2.json -j diagnose --from "$TMP/slow.json" --topology ib
assert_eq "errors on the link: rc" 1 "$rc"
assert_eq "errors on the link: the link" "$LINK" "$(suspect d2.json)"
assert_eq "errors on the link: the counter cited" "leaf-001 5 symbol_errors 40 error" \
	"$(jq -r '.suspects[0].evidence.counters[0] | "\(.port.node) \(.port.port) \(.counter) \(.delta) \(.severity)"' "$TMP/d2.json")"
s2=$(jq '.suspects[0].score' "$TMP/d2.json")
echo "errors on the link: score $s2 (was $s1)" >&2
[ "$(echo "$s2 > $s1" | bc)" = 1 ] || fail "counter errors on the link did not raise the score"
fab d2.txt diagnose --from "$TMP/slow.json" --topology ib
grep -q "slow link: leaf-001 port 5 <-> spine-01 port 1" "$TMP/d2.txt" || fail "text: $(cat "$TMP/d2.txt")"
grep -q "leaf-001 port 5 symbol_errors +40 (error" "$TMP/d2.txt" || fail "text: no counter line"
# The link's two ends on the cable scale (docs/optics.md "InfiniBand"): 40 symbol errors
# since the sweep began are far above 1e-12 per bit; the far end is clean.
ib_end() { jq -r --arg n "$2" --argjson p "$3" '.cables.ib_ports[] | select(.node == $n and .port == $p) |
	"\(.verdict.health) \([.verdict.findings[].code] | join(","))"' "$TMP/$1"; }
echo "cable ends: $(jq -c '[.cables.ib_ports[] | [.node, .port, .verdict.health]]' "$TMP/d2.json")" >&2
assert_eq "cable ends: leaf-001 port 5" "failing symbol_errors" "$(ib_end d2.json leaf-001 5)"
assert_eq "cable ends: spine-01 port 1" "healthy " "$(ib_end d2.json spine-01 1)"
grep -q "^  leaf-001 port 5: failing" "$TMP/d2.txt" || fail "text: no cable end line"
# A retrain and a link down at the far end: two flaps, marginal, reseat.
run ibsim_console 'PerformanceSet "spine-01"[1] PortCounters.LinkDownedCounter=1'
run ibsim_console 'PerformanceSet "spine-01"[1] PortCounters.LinkErrorRecoveryCounter=1'
fab d2b.json -j diagnose --from "$TMP/slow.json" --topology ib
assert_eq "cable ends, flaps: spine-01 port 1" "marginal flaps" "$(ib_end d2b.json spine-01 1)"

# --- 3. a healthy result --------------------------------------------------------------
jq '.pairs[] |= (.status = "ok" | .pct_expected = 95)' "$TMP/plan.json" >"$TMP/ok.json"
fab d3.json -j diagnose --from "$TMP/ok.json" --topology ib
assert_eq "healthy: rc" 0 "$rc"
assert_eq "healthy: no suspect" 0 "$(jq '.suspects | length' "$TMP/d3.json")"
echo "diagnose-ib: all checks passed" >&2
