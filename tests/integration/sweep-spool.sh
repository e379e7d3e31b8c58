#!/bin/bash
# The sweep's results on file (io/pair_store.h, issue 15): with the
# store's memory budget forced to nothing (FABRICCTL_SPOOL_MEM=0) every
# pair goes to an unlinked file in $TMPDIR from the first round, and the
# sweep must say exactly what it says from memory.  On a 6-host netns lab
# with a cabling plan:
#   - a dry run: the JSON (streamed), the CSV and the text are identical
#     with and without the file, bar the times;
#   - a measured sweep, with a slowed host, and an all-pairs sweep without
#     a topology: the same verdicts as in memory, the slow host's pairs
#     re-tested, and nothing left in TMPDIR after (no name was made);
#   - TMPDIR that does not exist: the sweep fails with one clear error
#     naming it before the first round (exit 3, no worker started), not
#     when the results outgrow memory hours later.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq tc
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=sp$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P"; }

run lab_up --name "$P" --hosts 6 --leaves 2 --spines 1 --no-lldp
lab_hostsfile >"$TMP/hosts"
lab_planfile >"$TMP/plan.yaml"
H3=$(lab_ns h3)
mkdir "$TMP/spool"
OPTS=(--launcher netns --duration 0.3 --lat-iters 100 --topology "$TMP/plan.yaml")
times='del(.wall_s, .started_unix)'

# sweep NAME ENV... -- ARGS: -j output in $TMP/NAME.json, --csv in $TMP/NAME.csv
sweep() {
	local name=$1
	shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	rc=0
	run env TMPDIR="$TMP/spool" "${envs[@]}" "$FABRICCTL" -j sweep --hosts "$TMP/hosts" "${OPTS[@]}" \
		--csv "$TMP/$name.csv" "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" || rc=$?
}

# The dry run: deterministic, so byte for byte.
run env TMPDIR="$TMP/spool" "$FABRICCTL" -j sweep --hosts "$TMP/hosts" "${OPTS[@]}" --dry-run >"$TMP/dry-mem.json"
run env TMPDIR="$TMP/spool" FABRICCTL_SPOOL_MEM=0 "$FABRICCTL" -j sweep --hosts "$TMP/hosts" "${OPTS[@]}" \
	--dry-run >"$TMP/dry-file.json"
assert_eq "dry run: pairs" 15 "$(jq '.pairs | length' "$TMP/dry-file.json")"
assert_eq "dry run: round_pairs hold every pair" 15 "$(jq '[.schedule.round_pairs[][]] | length' "$TMP/dry-file.json")"
assert_eq "dry run: every pair has a path" 15 "$(jq '[.pairs[] | select(.path | length >= 2)] | length' "$TMP/dry-file.json")"
[ "$(jq -S "$times" "$TMP/dry-mem.json")" = "$(jq -S "$times" "$TMP/dry-file.json")" ] ||
	fail "dry run: the document on file differs from the one in memory"
echo "  ok: dry run: the same document from memory and from the file" >&2
run env TMPDIR="$TMP/spool" "$FABRICCTL" sweep --hosts "$TMP/hosts" "${OPTS[@]}" --dry-run >"$TMP/dry-mem.txt"
run env TMPDIR="$TMP/spool" FABRICCTL_SPOOL_MEM=0 "$FABRICCTL" sweep --hosts "$TMP/hosts" "${OPTS[@]}" --dry-run >"$TMP/dry-file.txt"
cmp "$TMP/dry-mem.txt" "$TMP/dry-file.txt" || fail "dry run: the text differs"
echo "  ok: dry run: the same text" >&2

# A measured sweep with h3 at 100 Mbit/s, on file: its 5 pairs slow, confirmed by retest.
run lab_slow h3 100mbit
sweep file FABRICCTL_SPOOL_MEM=0 --
echo "file: $(jq -c .summary "$TMP/file.json")" >&2
assert_eq "on file: rc" 1 "$rc"
assert_eq "on file: pairs" 15 "$(jq '.pairs | length' "$TMP/file.json")"
assert_eq "on file: h3's pairs slow" 5 \
	"$(jq --arg h "$H3" '[.pairs[] | select(.status == "slow" and (.a == $h or .b == $h))] | length' "$TMP/file.json")"
assert_eq "on file: slow pairs re-tested" true "$(jq '[.pairs[] | select(.status == "slow") | .retested] | all' "$TMP/file.json")"
assert_eq "on file: summary counts the pairs" 15 "$(jq '.summary.ok + .summary.slow + .summary.failed + .summary.regressed' "$TMP/file.json")"
assert_eq "on file: CSV rows" 16 "$(wc -l <"$TMP/file.csv")"
assert_eq "on file: top suspect is h3's access link" "$H3" \
	"$(jq -r '[.suspects[] | select(.kind)][0].node' "$TMP/file.json")"
assert_eq "on file: nothing left in TMPDIR" "" "$(ls -A "$TMP/spool")"

# Without a topology: all pairs from the circle method, the node suspects by count.
OPTS=(--launcher netns --duration 0.3 --lat-iters 100)
sweep notopo FABRICCTL_SPOOL_MEM=0 --
assert_eq "no topology, on file: rc" 1 "$rc"
assert_eq "no topology, on file: rounds" 5 "$(jq .rounds "$TMP/notopo.json")"
assert_eq "no topology, on file: the suspect" "$H3" "$(jq -r '.suspects[0].node' "$TMP/notopo.json")"
assert_eq "no topology, on file: nothing left in TMPDIR" "" "$(ls -A "$TMP/spool")"

# A TMPDIR that is not there: one clear error, exit 3.
rc=0
env TMPDIR="$TMP/no-such-dir" FABRICCTL_SPOOL_MEM=0 "$FABRICCTL" -j sweep --hosts "$TMP/hosts" "${OPTS[@]}" \
	>"$TMP/bad.json" 2>"$TMP/bad.err" || rc=$?
assert_eq "missing TMPDIR: exit" 3 "$rc"
grep -q "sweep: round\|re-testing" "$TMP/bad.err" && fail "missing TMPDIR: rounds ran first: $(cat "$TMP/bad.err")"
grep -q "spool: temporary file in $TMP/no-such-dir" "$TMP/bad.err" || fail "missing TMPDIR: $(cat "$TMP/bad.err")"
echo "  ok: missing TMPDIR: $(cat "$TMP/bad.err")" >&2
echo "sweep-spool: all checks passed"
