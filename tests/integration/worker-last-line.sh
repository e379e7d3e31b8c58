#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# A worker's last request needs no newline: the final line before EOF is
# processed like any other (issue 9, item 11).  The old worker dropped it
# silently (no answer, exit 0).  An over-long last line without a newline
# is still refused once and never processed.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd jq timeout head tr
need_fabricctl
tmpdir_with_cleanup

HELLO='{"v":1,"id":1,"op":"hello","version":1}'
STATUS='{"v":1,"id":2,"op":"status"}'

# feed NAME: $TMP/NAME.in to a worker (10 s at most); stdout in
# $TMP/NAME.out, exit status in $wrc.
feed() {
	pretty "fabricctl worker <$TMP/$1.in"
	wrc=0
	timeout 10 "$FABRICCTL" worker <"$TMP/$1.in" >"$TMP/$1.out" 2>"$TMP/$1.err" || wrc=$?
	head -c 2000 "$TMP/$1.out" >&2
}
answers() { jq -r '"\(.id) \(.ok) \(.error // "-")"' "$TMP/$1.out" | paste -sd';'; }

# 1. One request, no newline at all.
printf '%s' "$HELLO" >"$TMP/one.in"
feed one
assert_eq "hello without a newline: exit" 0 "$wrc"
assert_eq "hello without a newline: answered" "1 true -" "$(answers one)"
assert_eq "hello without a newline: version" 1 "$(jq -r .result.version "$TMP/one.out")"

# 2. Two requests, the second without its newline: both answered, in order.
printf '%s\n%s' "$HELLO" "$STATUS" >"$TMP/two.in"
feed two
assert_eq "last of two without a newline: exit" 0 "$wrc"
assert_eq "last of two without a newline: answers" "1 true -;2 true -" "$(answers two)"

# 3. A last line that is over the limit and has no newline: one refusal, EOF seen.
{ printf '%s\n' "$HELLO"; head -c 1100000 /dev/zero | tr '\0' a; } >"$TMP/long.in"
feed long
assert_eq "over-long last line: exit" 0 "$wrc"
assert_eq "over-long last line: answers" "1 true -;0 false protocol: line too long" "$(answers long)"
echo "worker-last-line: all checks passed" >&2
