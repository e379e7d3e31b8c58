#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# A worker fed one line longer than the protocol's 1 MiB answers it once
# ("protocol: line too long"), throws it away up to its newline, and goes
# on: a valid hello after it is answered, and EOF ends the worker (exit 0).
# Without a newline after the junk it still sees EOF and exits.  The old
# worker never ended: ~137,000 error replies in 3 s, the hello unanswered.
# Issue 9, item 1.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd jq timeout head tr
need_fabricctl
tmpdir_with_cleanup

HELLO='{"v":1,"id":1,"op":"hello","version":1}'
STATUS_BYE='{"v":1,"id":3,"op":"bye"}'
junk() { head -c "$1" /dev/zero | tr '\0' a; }

# worker_feed NAME: $TMP/NAME.in to a worker (10 s at most); stdout in
# $TMP/NAME.out, exit status in $wrc.
worker_feed() {
	pretty "fabricctl worker <$TMP/$1.in"
	wrc=0
	timeout 10 "$FABRICCTL" worker <"$TMP/$1.in" >"$TMP/$1.out" 2>"$TMP/$1.err" || wrc=$?
	head -c 2000 "$TMP/$1.out" >&2
}
answers() { jq -r '"\(.id) \(.ok) \(.error // .result.version)"' "$TMP/$1.out" | paste -sd';'; }

# 1. Junk, newline, hello, bye: one error, the hello and the bye answered.
{ junk 1100000; printf '\n%s\n%s\n' "$HELLO" "$STATUS_BYE"; } >"$TMP/nl.in"
worker_feed nl
assert_eq "junk+hello: exit status" 0 "$wrc"
assert_eq "junk+hello: answers" "0 false protocol: line too long;1 true 1;3 true null" "$(answers nl)"

# 2. Junk over two limits, then a hello, then EOF (no bye): the worker
#    exits by itself after answering.
{ junk 2200000; printf '\n%s\n' "$HELLO"; } >"$TMP/nl2.in"
worker_feed nl2
assert_eq "2 MiB junk+hello: exit status" 0 "$wrc"
assert_eq "2 MiB junk+hello: answers" "0 false protocol: line too long;1 true 1" "$(answers nl2)"

# 3. Junk with no newline at all, then EOF: one error, then exit.
junk 1100000 >"$TMP/eof.in"
worker_feed eof
assert_eq "junk then EOF: exit status" 0 "$wrc"
assert_eq "junk then EOF: answers" "0 false protocol: line too long" "$(answers eof)"

# 4. A line just under the limit is still a line (not junk): its JSON
#    error, then the hello.
{ printf '"'; junk $((1024 * 1024 - 3)); printf '"\n%s\n' "$HELLO"; } >"$TMP/max.in"
worker_feed max
assert_eq "longest line: exit status" 0 "$wrc"
assert_eq "longest line: answers" "0 false protocol: not JSON;1 true 1" \
	"$(answers max | sed 's/\(not JSON\)[^;]*/\1/')"
echo "worker-long-line: all checks passed" >&2
