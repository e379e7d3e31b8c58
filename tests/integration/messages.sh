#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# Messages a new user reads (issue 12, "unclear or inconsistent words"):
# each states the rule or the cause, not a list of guesses.  No root, no
# namespace: these are refusals before anything is read from the node.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_fabricctl
tmpdir_with_cleanup messages

# --thresholds: status's counter names are accepted; an unknown one lists the valid ones.
fab discover --load-cache /nonexistent --thresholds symbol_error=0,VL15_dropped=1
grep -q "bad threshold" "$TMP/err" && fail "status's counter names refused: $(cat "$TMP/err")"
fab discover --thresholds bogus=1
assert_eq "unknown counter: exit status" 2 "$rc"
grep -qF "bad threshold 'bogus=1' (COUNTER=N or COUNTER=off; counters: symbol_errors, link_error_recovery," "$TMP/err" ||
	fail "unknown counter: valid names not listed: $(cat "$TMP/err")"

# --load-cache: which of missing, unreadable, not a cache.
fab discover --load-cache "$TMP/nonexistent.cache"
assert_eq "missing cache: exit status" 2 "$rc"
grep -qF "$TMP/nonexistent.cache: cannot load ibnetdiscover cache: No such file or directory" "$TMP/err" ||
	fail "missing cache: $(cat "$TMP/err")"
fab discover --load-cache "$TMP"
grep -qF "$TMP: cannot load ibnetdiscover cache: Is a directory" "$TMP/err" ||
	fail "directory as cache: $(cat "$TMP/err")"
printf 'Switch 8 "sw1"\n' >"$TMP/text.topo"
fab discover --load-cache "$TMP/text.topo"
assert_eq "not a cache: exit status" 2 "$rc"
grep -qF "$TMP/text.topo: not an ibnetdiscover cache file (write one with 'ibnetdiscover --cache FILE'" "$TMP/err" ||
	fail "not a cache: $(cat "$TMP/err")"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	: >"$TMP/locked.cache"
	chmod 000 "$TMP/locked.cache"
	chmod 755 "$TMP"
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups "$FABRICCTL" discover \
		--load-cache "$TMP/locked.cache" 2>"$TMP/err" || rc=$?
	assert_eq "unreadable cache: exit status" 2 "$rc"
	grep -qF "locked.cache: cannot load ibnetdiscover cache: Permission denied" "$TMP/err" ||
		fail "unreadable cache: $(cat "$TMP/err")"
fi
# --format ibnetdiscover cannot describe an LLDP graph: refused before anything is read.
fab discover --lldp --format ibnetdiscover
assert_eq "lldp + format ibnetdiscover: exit status" 2 "$rc"
grep -qF -- "--format ibnetdiscover describes an InfiniBand subnet" "$TMP/err" ||
	fail "lldp + format ibnetdiscover: $(cat "$TMP/err")"
# The worker's hello lists every op it answers, and docs/worker-protocol.md
# documents exactly those.
printf '{"v":1,"id":1,"op":"hello","version":1}\n{"v":1,"id":2,"op":"bye"}\n' |
	timeout 10 "$FABRICCTL" worker >"$TMP/hello.out"
ops=$(jq -r 'select(.id == 1) | .result.ops | sort | join(" ")' "$TMP/hello.out")
case " $ops " in *" lldp "*) ;; *) fail "hello ops lack lldp: $ops" ;; esac
doc_ops=$(sed -n 's/^| `\([a-z]*\)` |.*/\1/p' "$TOP/docs/worker-protocol.md" | sort -u | paste -sd' ')
assert_eq "hello ops = docs/worker-protocol.md's requests" "$ops" "$doc_ops"
echo "messages: all checks passed"
