#!/bin/bash
# sweep --lat-time: the latency phase is time-bounded.  With a round-trip
# count that could never finish in time (10 million, ~200 s alone), a
# 0.2 s bound ends the phase on time with the samples taken so far; the
# same count with a small --lat-iters finishes by count, well before the
# bound.  Two lab hosts, tcp, no bandwidth phase.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=lt$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P"; }

run lab_up --name "$P" --hosts 2 --leaves 1 --spines 0 --no-lldp
lab_hostsfile >"$TMP/hosts"
q() { jq -r "$@" "$TMP/out"; }

run "$FABRICCTL" -j sweep --hosts "$TMP/hosts" --launcher netns --duration 0 \
	--lat-iters 10000000 --lat-time 0.2 --no-retest --no-progress >"$TMP/out"
q -c '.pairs[0] | {test_s, lat_ns}' >&2
assert_eq "time-bound: ok" ok "$(q '.pairs[0].status')"
assert_eq "time-bound: the report says so" "200 10000000" "$(q '"\(.config.lat_ms) \(.config.lat_iters)"')"
assert_eq "time-bound: session ended within 0.2 s + 0.5 s slack" true "$(q '.pairs[0].test_s < 0.7')"
assert_eq "time-bound: stopped by time, not count" true \
	"$(q '.pairs[0].lat_ns.samples > 10 and .pairs[0].lat_ns.samples < 10000000')"
# Samples x mean round trip fill (most of) the bound: at least 60 % of 0.2 s.
assert_eq "time-bound: the phase used its time" true \
	"$(q '.pairs[0].lat_ns.samples * .pairs[0].lat_ns.mean > 0.6 * 0.2e9')"

run "$FABRICCTL" -j sweep --hosts "$TMP/hosts" --launcher netns --duration 0 \
	--lat-iters 50 --lat-time 5 --no-retest --no-progress >"$TMP/out"
q -c '.pairs[0] | {test_s, lat_ns}' >&2
assert_eq "count first: all samples" 50 "$(q '.pairs[0].lat_ns.samples')"
assert_eq "count first: config" 5000 "$(q '.config.lat_ms')"
assert_eq "count first: did not wait for the bound" true "$(q '.pairs[0].test_s < 2')"

expect_rc 2 "$FABRICCTL" sweep --hosts "$TMP/hosts" --launcher netns --lat-time -1
echo "sweep-lat-time: all checks passed" >&2
