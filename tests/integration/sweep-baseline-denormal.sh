#!/bin/bash
# A baseline with tiny figures compares as numbers (issue 22, item 11): a
# real sweep of 3 netns hosts (3 pairs) is the baseline with every
# avg_mbps set to 5e-324 (a denormal); `sweep --baseline` then compares
# all 3 pairs, each pair's baseline is in the JSON (not null), none is
# regressed, and the Prometheus file holds no inf or nan.  8419e42:
# compared=3 but every pair's baseline null, and `inf` in the .prom.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=bd$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P"; }

run lab_up --name "$P" --hosts 3 --leaves 1 --spines 0 --no-lldp
lab_hostsfile >"$TMP/hosts"
SWEEP=(sweep --hosts "$TMP/hosts" --launcher netns --transport tcp --duration 0.3 --lat-iters 100)

fab -j "${SWEEP[@]}"
assert_eq "first sweep: pairs measured" 3 "$(jq '[.pairs[] | select(.bw_ab != null and .bw_ba != null)] | length' "$TMP/out")"
jq '.pairs |= map(.bw_ab.avg_mbps = 5e-324 | .bw_ba.avg_mbps = 5e-324)' "$TMP/out" >"$TMP/base.json"
assert_eq "baseline: denormal figures" 6 "$(grep -c -E '"avg_mbps": (5e-324|4.94[0-9]*e-324)' "$TMP/base.json" || true)"

fab -j "${SWEEP[@]}" --baseline "$TMP/base.json" --prom "$TMP/s.prom"
cp "$TMP/out" "$TMP/s2.json"
assert_eq "second sweep: compared" 3 "$(jq '.baseline.compared' "$TMP/s2.json")"
assert_eq "second sweep: every pair's baseline kept" 3 \
	"$(jq '[.pairs[] | select(.baseline != null and .baseline.bw_ab_mbps > 0 and .baseline.change_pct > 1e300)] | length' "$TMP/s2.json")"
assert_eq "second sweep: none regressed" 0 "$(jq '.summary.regressed' "$TMP/s2.json")"
assert_eq "prom: no inf or nan" 0 "$(grep -c -i -E '(^|[ {])[+-]?(inf|nan)' "$TMP/s.prom" || true)"
assert_eq "prom: a baseline ratio per pair" 3 \
	"$(grep -c '^fabricctl_sweep_pair_bandwidth_baseline_ratio{' "$TMP/s.prom" || true)"
