#!/bin/bash
# fabricctl sweep over TCP in the netns lab: 8 hosts behind two leaves and
# a spine, launcher `ip netns exec {host}`.
#  1. A clean lab, swept three times: 28 pairs in 7 rounds of 4, no node
#     twice in a round, every figure present, nothing flagged, exit 0;
#     text matrix and Prometheus file checked once.
#  2. h3's cable slowed to 100 Mbit/s with tc tbf: exactly h3's 7 pairs
#     come out slow, h3 is the top suspect, exit 1.
#  3. status --hosts over the same fleet: one document, 8 nodes.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip tc jq
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=sw$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P"; }

run lab_up --name "$P" --hosts 8 --leaves 2 --spines 1 --no-lldp
lab_hostsfile >"$TMP/hosts"
cat "$TMP/hosts" >&2
assert_eq "hosts in the hosts file" 8 "$(grep -c . "$TMP/hosts")"
H3=$(lab_ns h3)

SWEEP=(sweep --hosts "$TMP/hosts" --launcher netns --transport tcp --duration 0.5 --lat-iters 1000)

# sweep ARGS...: JSON to $TMP/out, exit status in $rc.
sweep() {
	pretty "$FABRICCTL -j ${SWEEP[*]} $*"
	rc=0
	"$FABRICCTL" -j "${SWEEP[@]}" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/err" >&2
}
q() { jq -r "$@" "$TMP/out"; }

# --- 1. clean lab, three times ---------------------------------------------------
for i in 1 2 3; do
	sweep
	jq -c '.summary, .reference, [.pairs[] | select(.status != "ok" or .retested) | [.a, .b, .status, .retested, .reason]]' "$TMP/out" >&2
	assert_eq "clean $i: rc" 0 "$rc"
	assert_eq "clean $i: schema" fabricctl.sweep/2 "$(q .schema)"
	assert_eq "clean $i: pairs" 28 "$(q '.pairs | length')"
	assert_eq "clean $i: rounds" 7 "$(q .rounds)"
	assert_eq "clean $i: statuses" "ok" "$(q '[.pairs[].status] | unique | join(",")')"
	assert_eq "clean $i: suspects" 0 "$(q '.suspects | length')"
	assert_eq "clean $i: summary" '{"pairs":28,"ok":28,"slow":0,"failed":0,"regressed":0}' "$(jq -c .summary "$TMP/out")"
	# Schedule: rounds 1..7 of 4 pairs each, no node twice in a round, each pair once.
	assert_eq "clean $i: pairs per round" "4,4,4,4,4,4,4" \
		"$(q '[.pairs | group_by(.round)[] | length] | map(tostring) | join(",")')"
	assert_eq "clean $i: no node twice in a round" true \
		"$(q '[.pairs | group_by(.round)[] | [.[].a, .[].b] | (length == (unique | length))] | all')"
	assert_eq "clean $i: every pair once" 28 "$(q '[.pairs[] | [.a, .b] | sort] | unique | length')"
	# Every figure present and ordered.  Under load a 0.5 s transfer may
	# close fewer full 100 ms intervals at the receiver (one CI run at load
	# 8 had a pair short of this test's old bound of 3): two are enough to
	# tell a dip; the offenders are printed first.
	FIG='.bw_ab.avg_mbps > 0 and .bw_ba.avg_mbps > 0 and .bw_ab.intervals >= 2 and .bw_ba.intervals >= 2 and .lat_ns.p50 > 0 and .lat_ns.samples == 1000 and .lat_ns.min <= .lat_ns.p50 and .lat_ns.p50 <= .lat_ns.p99 and .lat_ns.p99 <= .lat_ns.p999 and .lat_ns.p999 <= .lat_ns.max'
	q -c ".pairs[] | select(($FIG) | not) | {a, b, bw_ab, bw_ba, lat_ns}" >&2
	assert_eq "clean $i: every figure" true "$(q "[.pairs[] | $FIG] | all")"
done

# Text output and Prometheus file.
rc=0
run "$FABRICCTL" "${SWEEP[@]}" --prom "$TMP/sweep.prom" >"$TMP/text" || rc=$?
cat "$TMP/text" >&2
assert_eq "text: rc" 0 "$rc"
grep -q "^sweep: 8 nodes, 28 pairs in 7 rounds (tcp, netns, all-pairs): 28 ok, 0 slow, 0 failed" "$TMP/text" ||
	fail "text summary line missing"
assert_eq "text: matrix rows (bandwidth and latency)" 16 "$(grep -cE "^ +[1-8]  $P-h[1-8] " "$TMP/text")"
grep -q "^suspects: none" "$TMP/text" || fail "text: suspects line"
assert_eq "prom: pair status lines" 28 "$(grep -c '^fabricctl_sweep_pair_status{' "$TMP/sweep.prom")"
assert_eq "prom: bandwidth lines" 56 "$(grep -c '^fabricctl_sweep_pair_bandwidth_mbps{' "$TMP/sweep.prom")"
assert_eq "prom: ok pairs" 'fabricctl_sweep_pairs{status="ok"} 28' "$(grep 'fabricctl_sweep_pairs{status="ok"}' "$TMP/sweep.prom")"
assert_eq "prom: no temporary file left" 0 "$(find "$TMP" -name 'sweep.prom.tmp.*' | wc -l)"

# --- 2. one slow host ------------------------------------------------------------
run lab_slow h3 100mbit
sweep
jq -c '.summary, .reference, [.suspects[] | [.node, .link, .score, .evidence.text]]' "$TMP/out" >&2
assert_eq "slow: rc" 1 "$rc"
assert_eq "slow: slow pairs are exactly h3's" \
	"$(q --arg h "$H3" '[.pairs[] | select(.a == $h or .b == $h) | [.a, .b] | sort | join("-")] | sort | join(" ")')" \
	"$(q '[.pairs[] | select(.status == "slow") | [.a, .b] | sort | join("-")] | sort | join(" ")')"
assert_eq "slow: slow pairs" 7 "$(q '[.pairs[] | select(.status == "slow")] | length')"
assert_eq "slow: failed pairs" 0 "$(q '[.pairs[] | select(.status == "failed")] | length')"
assert_eq "slow: confirmed by retest" true "$(q '[.pairs[] | select(.status == "slow") | .retested] | all')"
assert_eq "slow: h3's pairs run near 100 Mbit/s" true "$(q '[.pairs[] | select(.status == "slow") | .bw_mbps < 150] | all')"
assert_eq "slow: top suspect" "$H3" "$(q '.suspects[0].node')"
assert_eq "slow: top suspect score" 1 "$(q '.suspects[0].score')"
assert_eq "slow: suspects" 1 "$(q '.suspects | length')"

# --- 3. status --hosts over the same fleet ---------------------------------------
rc=0
run "$FABRICCTL" -j status --hosts "$TMP/hosts" --launcher netns >"$TMP/out" || rc=$?
assert_eq "status --hosts: rc" 0 "$rc"
assert_eq "status --hosts: schema" fabricctl.fleet-status/1 "$(q .schema)"
assert_eq "status --hosts: nodes" "$(cut -d' ' -f1 "$TMP/hosts" | paste -sd,)" "$(q '[.nodes[].node] | join(",")')"
assert_eq "status --hosts: each node's eth0" 8 "$(q '[.nodes[] | select(.ok) | .status.links[] | select(.name == "eth0" and .kind == "veth")] | length')"
echo "sweep-netns: all checks passed" >&2
