#!/bin/bash
# TCP transport against the reference tools on the same veth pair between
# two fresh namespaces, measured in the same run:
#   bandwidth: fabricctl sweep (one pair, --duration S, --streams 1: the
#              receiver's figure for a -> b) vs iperf3 -P 1 -t S (the
#              receiver's figure, a -> b)          target: ratio >= 0.95
#   latency:   fabricctl sweep (--lat-iters N, 64-byte ping-pong, median
#              round trip / 2) vs sockperf ping-pong --tcp -m 64 -t SP_SECS median
#              (sockperf reports half the round trip)   target: ratio <= 1.10
#              (not the same number of messages: sockperf runs for SP_SECS
#              seconds, fabricctl for N round trips; both are medians of
#              many thousands of samples)
# Each figure is taken REPS times (default 5).  The targets are judged on
# the median of the REPS ratios, each rep's two figures taken back to back
# (paired: a spell of load from elsewhere on the machine falls on both of
# a rep's figures, not on one tool's median); the ratio of the medians of
# the figures is printed beside it.  Never the best run.
# Fair to both tools, whichever runs first: in each rep the two tools run
# back to back, in turns (fabricctl first in odd reps, the reference tool
# first in even ones), and the bandwidth pair starts with a WARM-second
# untimed transfer by the tool that runs second, so each timed transfer
# follows the other tool's bulk traffic on a warm pair, never an idle or
# latency-only spell.  Exits 1 when a target is missed or a run fails.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq iperf3 sockperf ss
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make)"

DUR=${DUR:-3}
ITERS=${ITERS:-100000}
SP_SECS=${SP_SECS:-2}
REPS=${REPS:-5}
WARM=${WARM:-1}
A=tba$$ B=tbb$$
TMP=$(mktemp -d)
SRV=
cleanup() {
	local rc=$?
	[ -z "$SRV" ] || kill "$SRV" 2>/dev/null || true
	[ -z "$SRV" ] || wait "$SRV" 2>/dev/null || true
	ip netns del "$A" 2>/dev/null || true
	ip netns del "$B" 2>/dev/null || true
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT

run ip netns add "$A"
run ip netns add "$B"
run ip -n "$A" link add eth0 type veth peer name eth0 netns "$B"
run ip -n "$A" addr add 10.99.0.1/24 dev eth0
run ip -n "$B" addr add 10.99.0.2/24 dev eth0
run ip -n "$A" link set lo up
run ip -n "$B" link set lo up
run ip -n "$A" link set eth0 up
run ip -n "$B" link set eth0 up
printf '%s 10.99.0.1\n%s 10.99.0.2\n' "$A" "$B" >"$TMP/hosts"
PORT=$((32768 + RANDOM % 28000))	# fresh namespace: nothing else listens there

# wait_listen PORT: until something listens on PORT in $B (explicit readiness).
wait_listen() {
	for _ in $(seq 400); do
		[ -z "$(ip netns exec "$B" ss -ltnH "sport = :$1")" ] || return 0
		kill -0 "$SRV" 2>/dev/null || { cat "$TMP"/*-s.log >&2; fail "server exited"; }
		read -r -t 0.01 <> <(:) || true
	done
	fail "nothing listens on port $1"
}
# fab_sweep ARGS...: the one pair into $TMP/fab.json; exit 0 (ok) or 1 (judged
# slow: the figure still counts) only, and a figure for the pair.
fab_sweep() {
	local rc=0
	"$FABRICCTL" -j sweep --hosts "$TMP/hosts" --launcher netns --no-retest "$@" \
		>"$TMP/fab.json" || rc=$?
	[ "$rc" -le 1 ] || fail "fabricctl sweep $* exited $rc: $(head -c 400 "$TMP/fab.json")"
	[ "$(jq -r '.pairs[0].status' "$TMP/fab.json")" != failed ] ||
		fail "fabricctl sweep: the pair failed: $(jq -r '.pairs[0].reason' "$TMP/fab.json")"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# bw_fab SECS / bw_ipf SECS: one a -> b transfer of one stream, the
# receiver's figure in Mb/s in $fig (run in this shell, never in a
# subshell, so that cleanup sees $SRV).
bw_fab() {
	fab_sweep --duration "$1" --lat-iters 0 --streams 1
	fig=$(jq '.pairs[0].bw_ab.avg_mbps' "$TMP/fab.json")
}
bw_ipf() {
	PORT=$((PORT + 1))	# a fresh port each time: no TIME_WAIT leftovers
	ip netns exec "$B" iperf3 -s -1 -B 10.99.0.2 -p "$PORT" >"$TMP/iperf-s.log" 2>&1 &
	SRV=$!
	wait_listen "$PORT"
	ip netns exec "$A" iperf3 -c 10.99.0.2 -p "$PORT" -P 1 -t "$1" -J >"$TMP/iperf.json"
	wait "$SRV" || true
	SRV=
	fig=$(jq '.end.sum_received.bits_per_second / 1e6' "$TMP/iperf.json")
}
# lat_fab / lat_sp: the median one-way latency of 64-byte TCP ping-pong in
# us, in $fig.
lat_fab() {
	fab_sweep --duration 0 --lat-iters "$ITERS" --msg-size 64
	fig=$(jq '.pairs[0].lat_ns.p50 / 2 / 1000' "$TMP/fab.json")
}
lat_sp() {
	PORT=$((PORT + 1))
	ip netns exec "$B" sockperf server --tcp -i 10.99.0.2 -p "$PORT" >"$TMP/sp-s.log" 2>&1 &
	SRV=$!
	wait_listen "$PORT"
	ip netns exec "$A" sockperf ping-pong --tcp -i 10.99.0.2 -p "$PORT" -m 64 -t "$SP_SECS" >"$TMP/sp.log" 2>&1 || { cat "$TMP/sp.log" >&2; fail "sockperf failed"; }
	kill "$SRV"
	wait "$SRV" 2>/dev/null || true
	SRV=
	fig=$(sed -n 's/.*percentile 50.000 = *\([0-9.]*\).*/\1/p' "$TMP/sp.log")
	[ -n "$fig" ] || { cat "$TMP/sp.log" >&2; fail "sockperf: no median in its output"; }
}

fab_bw=() ipf_bw=() fab_lat=() sp_lat=() bw_r=() lat_r=()
fig=
for rep in $(seq "$REPS"); do
	if [ $((rep % 2)) = 1 ]; then
		order="fabricctl first"
		bw_ipf "$WARM"		# warm-up by the tool that runs second
		bw_fab "$DUR"; fab_bw+=("$fig")
		bw_ipf "$DUR"; ipf_bw+=("$fig")
		lat_fab; fab_lat+=("$fig")
		lat_sp; sp_lat+=("$fig")
	else
		order="reference first"
		bw_fab "$WARM"
		bw_ipf "$DUR"; ipf_bw+=("$fig")
		bw_fab "$DUR"; fab_bw+=("$fig")
		lat_sp; sp_lat+=("$fig")
		lat_fab; fab_lat+=("$fig")
	fi
	bw_r+=("$(awk -v f="${fab_bw[-1]}" -v i="${ipf_bw[-1]}" 'BEGIN { print (i > 0 ? f / i : 0) }')")
	lat_r+=("$(awk -v f="${fab_lat[-1]}" -v s="${sp_lat[-1]}" 'BEGIN { print (s > 0 ? f / s : 99) }')")
	printf 'rep %s (%s): fabricctl %.0f Mb/s, iperf3 %.0f Mb/s (%.3f); fabricctl %.2f us, sockperf %.2f us (%.3f; half round trip, median)\n' \
		"$rep" "$order" "${fab_bw[-1]}" "${ipf_bw[-1]}" "${bw_r[-1]}" "${fab_lat[-1]}" "${sp_lat[-1]}" "${lat_r[-1]}"
done
fb=$(printf '%s\n' "${fab_bw[@]}" | median)
ib=$(printf '%s\n' "${ipf_bw[@]}" | median)
fl=$(printf '%s\n' "${fab_lat[@]}" | median)
sl=$(printf '%s\n' "${sp_lat[@]}" | median)
br=$(printf '%s\n' "${bw_r[@]}" | median)
lr=$(printf '%s\n' "${lat_r[@]}" | median)
awk -v f="$fb" -v i="$ib" -v fl="$fl" -v sl="$sl" -v br="$br" -v lr="$lr" -v n="$REPS" 'BEGIN {
	printf "tcp bandwidth: fabricctl / iperf3 = %.3f (target >= 0.95; median of %d reps\047 ratios; medians of the figures: %.0f / %.0f Mb/s = %.3f)\n", br, n, f, i, (i > 0 ? f / i : 0)
	printf "tcp latency:   fabricctl / sockperf = %.3f (target <= 1.10; median of %d reps\047 ratios; medians of the figures: %.2f / %.2f us = %.3f)\n", lr, n, fl, sl, (sl > 0 ? fl / sl : 99)
	ok = br >= 0.95 && lr <= 1.10
	print ok ? "tcp bench: targets met" : "tcp bench: TARGET MISSED"
	exit ok ? 0 : 1
}'
