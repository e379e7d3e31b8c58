#!/bin/bash
# Benchmark: InfiniBand subnet sanity (discover --checks) on the 1296-HCA
# 3-level fat tree (369 switches, 3888 links) under ibsim, routed by
# opensm's ftree.  The checks are routes (1,678,320 ordered CA pairs
# through the LFTs), credit-loops (the channel dependency graph of those
# routes) and balance (routes per link per direction, per tier); their
# compute time is what `fabricctl -v discover` reports ("checks: X ms":
# the analysis alone, after the walk and the LFT read, which it also
# prints).  Prints the balance figure per tier (min / median / max routes
# per link and max over median), the compute time (min and median of
# REPS runs) and the LFT read time; fails when a pair is unreachable, a
# credit loop is found, a tier's max is over IB_BALANCE_BOUND times its
# median (default 1.0: ftree spreads a full fat tree exactly evenly,
# docs/discover.md), or the median compute time is over
# CHECKS_TARGET_MS (default 1000).  Then the same fabric under updn, once,
# for comparison (printed, not judged: updn leaves core links idle here).
#   REPS=N (default 5)
set -eu
. "$(dirname "$0")/../lib/common.sh"
need_cmd ibsim opensm jq
[ -r /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ] || skip "libumad2sim.so missing"
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built"
. "$TOP/tests/lab/ibsim"
REPS=${REPS:-5}
TARGET=${CHECKS_TARGET_MS:-1000}
BOUND=${IB_BALANCE_BOUND:-1.0}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-ib-checks.$$.XXXXXX")
cleanup() { local rc=$?; ibsim_stop || true; rm -rf "$WORK"; exit "$rc"; }
trap cleanup EXIT

"$TOP/tests/lab/gen-fattree" --levels 3 --radix 18 --hcas 1296 -o "$WORK/ft3.net"
ibsim_start "$WORK/ft3.net" 2>/dev/null

route() { # ENGINE: one opensm sweep with it
	rm -rf "$WORK/osm"
	mkdir -p "$WORK/osm"
	OSM_TMP_DIR=$WORK/osm OSM_CACHE_DIR=$WORK/osm \
		ibsim_run timeout 120 opensm -o -R "$1" -f "$WORK/osm/log" >/dev/null 2>&1 ||
		fail "opensm -R $1 failed"
	grep -q "$1 tables configured on all switches" "$WORK/osm/log" || fail "opensm did not route with $1"
}
checks() { # NAME: one discover --checks, JSON in NAME.json, "checks_ms lft_ms" appended to NAME.ms
	ibsim_run "$FABRICCTL" -v discover --ib --no-counters --checks routes,credit-loops,balance -j \
		>"$WORK/$1.json" 2>"$WORK/$1.err" || true
	awk '/^fabricctl: checks: / { c = $3 } /forwarding tables of/ { for (i = 1; i < NF; i++) if ($(i + 1) == "ms") l = $i }
	     END { if (c == "") exit 1; print c, l }' "$WORK/$1.err" >>"$WORK/$1.ms" ||
		fail "no checks time from $1: $(tail -3 "$WORK/$1.err")"
}
tiers() { # NAME: one line per tier
	jq -r '.ib_checks.balance.tiers[] | "    \(.tier)\t\(.links) links  routes min \(.min) median \(.median) max \(.max)  max/median \(if .median > 0 then (.max / .median * 100 | round / 100) else "-" end)  over 2x: \(.outliers)"' \
		"$WORK/$1.json"
}
stats() { # FILE COLUMN -> "min median"
	awk -v c="$2" '{ print $c }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END { printf "%.1f %.1f\n", v[1], v[int((NR + 1) / 2)] }'
}

route ftree
for i in $(seq 1 "$REPS"); do
	checks ftree
done
read -r pairs unreach loops < <(jq -r '.ib_checks | "\(.routes.pairs) \(.routes.unreachable) \(.credit_loops.loops)"' "$WORK/ftree.json")
read -r cmin cmed < <(stats "$WORK/ftree.ms" 1)
read -r _ lmed < <(stats "$WORK/ftree.ms" 2)
printf 'ib checks, 1296-HCA 3-level fat tree under ftree (369 switches, 3888 links), %s runs; load %s\n' \
	"$REPS" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  routes: %s pairs, %s unreachable; credit loops: %s (%s dependencies)\n' "$pairs" "$unreach" \
	"$loops" "$(jq .ib_checks.credit_loops.dependencies "$WORK/ftree.json")"
echo "  balance (routes per link per direction):"
tiers ftree
printf '  compute (routes + credit loops + balance): min %s ms, median %s ms (target <= %s); LFT read median %s ms\n' \
	"$cmin" "$cmed" "$TARGET" "$lmed"
rc=0
[ "$pairs" = 1678320 ] || { echo "ib-checks bench: $pairs pairs, not 1678320"; rc=1; }
[ "$unreach" = 0 ] || { echo "ib-checks bench: $unreach pairs unreachable"; rc=1; }
[ "$loops" = 0 ] || { echo "ib-checks bench: $loops credit loops"; rc=1; }
over=$(jq -r --argjson b "$BOUND" '.ib_checks.balance.tiers[] | select(.max > .median * $b) | .tier' "$WORK/ftree.json")
[ -z "$over" ] || { echo "ib-checks bench: tiers over max/median $BOUND: $over"; rc=1; }
awk -v m="$cmed" -v t="$TARGET" 'BEGIN { exit !(m <= t) }' ||
	{ echo "ib-checks bench: TARGET MISSED (median $cmed ms > $TARGET ms)"; rc=1; }

route updn
checks updn
echo "  for comparison, updn on the same fabric (no root given), $(jq .ib_checks.routes.unreachable "$WORK/updn.json") unreachable, $(jq .ib_checks.credit_loops.loops "$WORK/updn.json") credit loops, compute $(awk '{ print $1 }' "$WORK/updn.ms") ms:"
tiers updn
exit "$rc"
