#!/bin/bash
# Sweep efficiency on 16 netns hosts (two leaves, one spine):
#   wall time of the sweep / (rounds x per-pair test time)
# The per-pair test time is the session time (test_s: listen, handshake,
# latency phase, both bandwidth directions, until both ends answered) of
# one pair tested alone on the same lab with the same options, median of
# three, measured in the same run.  The sweep's wall time includes its
# worker start-up and shutdown; the lone pair's test time does not (its
# wall time, which does, is printed too).  No retest in either.
#
# The latency phase is time-bounded (--lat-time, with a --lat-iters cap
# that is not reached): a pair's test time is then fixed by its plan,
# lat-time + 2 x duration, instead of growing with the round-trip time
# when n/2 pairs share two CPUs (LAT_TIME=0 gives the count-bound
# behaviour: --lat-iters $ITERS round trips whatever they take).
#
# Second ratio, the controller's own overhead: wall time / sum over rounds
# of the round's slowest session.  Third line: where the rounds' time
# goes (mean over rounds of the slowest pair's latency phase and of its
# bandwidth phases as measured by the receivers).  Target <= 1.10 on the
# first ratio; exit 1 when it is missed.
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
LAT_TIME=${LAT_TIME:-0.05}
if [ "$LAT_TIME" = 0 ]; then ITERS=${ITERS:-200}; else ITERS=${ITERS:-100000}; fi
P=bs$$
TMP=$(mktemp -d)
cleanup() {
	local rc=$?
	lab_down --name "$P" >/dev/null 2>&1 || true
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT

LAB_QUIET=1 lab_up --name "$P" --hosts "$N" --leaves 2 --spines 1 --no-lldp >/dev/null
lab_hostsfile >"$TMP/hosts"
head -2 "$TMP/hosts" >"$TMP/pair"
OPTS=(--launcher netns --transport tcp --duration "$DUR" --lat-iters "$ITERS" --lat-time "$LAT_TIME"
      --no-retest --no-progress)

# One pair alone, three times; the median test_s is the per-pair test time.
for i in 1 2 3; do
	"$FABRICCTL" -j sweep --hosts "$TMP/pair" "${OPTS[@]}" >"$TMP/pair$i.json" ||
		fail "lone pair sweep failed: $(cat "$TMP/pair$i.json")"
	jq -r '"\(.pairs[0].test_s) \(.wall_s)"' "$TMP/pair$i.json"
done | sort -g >"$TMP/pairs"
pair_s=$(sed -n 2p "$TMP/pairs" | cut -d' ' -f1)
pair_wall=$(sort -g -k2 "$TMP/pairs" | sed -n 2p | cut -d' ' -f2)
rc=0
"$FABRICCTL" -j sweep --hosts "$TMP/hosts" "${OPTS[@]}" >"$TMP/all.json" || rc=$?
[ "$rc" -le 1 ] || fail "sweep exited $rc: $(head -c 400 "$TMP/all.json")"	# 1: slow pairs, still timed
jq -e '.summary.failed == 0' "$TMP/all.json" >/dev/null || fail "sweep had failed pairs: $(jq -c .summary "$TMP/all.json")"
wall=$(jq .wall_s "$TMP/all.json")
rounds=$(jq .rounds "$TMP/all.json")
awk -v p="$pair_s" -v pw="$pair_wall" -v w="$wall" -v r="$rounds" -v n="$N" -v lt="$LAT_TIME" -v d="$DUR" 'BEGIN {
	printf "sweep efficiency: %d hosts, %d rounds, wall %.2f s / (%d x %.3f s per lone pair test) = %.3f (target <= 1.10)\n", n, r, w, r, p, w / (r * p)
	printf "  plan per pair: lat-time %s s + 2 x %s s bandwidth; lone pair wall time with worker start-up %.3f s (ratio on that: %.3f)\n", lt, d, pw, w / (r * pw) }'
busy=$(jq '[.pairs | group_by(.round)[] | map(.test_s) | max] | add' "$TMP/all.json")
awk -v b="$busy" -v w="$wall" \
	'BEGIN { printf "sweep overhead:   wall %.2f s / sum of the rounds'"'"' slowest sessions %.2f s = %.3f\n", w, b, w / b }'
jq -r '[.pairs | group_by(.round)[] | max_by(.test_s)] as $s | ($s | length) as $n |
	"slowest pair per round, means: test_s \(($s | map(.test_s) | add) / $n * 1000 | floor) ms = latency phase ~\(($s | map(.lat_ns.mean * .lat_ns.samples) | add) / $n / 1e6 | floor) ms (\(($s | map(.lat_ns.samples) | add) / $n | floor) samples, mean rtt \(($s | map(.lat_ns.mean) | add) / $n / 1000 | floor) us) + bw fwd \(($s | map(.bw_ab.secs) | add) / $n * 1000 | floor) ms + bw rev \(($s | map(.bw_ba.secs) | add) / $n * 1000 | floor) ms + handshakes/rest"' "$TMP/all.json"
awk -v p="$pair_s" -v w="$wall" -v r="$rounds" 'BEGIN { exit !(w / (r * p) <= 1.10) }' ||
	fail "sweep bench: TARGET MISSED (efficiency above 1.10)"
