#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# discover --ib names the ports whose PMA query failed: ibsim drops every
# PortCounters query (attribute 0x12) to chosen HCA ports (console
# `Error "node"[port] 100 18`); the warning names each port (node name,
# node GUID, port number), at most 8, then "and N more".  Their counters
# are null in the JSON, the other ports' are read.
# Fabric: 2-level fat tree, radix 8 (32 HCAs), one opensm sweep.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd ibsim opensm jq
[ -r /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ] || skip "libumad2sim.so missing (ibsim-utils)"
need_fabricctl
# shellcheck source=../lab/ibsim
. "$TOP/tests/lab/ibsim"

tmpdir_with_cleanup discover-ib-pma-warn
cleanup_hook() { ibsim_stop; }

# discover NAME: discover --ib -j, short timeouts (the dropped queries
# cost --timeout each, --retries times); the pma warning line in NAME.warn.
discover() {
	local rc=0
	run ibsim_run "$FABRICCTL" discover --ib -j --timeout 200 --retries 1 >"$TMP/$1.json" 2>"$TMP/$1.err" || rc=$?
	jq -e .schema "$TMP/$1.json" >/dev/null || { cat "$TMP/$1.err" >&2; fail "$1: no JSON (exit $rc)"; }
	grep 'pma query failed' "$TMP/$1.err" >"$TMP/$1.warn" || true
}
guid() { jq -r --arg n "$2" '.nodes[] | select(.name == $n) | .guid' "$TMP/$1.json"; }

run "$TOP/tests/lab/gen-fattree" --levels 2 --radix 8 -o "$TMP/ft.net"
ibsim_start "$TMP/ft.net"
run ibsim_sm

discover clean
assert_eq "clean: no pma warning" "" "$(cat "$TMP/clean.warn")"

# --- one port: named in full.
run ibsim_console 'Error "h0003"[1] 100 18' >/dev/null
discover one
assert_eq "one: warning" \
	"fabricctl: warning: subnet: pma query failed on 1 port: h0003 ($(guid one h0003)) port 1" \
	"$(cat "$TMP/one.warn")"
assert_eq "one: h0003's counters" null \
	"$(jq -c '[.links[] | .a, .b | select(.node == "h0003") | .counters][0]' "$TMP/one.json")"
assert_eq "one: every other port read" 127 \
	"$(jq '[.links[] | .a, .b | select(.counters != null)] | length' "$TMP/one.json")"

# --- ten ports: eight named, "and 2 more".
for n in 2 4 5 6 7 8 9 10 11; do
	run ibsim_console "$(printf 'Error "h%04d"[1] 100 18' "$n")" >/dev/null
done
discover ten
warn=$(cat "$TMP/ten.warn")
case $warn in
"fabricctl: warning: subnet: pma query failed on 10 ports: "*", and 2 more") ;;
*) fail "ten: warning: $warn" ;;
esac
named=$(printf '%s\n' "$warn" | grep -oE 'h[0-9]{4} \(0x[0-9a-f]{16}\) port 1' | sort)
assert_eq "ten: eight ports named" 8 "$(printf '%s\n' "$named" | grep -c .)"
for n in $(printf '%s\n' "$named" | cut -d' ' -f1); do
	case $n in
	h0002 | h0003 | h0004 | h0005 | h0006 | h0007 | h0008 | h0009 | h0010 | h0011) ;;
	*) fail "ten: $n named, its queries were not dropped" ;;
	esac
	printf '%s\n' "$named" | grep -qF "$n ($(guid ten "$n")) port 1" || fail "ten: $n: wrong guid"
done
ibsim_stop
echo "discover-ib-pma-warn: all checks passed"
