#!/bin/bash
# TCP transport against the reference tools on the same veth pair between
# two fresh namespaces, measured in the same run:
#   bandwidth: fabricctl sweep (one pair, --duration S, one stream) vs
#              iperf3 -t S                    target: ratio >= 0.95
#   latency:   fabricctl sweep (--lat-iters N, 64-byte ping-pong, median
#              round trip / 2) vs sockperf ping-pong --tcp -m 64 -t SP_SECS median
#              (sockperf reports half the round trip)   target: ratio <= 1.10
#              (not the same number of messages: sockperf runs for SP_SECS
#              seconds, fabricctl for N round trips; both are medians of
#              many thousands of samples)
# Each measurement is taken REPS times, alternating tools; the medians of
# the REPS figures are compared (not the best).  Prints one line per ratio;
# exits 1 when a target is missed or a run fails.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq iperf3 sockperf ss
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make)"

DUR=${DUR:-3}
ITERS=${ITERS:-100000}
SP_SECS=${SP_SECS:-2}
REPS=${REPS:-3}
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

fab_bw=() ipf_bw=() fab_lat=() sp_lat=()
for rep in $(seq "$REPS"); do
	# fabricctl bandwidth: a -> b, receiver-measured.
	fab_sweep --duration "$DUR" --lat-iters 0
	fab_bw+=("$(jq '.pairs[0].bw_ab.avg_mbps' "$TMP/fab.json")")
	# iperf3 bandwidth: a -> b, receiver's figure.
	PORT=$((PORT + 1))	# a fresh port each time: no TIME_WAIT leftovers
	ip netns exec "$B" iperf3 -s -1 -B 10.99.0.2 -p "$PORT" >"$TMP/iperf-s.log" 2>&1 &
	SRV=$!
	wait_listen "$PORT"
	ip netns exec "$A" iperf3 -c 10.99.0.2 -p "$PORT" -t "$DUR" -J >"$TMP/iperf.json"
	wait "$SRV" || true
	SRV=
	ipf_bw+=("$(jq '.end.sum_received.bits_per_second / 1e6' "$TMP/iperf.json")")
	# fabricctl latency: median round trip of 64-byte messages.
	fab_sweep --duration 0 --lat-iters "$ITERS" --msg-size 64
	fab_lat+=("$(jq '.pairs[0].lat_ns.p50 / 2 / 1000' "$TMP/fab.json")")
	# sockperf latency: TCP ping-pong, 64 bytes, for SP_SECS seconds.
	PORT=$((PORT + 1))
	ip netns exec "$B" sockperf server --tcp -i 10.99.0.2 -p "$PORT" >"$TMP/sp-s.log" 2>&1 &
	SRV=$!
	wait_listen "$PORT"
	ip netns exec "$A" sockperf ping-pong --tcp -i 10.99.0.2 -p "$PORT" -m 64 -t "$SP_SECS" >"$TMP/sp.log" 2>&1 || { cat "$TMP/sp.log" >&2; fail "sockperf failed"; }
	kill "$SRV"
	wait "$SRV" 2>/dev/null || true
	SRV=
	sp_lat+=("$(sed -n 's/.*percentile 50.000 = *\([0-9.]*\).*/\1/p' "$TMP/sp.log")")
	printf 'rep %s: fabricctl %.0f Mb/s, iperf3 %.0f Mb/s; fabricctl %.2f us, sockperf %.2f us (half round trip, median)\n' \
		"$rep" "${fab_bw[-1]}" "${ipf_bw[-1]}" "${fab_lat[-1]}" "${sp_lat[-1]}"
done
fb=$(printf '%s\n' "${fab_bw[@]}" | median)
ib=$(printf '%s\n' "${ipf_bw[@]}" | median)
fl=$(printf '%s\n' "${fab_lat[@]}" | median)
sl=$(printf '%s\n' "${sp_lat[@]}" | median)
awk -v f="$fb" -v i="$ib" -v fl="$fl" -v sl="$sl" -v n="$REPS" 'BEGIN {
	bw = i > 0 ? f / i : 0
	lat = sl > 0 ? fl / sl : 99
	printf "tcp bandwidth: fabricctl %.0f Mb/s / iperf3 %.0f Mb/s = %.3f (target >= 0.95; medians of %d runs)\n", f, i, bw, n
	printf "tcp latency:   fabricctl %.2f us / sockperf %.2f us = %.3f (target <= 1.10; medians of %d runs)\n", fl, sl, lat, n
	ok = bw >= 0.95 && lat <= 1.10
	print ok ? "tcp bench: targets met" : "tcp bench: TARGET MISSED"
	exit ok ? 0 : 1
}'
