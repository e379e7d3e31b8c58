#!/bin/bash
# A progress line for fleet verify / apply / status, like the sweep's, and
# accept's stages as they begin and end: on
# a tty (here: script(1)'s pty) stderr shows "OP: N of M nodes answered,
# K failed", rewritten in place and ended with a newline; redirected to a
# file, nothing of it.  2 lab nodes and one that cannot start.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip script
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

L=h12p$$
tmpdir_with_cleanup fleet-progress
cleanup_hook() { lab_down --name "$L" || true; }
run lab_up --name "$L" --hosts 2 --leaves 1 --spines 0 --no-lldp
lab_hostsfile >"$TMP/hosts"
printf 'interfaces:\n  - match: "eth0"\n    mtu: 1500\n' >"$TMP/p.yaml"

# on_tty CMD...: run CMD with stdin/stdout/stderr on a pty; all output in $TMP/tty.
on_tty() {
	local q
	q=$(printf '%q ' "$@")
	rc=0
	script -qec "$q" /dev/null >"$TMP/tty" 2>&1 || rc=$?
	tr '\r' '\n' <"$TMP/tty" | sed 's/ *$//' >"$TMP/tty.lines"
}
check_progress() { # NAME: the first and the last line of NAME's progress
	grep -qx "$1: 2 of 2 nodes answered, 0 failed" "$TMP/tty.lines" ||
		fail "$1 on a tty: no final progress line: $(cat -A "$TMP/tty" | head -c 600)"
	grep -qx "$1: 0 of 2 nodes answered, 0 failed" "$TMP/tty.lines" ||
		fail "$1 on a tty: no first progress line"
	printf '  ok: %s shows its progress on a tty\n' "$1" >&2
}
on_tty "$FABRICCTL" verify --hosts "$TMP/hosts" --launcher netns "$TMP/p.yaml"
check_progress verify
on_tty "$FABRICCTL" apply --dry-run --hosts "$TMP/hosts" --launcher netns "$TMP/p.yaml"
check_progress apply
on_tty "$FABRICCTL" status --hosts "$TMP/hosts" --launcher netns
check_progress status
# A node that cannot start counts as answered-and-failed from the start.
cp "$TMP/hosts" "$TMP/hosts3"
echo "$L-nosuch 10.254.254.254" >>"$TMP/hosts3"
on_tty "$FABRICCTL" verify --hosts "$TMP/hosts3" --launcher netns "$TMP/p.yaml"
assert_eq "a node that cannot start: rc" 3 "$rc"
grep -qx "verify: 3 of 3 nodes answered, 1 failed" "$TMP/tty.lines" ||
	fail "failed node not counted: $(cat -A "$TMP/tty" | head -c 600)"
# accept (issue 21): each stage said as it begins and as it ends, before the
# report, not everything at once at the end; the fleet's and the sweep's
# lines inside the stages.  h2 is the new node.
sed -E "s/^($L-h2 .*)/\1 new/" "$TMP/hosts" >"$TMP/hosts-new"
lab_planfile >"$TMP/plan.yaml"
# (No lldpd in this lab: cabling fails; --keep-going runs the traffic anyway.)
on_tty "$FABRICCTL" accept --keep-going --hosts "$TMP/hosts-new" --launcher netns --topology "$TMP/plan.yaml" --duration 0.3 --lat-iters 50
cat "$TMP/tty.lines" >&2
first=$(grep -n -m1 '^accept: stage 1 of 6, reach: running$' "$TMP/tty.lines" | cut -d: -f1)
[ -n "$first" ] || fail "accept on a tty: stage 1 not said as it begins"
grep -qE '^accept: stage 1 of 6, reach: passed \([0-9]+\.[0-9] s\)$' "$TMP/tty.lines" ||
	fail "accept on a tty: stage 1's end not said"
assert_eq "accept on a tty: every stage ends with a line" 6 \
	"$(grep -cE '^accept: stage [1-6] of 6, [a-z-]+: (passed|failed|skipped|blocked|not-run)( \([0-9]+\.[0-9] s\))?$' "$TMP/tty.lines")"
grep -qE '^accept: stage 5 of 6, traffic: running$' "$TMP/tty.lines" || fail "accept on a tty: traffic stage not said"
grep -qE '^sweep: round [0-9]+ of [0-9]+' "$TMP/tty.lines" || fail "accept on a tty: no sweep progress in the traffic stage"
report=$(grep -n -m1 '^accept .*new node' "$TMP/tty.lines" | cut -d: -f1)
[ -n "$report" ] && [ "$first" -lt "$report" ] || fail "accept on a tty: stages not said before the report"
printf '  ok: accept says each stage on a tty, before its report\n' >&2
fab accept --keep-going --hosts "$TMP/hosts-new" --launcher netns --topology "$TMP/plan.yaml" --duration 0.3 --lat-iters 50
grep -q "^accept: stage" "$TMP/err" && fail "accept redirected: stage lines written to a file"
# Not a tty: no progress line at all.
fab verify --hosts "$TMP/hosts" --launcher netns "$TMP/p.yaml"
assert_eq "verify redirected: rc" 0 "$rc"
grep -q "nodes answered" "$TMP/err" && fail "progress line written to a file: $(cat "$TMP/err")"
echo "fleet-progress: all checks passed"
