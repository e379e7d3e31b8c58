#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# fabricctl status on InfiniBand ports of an ibsim fabric (tests/lab/ibsim),
# checked against ibstat, smpquery and perfquery on the same fabric:
# before the SM (INIT, no LID, no counters), after one opensm sweep
# (ACTIVE, LIDs), per-host width/speed from the netfile (1X QDR and 4X EDR),
# a PMA counter set through the ibsim console, and a cable pulled and
# put back.
set -eu
. "$(dirname "$0")/../lib/common.sh"
. "$TOP/tests/lab/ibsim"

need_cmd ibsim opensm ibstat smpquery perfquery jq
[ -r "$IBSIM_UMAD2SIM" ] || skip "$IBSIM_UMAD2SIM not installed (ibsim-utils)"
need_fabricctl

tmpdir_with_cleanup status-ibsim
cleanup_hook() { ibsim_stop; }

# hca1: 1X QDR (w=1 s=4 on both ends); hca2: 4X EDR (e=2 on both ends);
# hca3: the defaults.  Options go on both ends: ibsim takes the best
# width/speed that both enable.
cat >"$TMP/net" <<'EOF'
Switch	8 "sw1"
[1]	"hca1"[1]	w=1 s=4
[2]	"hca2"[1]	e=2
[3]	"hca3"[1]

Hca	1 "hca1"
[1]	"sw1"[1]	w=1 s=4

Hca	1 "hca2"
[1]	"sw1"[2]	e=2

Hca	1 "hca3"
[1]	"sw1"[3]
EOF

ibsim_start "$TMP/net"

# status HOST: fabricctl status -j attached at HOST; stdout must be JSON
# and stderr quiet (no umad/ibmad chatter).
status() {
	ibsim_run -H "$1" "$FABRICCTL" status -j >"$TMP/status.json" 2>"$TMP/status.err"
	if grep -v 'umad2sim' "$TMP/status.err" | grep -q .; then
		cat "$TMP/status.err" >&2
		fail "fabricctl status wrote diagnostics on a healthy fabric"
	fi
	jq -e . "$TMP/status.json" >/dev/null || fail "status -j is not JSON"
	pretty "$(jq -c '.rdma[0].ports[0] | del(.counters)' "$TMP/status.json")"
}
# port FILTER: a jq filter on the (only) RDMA port of the last status.
port() { jq -r ".rdma[0].ports[0] | $1" "$TMP/status.json"; }
# ibstat_field HOST NAME: "Base lid" etc. from ibstat at HOST.
ibstat_field() {
	ibsim_run -H "$1" ibstat 2>/dev/null | sed -n "s/^[[:space:]]*$2: //p" | head -n 1
}
smp_field() {
	ibsim_run -H "$1" smpquery -D portinfo 0 2>/dev/null | sed -n "s/^$2:\.*//p"
}
perf_field() {
	ibsim_run -H "$1" perfquery 2>/dev/null | sed -n "s/^$2:\.*//p"
}

## Before any SM: ports are up but INIT, without LIDs; no PMA without a LID.
status hca1
assert_eq "schema" "fabricctl.status/1" "$(jq -r .schema "$TMP/status.json")"
assert_eq "rdma devices" 1 "$(jq '.rdma | length' "$TMP/status.json")"
assert_eq "node_type" CA "$(jq -r '.rdma[0].node_type' "$TMP/status.json")"
assert_eq "link_layer" InfiniBand "$(port .link_layer)"
assert_eq "state before SM" INIT "$(port .state)"
assert_eq "state before SM = ibstat" "Initializing" "$(ibstat_field hca1 State)"
assert_eq "phys_state" LINK_UP "$(port .phys_state)"
assert_eq "lid before SM" 0 "$(port .lid)"
assert_eq "counters without a LID" null "$(port .counters)"
assert_eq "counters_supported without a LID" false "$(port .counters_supported)"

## One opensm sweep from hca1.
run ibsim_sm -H hca1

# check_host HOST WIDTH SPEED RATE SMP_WIDTH
check_host() {
	local h=$1 guid
	status "$h"
	assert_eq "$h state" ACTIVE "$(port .state)"
	assert_eq "$h state = ibstat" Active "$(ibstat_field "$h" State)"
	assert_eq "$h phys_state" LINK_UP "$(port .phys_state)"
	assert_eq "$h lid = ibstat" "$(ibstat_field "$h" 'Base lid')" "$(port .lid)"
	assert_eq "$h lid = smpquery" "$(smp_field "$h" Lid)" "$(port .lid)"
	assert_eq "$h sm_lid = ibstat" "$(ibstat_field "$h" 'SM lid')" "$(port .sm_lid)"
	[ "$(port .lid)" -gt 0 ] || fail "$h: no LID after opensm"
	assert_eq "$h port_guid = ibstat" "$(ibstat_field "$h" 'Port GUID')" "$(port .port_guid)"
	assert_eq "$h node_guid = ibstat" "$(ibstat_field "$h" 'Node GUID')" \
		"$(jq -r '.rdma[0].node_guid' "$TMP/status.json")"
	assert_eq "$h width (netfile)" "$2" "$(port .width)"
	assert_eq "$h width = smpquery" "$(smp_field "$h" LinkWidthActive)" "$(port .width)"
	assert_eq "$h speed (netfile)" "$3" "$(port .speed)"
	assert_eq "$h rate_gbps" "$4" "$(port .rate_gbps)"
	assert_eq "$h rate_gbps = width x lane" true \
		"$(jq --arg s "$3" '.rdma[0].ports[0] as $p |
			({"SDR":2.5,"DDR":5,"QDR":10,"FDR":14,"EDR":25}[$s]) as $lane |
			($p.width | rtrimstr("X") | tonumber) * $lane == $p.rate_gbps' "$TMP/status.json")"
	assert_eq "$h active_mtu = smpquery NeighborMTU" "$(smp_field "$h" NeighborMTU)" \
		"$(port .active_mtu)"
	guid=$(port .port_guid)
	assert_eq "$h gid 0" "IB fe80::$(printf '%x:%x' $((guid >> 16 & 0xffff)) $((guid & 0xffff)))" \
		"$(port '.gids[0] | "\(.type) \(.gid)"')"
	assert_eq "$h counters_supported" true "$(port .counters_supported)"
}
check_host hca1 1X QDR 10
check_host hca2 4X EDR 100
assert_eq "hca2 smpquery LinkSpeedExtActive" "25.78125 Gbps" "$(smp_field hca2 LinkSpeedExtActive)"
# ibstat takes the rate from umad2sim's fake sysfs (104 for 4X EDR): we do not.
pretty "ibstat at hca2 says Rate: $(ibstat_field hca2 Rate), fabricctl 100 (from PortInfo)"

## A PMA counter set through the ibsim console shows up, as in perfquery.
ibsim_console 'PerformanceSet "hca1"[1] PortCounters.SymbolErrorCounter=7' | grep -q 'has been set to 7' ||
	fail "ibsim did not take PerformanceSet"
ibsim_console 'PerformanceSet "hca1"[1] PortCounters.LinkDownedCounter=3' >/dev/null
ibsim_console 'PerformanceSet "hca1"[1] PortCounters.PortXmitDiscards=11' >/dev/null
status hca1
assert_eq "symbol_error" 7 "$(port .counters.symbol_error)"
assert_eq "symbol_error = perfquery" "$(perf_field hca1 SymbolErrorCounter)" "$(port .counters.symbol_error)"
assert_eq "link_downed" 3 "$(port .counters.link_downed)"
assert_eq "port_xmit_discards" 11 "$(port .counters.port_xmit_discards)"
assert_eq "port_rcv_errors" 0 "$(port .counters.port_rcv_errors)"
assert_eq "counter names" 17 "$(port '.counters | length')"
[ "$(port .counters.port_xmit_packets)" -gt 0 ] || fail "port_xmit_packets is 0 after MADs"
# the sim's other ports are untouched
status hca2
assert_eq "hca2 symbol_error" 0 "$(port .counters.symbol_error)"

## Pull hca2's cable, then put it back (no SM sweep: INIT again).
ibsim_console 'Unlink "hca2"[1]' >/dev/null
status hca2
assert_eq "hca2 unplugged state" DOWN "$(port .state)"
assert_eq "hca2 unplugged phys_state" POLLING "$(port .phys_state)"
assert_eq "hca2 unplugged = ibstat" Down "$(ibstat_field hca2 State)"
assert_eq "hca2 unplugged width" null "$(port .width)"
assert_eq "hca2 unplugged speed, rate" "null null" "$(port '"\(.speed) \(.rate_gbps)"')"
ibsim_console 'ReLink "hca2"[1]' >/dev/null
status hca2
assert_eq "hca2 relinked state" INIT "$(port .state)"
assert_eq "hca2 relinked width" 4X "$(port .width)"

printf 'status-ibsim: ok\n'
