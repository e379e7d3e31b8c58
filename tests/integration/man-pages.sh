#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# Every man page renders from the tree, before any install: `man -l PAGE`
# exits 0 with nothing on stderr (no failed .so of another page), and
# groff with every warning (-ww) says nothing.  Each page's NAME line names
# the page.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd man groff
tmpdir_with_cleanup

n=0
for page in "$TOP"/man/*.[0-9]; do
	base=$(basename "$page")
	name=${base%.*}
	pretty "man -l man/$base; groff -man -Tutf8 -ww -z man/$base"
	rc=0
	MANWIDTH=80 man -l "$page" >"$TMP/out" 2>"$TMP/err" || rc=$?
	assert_eq "$base: man -l exit status" 0 "$rc"
	[ ! -s "$TMP/err" ] || fail "$base: man -l says: $(cat "$TMP/err")"
	[ "$(wc -l <"$TMP/out")" -ge 10 ] || fail "$base: man -l printed $(wc -l <"$TMP/out") lines"
	grep -q "^ *$name\b.* - " "$TMP/out" || fail "$base: NAME does not name $name"
	groff -man -Tutf8 -ww -z "$page" >"$TMP/groff" 2>&1 || fail "$base: groff failed: $(cat "$TMP/groff")"
	[ ! -s "$TMP/groff" ] || fail "$base: groff warnings: $(cat "$TMP/groff")"
	n=$((n + 1))
done
assert_eq "pages checked (man/*.[0-9])" "$(find "$TOP/man" -name '*.[0-9]' | wc -l)" "$n"
[ "$n" -ge 13 ] || fail "only $n man pages found"
echo "man-pages: $n pages render with man -l and groff -ww, no warning" >&2
