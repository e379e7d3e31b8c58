#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# `fabricctl help CMD`: the usage line, what the command does, and its
# options explained as its man page's OPTIONS section explains them (the
# text is generated from man/fabricctl-CMD.8 at build time).  Every long
# option the usage synopsis names must be explained there, so a synopsis
# and a man page cannot drift apart unnoticed.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_fabricctl
tmpdir_with_cleanup help

cmds=$("$FABRICCTL" help | awk '/^commands:/ { f = 1; next } f && NF { print $1 }')
assert_eq "commands listed" "status discover sweep diagnose accept report worker apply verify confirm trace help" \
	"$(echo $cmds)"
for c in $cmds; do
	[ "$c" != help ] || continue
	fab help "$c"
	assert_eq "help $c: exit status" 0 "$rc"
	grep -q '^options:$' "$TMP/out" || fail "help $c: no options section: $(cat "$TMP/out")"
	# option tags: two-space indented lines starting with '-'
	grep '^  -' "$TMP/out" | tr ',' '\n' | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$TMP/tags"
	head -1 "$TMP/out" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$TMP/synopsis"
	missing=$(comm -23 "$TMP/synopsis" "$TMP/tags" | paste -sd' ')
	[ -z "$missing" ] || fail "help $c: synopsis options not explained in fabricctl-$c's OPTIONS: $missing"
	grep -q "^see fabricctl-[a-z]*(8)$" "$TMP/out" || fail "help $c: no man page reference"
	printf '  ok: help %s explains its %s synopsis options\n' "$c" "$(wc -l <"$TMP/synopsis")" >&2
done
# The explanation itself, as the man page has it.
fab help discover
grep -qx -- '  --thresholds COUNTER=N,...' "$TMP/out" || fail "help discover: --thresholds tag"
grep -A1 -- '^  --thresholds' "$TMP/out" | grep -q 'Error counter thresholds (a counter strictly above N is a' ||
	fail "help discover: --thresholds not explained: $(grep -A2 -- '--thresholds' "$TMP/out")"
fab help confirm
assert_eq "help confirm: its one option" "--revert" "$(grep '^  -' "$TMP/out" | sed 's/^ *//')"
fab help nosuch
assert_eq "help nosuch: exit status" 2 "$rc"
echo "help: all checks passed"
