#!/bin/bash
# Loading is linear in the size of a topology (issue 22, item 9): a
# cabling plan of LOAD_N (100000) links and about as many nodes
# (gen-big-plan.awk), `sweep --topology PLAN --dry-run -j` over four of its
# hosts, then `diagnose --from` that document made a measured sweep (its
# topology: the same 100k nodes and links).  8419e42 took 10.8 s at 20k
# and over 120 s at 100k for the dry run, over 120 s at 60k for diagnose
# (node lookups by name were a scan).  Target: each at most LOAD_TARGET_S
# (10) seconds wall, median of LOAD_RUNS (3), on this shared 2-core machine.
# No reference tool: the target is absolute.  Peak RSS printed beside it.
set -u
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd jq awk /usr/bin/time
need_fabricctl
N=${LOAD_N:-100000}
RUNS=${LOAD_RUNS:-3}
TARGET=${LOAD_TARGET_S:-10}
tmpdir_with_cleanup

awk -v N="$N" -f "$TOP/tests/bench/gen-big-plan.awk" >"$TMP/plan.yaml" || fail "gen-big-plan.awk"
printf 'h1 10.0.0.1\nh2 10.0.0.2\nh3 10.0.0.3\nh4 10.0.0.4\n' >"$TMP/hosts"

# timed NAME CMD...: run CMD RUNS times (stdout to $TMP/NAME.out); the
# median wall seconds in $med, the largest max RSS (KiB) in $rss.
timed() {
	local name=$1 s=() r=0 rc
	shift
	for _ in $(seq "$RUNS"); do
		rc=0
		/usr/bin/time -f '%e %M' -o "$TMP/time" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || rc=$?
		[ "$rc" -le 1 ] || { cat "$TMP/$name.err" >&2; fail "$name: rc $rc"; }
		s+=("$(tail -n 1 "$TMP/time" | cut -d' ' -f1)")
		r=$(( $(tail -n 1 "$TMP/time" | cut -d' ' -f2) > r ? $(tail -n 1 "$TMP/time" | cut -d' ' -f2) : r ))
	done
	med=$(printf '%s\n' "${s[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	rss=$r
	echo "load $name, $N links: ${s[*]} s, median $med s (target <= $TARGET s), max RSS $((rss / 1024)) MiB; load $(cut -d' ' -f1 /proc/loadavg)"
}

timed dry-run "$FABRICCTL" -j sweep --hosts "$TMP/hosts" --topology "$TMP/plan.yaml" --dry-run
dry=$med
[ "$(jq '.topology.links | length' "$TMP/dry-run.out")" = "$N" ] || fail "dry run: not $N links"
jq '.dry_run = false | .pairs |= map(. + {bw_ab: {avg_mbps: 1000}, bw_ba: {avg_mbps: 1000},
	status: (if .class == 4 then "slow" else "ok" end)})' "$TMP/dry-run.out" >"$TMP/sweep.json"
timed diagnose "$FABRICCTL" diagnose --from "$TMP/sweep.json"
grep -q 'one of 2 links' "$TMP/diagnose.out" || fail "diagnose: the spine's links not named"
miss=0
awk -v a="$dry" -v t="$TARGET" 'BEGIN { exit !(a <= t) }' || { echo "load: dry run target missed"; miss=1; }
awk -v a="$med" -v t="$TARGET" 'BEGIN { exit !(a <= t) }' || { echo "load: diagnose target missed"; miss=1; }
exit $miss
