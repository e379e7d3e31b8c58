#!/bin/bash
# Sweep efficiency on 16 netns hosts (two leaves, one spine):
#   wall time of the sweep / (rounds x per-pair test time)
# where the per-pair test time is the wall time of a sweep of one pair of
# the same lab with the same options, measured in the same run (so it
# includes one worker start-up).  No retest in either.  Target <= 1.10:
# no sleeps, no serial start-ups.  On a small shared box the lone pair is
# faster than the same pair among n/2 concurrent ones (CPU contention), so
# a second ratio isolates the controller's own overhead: wall time / sum
# over rounds of the slowest pair's own session time (the pairs' test_s).
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make)"
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

N=${N:-16}
DUR=${DUR:-0.5}
ITERS=${ITERS:-200}
P=bs$$
TMP=$(mktemp -d)
cleanup() {
	local rc=$?
	lab_down --name "$P" || true
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT

LAB_QUIET=1 lab_up --name "$P" --hosts "$N" --leaves 2 --spines 1 --no-lldp >/dev/null
lab_hostsfile >"$TMP/hosts"
head -2 "$TMP/hosts" >"$TMP/pair"
OPTS=(--launcher netns --transport tcp --duration "$DUR" --lat-iters "$ITERS" --no-retest)

# One pair alone, three times; the median is the per-pair test time.
for i in 1 2 3; do
	"$FABRICCTL" -j sweep --hosts "$TMP/pair" "${OPTS[@]}" >"$TMP/pair.json" || true
	jq .wall_s "$TMP/pair.json"
done | sort -g | sed -n 2p >"$TMP/pair_s"
"$FABRICCTL" -j sweep --hosts "$TMP/hosts" "${OPTS[@]}" >"$TMP/all.json" || true
jq -c .summary "$TMP/all.json" >&2
awk -v p="$(cat "$TMP/pair_s")" -v w="$(jq .wall_s "$TMP/all.json")" -v r="$(jq .rounds "$TMP/all.json")" \
	-v n="$N" 'BEGIN { printf "sweep efficiency: %d hosts, %d rounds, wall %.2f s / (%d x %.3f s per lone pair) = %.3f (target <= 1.10)\n", n, r, w, r, p, w / (r * p) }'
busy=$(jq '[.pairs | group_by(.round)[] | map(.test_s) | max] | add' "$TMP/all.json")
awk -v b="$busy" -v w="$(jq .wall_s "$TMP/all.json")" \
	'BEGIN { printf "sweep overhead:   wall %.2f s / sum of the rounds'"'"' slowest sessions %.2f s = %.3f\n", w, b, w / b }'
