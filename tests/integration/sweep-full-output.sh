#!/bin/bash
# One failing output does not discard the others (issue 22, item 5).
# 6 local workers (127.4.0.x, a network namespace of their own); --prom
# into a small tmpfs filled up first (mounted in a private mount
# namespace: unshare -m), --csv and --html in a directory with room, JSON
# to stdout.  The sweep must
#   - write stdout, the CSV and the HTML in full (every pair);
#   - leave nothing on the full filesystem but the filler (no temporary
#     file) and no Prometheus file;
#   - say at once that --prom was not written and why (No space left on
#     device: the write's own error, not a later "Input/output error");
#   - exit 3 with one error line giving each output's fate.
# Then --csv on the full filesystem with --prom on one with room: the
# same, the other way round.
# On 8419e42: exit 3 with "Input/output error", stdout empty, no CSV or HTML.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq unshare mount dd python3
need_fabricctl

NS=lost-out$$
tmpdir_with_cleanup
cleanup_hook() { ip netns del "$NS" 2>/dev/null || true; }
run ip netns add "$NS"
run ip -n "$NS" link set lo up
for i in $(seq 1 6); do echo "fo$i 127.4.0.$i"; done >"$TMP/hosts"
mkdir "$TMP/full" "$TMP/room"

# sweep NAME OUTPUT-ARGS...: the sweep with $TMP/full a full 64 KiB tmpfs
# (private to this one command); stdout in $TMP/NAME.json, stderr in
# $TMP/NAME.err, what was left on the full filesystem in $TMP/NAME.left.
sweep() {
	local name=$1
	shift
	pretty "unshare -m: a full tmpfs on $TMP/full; fabricctl -j sweep --hosts (6 hosts) $*"
	rc=0
	unshare -m --propagation private env TMP="$TMP" NS="$NS" FABRICCTL="$FABRICCTL" \
		NAME="$name" bash -c '
		set -e
		mount -t tmpfs -o size=64k,mode=0755 fabricctl-test "$TMP/full"
		dd if=/dev/zero of="$TMP/full/filler" bs=4k 2>/dev/null || true
		rc=0
		ip netns exec "$NS" "$FABRICCTL" -j sweep --hosts "$TMP/hosts" \
			--launcher "env FO_NODE={host}" --transport tcp --duration 0 --lat-iters 20 \
			--no-retest --no-progress --lat-factor 1000 "$@" \
			>"$TMP/$NAME.json" 2>"$TMP/$NAME.err" || rc=$?
		ls -A "$TMP/full" >"$TMP/$NAME.left"
		exit "$rc"
	' sweep "$@" || rc=$?
	cat "$TMP/$name.err" >&2
}
# check_doc NAME: stdout holds the whole sweep.
check_doc() {
	jq -c .summary "$TMP/$1.json" >&2 || fail "$1: stdout is not JSON: $(head -c 300 "$TMP/$1.json")"
	assert_eq "$1: stdout pairs" 15 "$(jq '.pairs | length' "$TMP/$1.json")"
	assert_eq "$1: not interrupted" false "$(jq .interrupted "$TMP/$1.json")"
	assert_eq "$1: nothing left on the full filesystem but the filler" filler "$(cat "$TMP/$1.left")"
}
csv_rows() { python3 -c 'import csv, sys; print(sum(1 for _ in csv.reader(open(sys.argv[1]))) - 1)' "$1"; }

# 1. --prom on the full filesystem.
sweep prom --prom "$TMP/full/sweep.prom" --csv "$TMP/room/sweep.csv" --html "$TMP/room/sweep.html"
assert_eq "prom full: exit status" 3 "$rc"
check_doc prom
assert_eq "prom full: CSV rows" 15 "$(csv_rows "$TMP/room/sweep.csv")"
grep -q '</html>' "$TMP/room/sweep.html" || fail "prom full: the HTML was not written whole"
grep -q 'Input/output error' "$TMP/prom.err" && fail "prom full: a generic EIO instead of the cause"
grep -q "sweep: --prom $TMP/full/sweep.prom not written: $TMP/full/sweep.prom: write: No space left on device" "$TMP/prom.err" ||
	fail "prom full: the failure and its cause were not said"
grep -q "^fabricctl sweep: 1 of 4 outputs not written: --prom $TMP/full/sweep.prom (No space left on device); written: --csv $TMP/room/sweep.csv, --html $TMP/room/sweep.html, stdout$" "$TMP/prom.err" ||
	fail "prom full: no error line with each output's fate"

# 2. --csv on the full filesystem, --prom with room.
sweep csv --prom "$TMP/room/sweep.prom" --csv "$TMP/full/sweep.csv"
assert_eq "csv full: exit status" 3 "$rc"
check_doc csv
assert_eq "csv full: Prometheus pairs" 15 \
	"$(awk '/^fabricctl_sweep_pairs\{/ { s += $2 } END { print s }' "$TMP/room/sweep.prom")"
grep -q "^fabricctl sweep: 1 of 3 outputs not written: --csv $TMP/full/sweep.csv (No space left on device); written: --prom $TMP/room/sweep.prom, stdout$" "$TMP/csv.err" ||
	fail "csv full: no error line with each output's fate"
echo "sweep-full-output: all checks passed"
