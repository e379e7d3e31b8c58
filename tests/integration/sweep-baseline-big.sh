#!/bin/bash
# --baseline reads only what it compares (issue 22, item 10): a 109 MB
# baseline of 400k pairs (tests/bench/gen-big-baseline.awk) under a
# 256 MiB address-space limit is read, its three pairs of this sweep's
# hosts found, at most 64 MiB peak RSS.  8419e42 held the whole tree
# (1.17 GB, 15 s here) and under the limit failed with a blank message
# ("big.json:-1:-1: ").  Errors name their cause: a truncated document
# names the place.  No root, no traffic: sweep --dry-run loads the baseline.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd awk /usr/bin/time
need_fabricctl
tmpdir_with_cleanup fabricctl-baseline

awk -v PAIRS=400000 -f "$TOP/tests/bench/gen-big-baseline.awk" >"$TMP/big.json"
printf 'h1 10.0.0.1\nh2 10.0.0.2\nh3 10.0.0.3\n' >"$TMP/hosts"
pretty "ulimit -v 262144; fabricctl sweep --hosts hosts --dry-run --baseline big.json"
rc=0
(ulimit -v 262144; exec /usr/bin/time -f '%M' -o "$TMP/rss" "$FABRICCTL" sweep --hosts "$TMP/hosts" \
	--dry-run --baseline "$TMP/big.json") >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out" "$TMP/err" >&2
assert_eq "big baseline: rc" 0 "$rc"
assert_eq "big baseline: dry run" "sweep --dry-run: 3 nodes, 3 pairs in 3 rounds (all-pairs)" \
	"$(head -n 1 "$TMP/out")"
rss=$(tail -n 1 "$TMP/rss")
echo "peak RSS ${rss} KiB for a $(stat -c %s "$TMP/big.json")-byte baseline" >&2
assert_eq "big baseline: peak RSS <= 64 MiB" true "$([ "$rss" -le 65536 ] && echo true || echo false)"

# A cut document: the error names the place, not a blank.
head -c 50000000 "$TMP/big.json" >"$TMP/cut.json"
fab sweep --hosts "$TMP/hosts" --dry-run --baseline "$TMP/cut.json"
assert_eq "cut baseline: rc" 2 "$rc"
assert_eq "cut baseline: message" true \
	"$(grep -q -E "^fabricctl sweep: $TMP/cut.json:[0-9]+:[0-9]+: [a-z]" "$TMP/err" && echo true || echo false)"
