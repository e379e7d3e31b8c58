#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# PMA counters many in flight (src/sys/pma.c) against the sequential
# reader (--max-pmas 0: libibmad's pma_query_via, one at a time) on an
# ibsim fat tree, after PerformanceSet on ports of every kind (CA, leaf
# down- and uplink, spine): every error counter of every linked port is
# the same in both, and in a window of 1; the 64-bit data counter set
# through PortCountersExtended arrives whole; data and packet counters
# (which the MADs themselves move) never go backwards.  Then PortCounters
# GETs to a switch dropped 40% of the time (ibsim Error, attribute 0x12):
# the engine resends them and still reads every port, equal to the
# sequential read without drops.  Last, a PerfMgt agent that cannot be
# registered (a preloaded umad_register refusing the first one): the
# warning names the fallback, and the counters are read one at a time.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd ibsim opensm jq awk
[ -r /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ] || skip "libumad2sim.so missing (ibsim-utils)"
need_fabricctl
# shellcheck source=../lab/ibsim
. "$TOP/tests/lab/ibsim"

tmpdir_with_cleanup pma-window-ib
cleanup_hook() { ibsim_stop; }

## A bad --max-pmas is a usage error (exit 2); nothing is queried.
for bad in 129 x -1; do
	rc=0
	"$FABRICCTL" discover --ib --max-pmas "$bad" >/dev/null 2>"$TMP/bad.err" || rc=$?
	assert_eq "--max-pmas $bad: exit" 2 "$rc"
	grep -qF -- "--max-pmas $bad: want a number from 0 to 128" "$TMP/bad.err" ||
		fail "--max-pmas $bad: no message: $(cat "$TMP/bad.err")"
done

"$TOP/tests/lab/gen-fattree" --levels 2 --radix 8 --hcas 32 -o "$TMP/net"
ibsim_start "$TMP/net"
run ibsim_sm

perfset() {
	ibsim_console "PerformanceSet $1" | grep -q 'has been set' || fail "ibsim did not take PerformanceSet $1"
}
perfset '"h0003"[1] PortCounters.SymbolErrorCounter=57'
perfset '"h0003"[1] PortCounters.LinkDownedCounter=3'
perfset '"leaf-001"[2] PortCounters.PortRcvErrors=11'
perfset '"leaf-001"[2] PortCounters.LocalLinkIntegrityErrors=5'
perfset '"leaf-001"[2] PortCounters.ExcessiveBufferOverrunErrors=9'
perfset '"leaf-003"[6] PortCounters.LinkErrorRecoveryCounter=200'
perfset '"spine-01"[1] PortCounters.PortXmitDiscards=1234'
perfset '"spine-01"[1] PortCounters.VL15Dropped=77'
perfset '"spine-02"[8] PortCounters.PortXmitWait=4000000000'
perfset '"leaf-002"[5] PortCountersExtended.PortXmitData=1099511627781'

# read NAME ARGS...: discover -v -j with counters into $TMP/NAME.{json,err}.
read_counters() {
	local name=$1
	shift
	ibsim_run "$FABRICCTL" -v discover --ib -j "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" || true
	jq -e '.links | length == 64' "$TMP/$name.json" >/dev/null ||
		{ cat "$TMP/$name.err" >&2; fail "$name: no 64-link document"; }
	grep -q 'subnet: counters of 128 ports, 44 nodes with PortCountersExtended' "$TMP/$name.err" ||
		{ grep subnet "$TMP/$name.err" >&2; fail "$name: not every port's counters"; }
}
# Every linked port's error counters (and XmitWait), "guid:port k=v ...".
errs() {
	jq -r '.links[] | .a, .b | "\(.guid):\(.port) \(.counters // {} | to_entries |
	       map(select(.key | test("data|packets") | not)) | map("\(.key)=\(.value)") | join(" "))"' \
		"$1" | sort
}
# counter FILE NODE PORT NAME
counter() {
	jq -r --arg n "$2" --argjson p "$3" --arg c "$4" \
		'.links[] | .a, .b | select(.node == $n and .port == $p) | .counters[$c]' "$1"
}
# Data and packet counters: "guid:port name value" lines.
flows() {
	jq -r '.links[] | .a, .b | .guid as $g | .port as $p | .counters | to_entries[] |
	       select(.key | test("data|packets")) | "\($g):\($p) \(.key) \(.value)"' "$1" | sort
}

## The same fabric read sequentially, with 64 in flight, with a window of 1.
read_counters seq --max-pmas 0
read_counters par
read_counters one --max-pmas 1
grep -q ', one query at a time (libibmad))' "$TMP/seq.err" || fail "--max-pmas 0 did not read one at a time"
grep -q ', max 64 pma queries in flight, 0 resent)' "$TMP/par.err" || fail "the default is not 64 in flight"
grep -q ', max 1 pma queries in flight' "$TMP/one.err" || fail "--max-pmas 1 not taken"
for f in seq par one; do errs "$TMP/$f.json" >"$TMP/$f.errs"; done
assert_eq "ports read" 128 "$(grep -c 'symbol_errors=' "$TMP/par.errs")"
diff -u "$TMP/seq.errs" "$TMP/par.errs" >&2 || fail "64 in flight: error counters differ from the sequential read"
diff -u "$TMP/seq.errs" "$TMP/one.errs" >&2 || fail "window 1: error counters differ from the sequential read"
printf '  ok: error counters of all 128 ports equal (sequential, 64 and 1 in flight)\n' >&2
# The values set, where they were set (so the comparison is not of zeros).
assert_eq "h0003[1] symbol_errors" 57 "$(counter "$TMP/par.json" h0003 1 symbol_errors)"
assert_eq "h0003[1] link_downed" 3 "$(counter "$TMP/par.json" h0003 1 link_downed)"
assert_eq "leaf-001[2] port_rcv_errors" 11 "$(counter "$TMP/par.json" leaf-001 2 port_rcv_errors)"
assert_eq "leaf-001[2] local_link_integrity_errors" 5 "$(counter "$TMP/par.json" leaf-001 2 local_link_integrity_errors)"
assert_eq "leaf-001[2] excessive_buffer_overrun_errors" 9 "$(counter "$TMP/par.json" leaf-001 2 excessive_buffer_overrun_errors)"
assert_eq "leaf-003[6] link_error_recovery" 200 "$(counter "$TMP/par.json" leaf-003 6 link_error_recovery)"
assert_eq "spine-01[1] port_xmit_discards" 1234 "$(counter "$TMP/par.json" spine-01 1 port_xmit_discards)"
assert_eq "spine-01[1] vl15_dropped" 77 "$(counter "$TMP/par.json" spine-01 1 vl15_dropped)"
assert_eq "spine-02[8] port_xmit_wait" 4000000000 "$(counter "$TMP/par.json" spine-02 8 port_xmit_wait)"
# 2^40 + 5 set; MADs add a few words since: whole 64 bits in both reads.
for f in seq par; do
	v=$(counter "$TMP/$f.json" leaf-002 5 port_xmit_data)
	awk -v v="$v" 'BEGIN { exit !(v >= 1099511627781 && v < 1099511627781 + 1000000) }' ||
		fail "$f: leaf-002[5] port_xmit_data $v, not 2^40+5 and a few MADs"
done
# Data and packets: read later, never less, and not by more than MADs explain.
flows "$TMP/seq.json" >"$TMP/seq.flows"
flows "$TMP/par.json" >"$TMP/par.flows"
join <(awk '{ print $1 "/" $2, $3 }' "$TMP/seq.flows") <(awk '{ print $1 "/" $2, $3 }' "$TMP/par.flows") |
	awk 'NF != 3 || $3 < $2 || $3 - $2 > 1000000 { print "bad: " $0; bad = 1 } END { exit bad }' >&2 ||
	fail "data/packet counters of the engine out of line with the sequential read"
assert_eq "data/packet counters compared" 512 "$(wc -l <"$TMP/par.flows")"

## PortCounters to leaf-004 dropped 40% of the time: resent until answered.
ibsim_console 'Error "leaf-004"[0] 40 0x12' >/dev/null
read_counters lossy --timeout 100 --retries 12
ibsim_console 'Error "leaf-004"[0] 0' >/dev/null
resent=$(sed -n 's/.*pma queries in flight, \([0-9]*\) resent.*/\1/p' "$TMP/lossy.err")
[ "${resent:-0}" -gt 0 ] || fail "no PortCounters resent with 40% dropped"
errs "$TMP/lossy.json" >"$TMP/lossy.errs"
diff -u "$TMP/seq.errs" "$TMP/lossy.errs" >&2 || fail "with drops: error counters differ from the sequential read"
printf '  ok: 40%% of PortCounters to leaf-004 dropped: %s resent, all 128 ports equal\n' "$resent" >&2

## No PerfMgt agent for the engine: the sequential fallback, and it says so.
if command -v cc >/dev/null 2>&1; then
	cat >"$TMP/noagent.c" <<-'EOF2'
	#define _GNU_SOURCE
	#include <dlfcn.h>
	#include <stdint.h>
	/* Refuse the first PerfMgt (class 4) agent; later ones register. */
	int umad_register(int fd, int mgmt_class, int mgmt_version, uint8_t rmpp_version,
			  long method_mask[16 / sizeof(long)])
	{
		static int (*real)(int, int, int, uint8_t, long *);
		static int refused;

		if (!real)
			*(void **)&real = dlsym(RTLD_NEXT, "umad_register");
		if (mgmt_class == 4 && !refused++)
			return -1;
		return real(fd, mgmt_class, mgmt_version, rmpp_version, method_mask);
	}
	EOF2
	cc -shared -fPIC -o "$TMP/noagent.so" "$TMP/noagent.c" -ldl || fail "cc failed"
	LD_PRELOAD=$TMP/noagent.so read_counters noagent
	grep -q 'subnet: pma: cannot register a PerfMgt agent: reading counters one query at a time (libibmad)' \
		"$TMP/noagent.err" || { cat "$TMP/noagent.err" >&2; fail "fallback not announced"; }
	grep -q ', one query at a time (libibmad))' "$TMP/noagent.err" || fail "fallback not taken"
	errs "$TMP/noagent.json" >"$TMP/noagent.errs"
	diff -u "$TMP/seq.errs" "$TMP/noagent.errs" >&2 || fail "fallback: error counters differ"
	printf '  ok: no PerfMgt agent: fallback announced, counters equal\n' >&2
else
	printf '  skipped: the fallback case (no cc)\n' >&2
fi
echo "PASS pma-window-ib"
