#!/bin/bash
# SIGHUP ends a sweep like SIGINT and SIGTERM: the finished rounds are
# kept, written and marked interrupted (issue 22, item 3).  SIGHUP is what
# a dropped ssh session sends the command it ran.
#
# netns lab, 4 hosts on one leaf: 6 pairs in 3 rounds of 2, each round
# about 2 s.  SIGHUP once round 2 has started (read from the progress
# line), JSON to stdout, --prom and --csv: exit 129; stdout valid JSON
# with "interrupted": true, rounds_done 1 and round 1's 2 pairs, judged
# ok with figures; the Prometheus file with fabricctl_sweep_interrupted 1
# and 2 pair lines; the CSV with the same 2 pairs; "interrupted by
# SIGHUP" said on stderr; nothing of the sweep left in the lab.  Then the
# same in text to stdout: the "interrupted" line and the pairs' summary.
# Under nohup (SIGHUP ignored) the same SIGHUP is ignored: every round.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq ss python3
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=hu$$
tmpdir_with_cleanup
SWEEP_PID=
cleanup_hook() {
	[ -z "$SWEEP_PID" ] || kill -KILL "$SWEEP_PID" 2>/dev/null || true
	lab_down --name "$P"
}

run lab_up --name "$P" --hosts 4 --leaves 1 --spines 0 --no-lldp
lab_hostsfile >"$TMP/hosts"

# shellcheck source=../lib/sweep-signal.sh
. "$TOP/tests/lib/sweep-signal.sh"
# hup ROUND OUTFLAGS...: SIGHUP once the progress line shows "sweep: round
# ROUND", with --csv $TMP/csv (interrupt: $rc, $TMP/out, $TMP/err; $PRE).
hup() { EXTRA="--csv $TMP/csv" interrupt HUP "$@"; }
q() { jq -r "$@" "$TMP/out"; }
csv_pairs() { python3 -c 'import csv, sys; print(" ".join(sorted("%s-%s:%s" % (r["a"], r["b"], r["status"]) for r in csv.DictReader(open(sys.argv[1], newline="")))))' "$TMP/csv"; }

# --- JSON -----------------------------------------------------------------------------
hup 2 -j
assert_eq "SIGHUP: exit status" 129 "$rc"
jq . "$TMP/out" >/dev/null || fail "SIGHUP: stdout is not valid JSON: $(head -c 300 "$TMP/out")"
assert_eq "SIGHUP: interrupted" true "$(q .interrupted)"
assert_eq "SIGHUP: rounds, rounds_done" "3 1" "$(q '"\(.rounds) \(.rounds_done)"')"
assert_eq "SIGHUP: pairs (round 1's)" 2 "$(q '.pairs | length')"
assert_eq "SIGHUP: judged ok, with figures" true \
	"$(q '[.pairs[] | .status == "ok" and .bw_ab.avg_mbps > 0 and .bw_ba.avg_mbps > 0 and .lat_ns.samples == 1000] | all')"
[ -f "$TMP/prom" ] || fail "SIGHUP: no Prometheus file"
assert_eq "SIGHUP: prom interrupted" "fabricctl_sweep_interrupted 1" "$(grep '^fabricctl_sweep_interrupted ' "$TMP/prom")"
assert_eq "SIGHUP: prom pair status lines" 2 "$(grep -c '^fabricctl_sweep_pair_status{' "$TMP/prom")"
[ -f "$TMP/csv" ] || fail "SIGHUP: no CSV file"
assert_eq "SIGHUP: CSV holds the JSON's pairs" "$(q '[.pairs[] | "\(.a)-\(.b):\(.status)"] | sort | join(" ")')" "$(csv_pairs)"
grep -q "interrupted by SIGHUP: reporting the 1 round finished (2 pairs)" "$TMP/err" ||
	fail "SIGHUP: no 'interrupted' message on stderr"
assert_lab_clean "SIGHUP"

# --- text -----------------------------------------------------------------------------
hup 2
cat "$TMP/out" >&2
assert_eq "SIGHUP, text: exit status" 129 "$rc"
grep -q "^sweep: 4 nodes, 2 pairs in 3 rounds (tcp, netns, all-pairs): 2 ok, 0 slow, 0 failed" "$TMP/out" ||
	fail "SIGHUP, text: summary line"
grep -q "^interrupted: 1 of 3 rounds finished" "$TMP/out" || fail "SIGHUP, text: no 'interrupted' line"
assert_eq "SIGHUP, text: prom interrupted" "fabricctl_sweep_interrupted 1" "$(grep '^fabricctl_sweep_interrupted ' "$TMP/prom")"
assert_eq "SIGHUP, text: CSV pairs" 2 "$(csv_pairs | wc -w)"
assert_lab_clean "SIGHUP, text"

# --- under nohup: SIGHUP ignored, the sweep runs to its end ----------------------------
PRE=nohup
hup 2 -j
PRE=
# 0, or 1 should a busy machine make a pair look slow: not 129.
assert_eq "nohup: exit status 0 or 1" true "$([ "$rc" -le 1 ] && echo true || echo "false ($rc)")"
assert_eq "nohup: not interrupted, every round" "false 3 6" "$(q '"\(.interrupted) \(.rounds_done) \(.pairs | length)"')"
echo "sweep-hup: all checks passed" >&2
