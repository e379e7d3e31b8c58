#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# A node's LLDP system name is outside input: it reaches `discover --csv`
# and the text renderer as the neighbour sent it.  Issue 22, items 7 and 8.
#  1. a system name "=cmd|' /C calc'!A0": discover --csv writes it as the
#     quoted text "'=cmd|...", never as a cell a spreadsheet evaluates
#     (8419e42 wrote =cmd|' /C calc'!A0 as the cell);
#  2. a system name holding a title-setting OSC, a screen clear and a
#     colour: discover's text output shows them as \xNN, no ESC or BEL
#     byte reaches the terminal (8419e42 wrote them raw).
# The neighbour is tests/tools/lldp-inject.c in its own namespace, cabled
# to a lab host whose lldpd reads it; fabricctl asks that lldpd.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq lldpd lldpcli cc od
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=hn$$
tmpdir_with_cleanup fabricctl-hostile
INJ_PID=
cleanup_hook() {
	if [ -n "$INJ_PID" ]; then kill "$INJ_PID" 2>/dev/null || true; wait "$INJ_PID" 2>/dev/null || true; fi
	ip netns del "$P-inj" 2>/dev/null || true
	lab_down --name "$P"
}

run cc -std=c17 -O2 -Wall -Wextra -o "$TMP/lldp-inject" "$TOP/tests/tools/lldp-inject.c"
run lab_up --name "$P" --hosts 1 --leaves 1 --spines 0 --wait
run ip netns add "$P-inj"
run ip -n "$P-h1" link add eth2 type veth peer name swp7 netns "$P-inj"
run ip -n "$P-h1" link set eth2 up
run ip -n "$P-inj" link set swp7 up
SOCK=$LAB_DIR/lldp/h1.sock

# raw_ctl FILE: the number of ESC, BEL and CSI (C1) bytes in FILE.
raw_ctl() { od -An -v -tx1 "$1" | tr ' ' '\n' | grep -c -E '^(1b|07|9b)$' || true; }

# inject NAME: the neighbour on h1:eth2 announces system name NAME; wait
# (its "ready", then h1's lldpd through fabricctl) until h1 sees it.
inject() {
	if [ -n "$INJ_PID" ]; then kill "$INJ_PID"; wait "$INJ_PID" || true; INJ_PID=; fi
	pretty "ip netns exec $P-inj lldp-inject -i swp7 -c inj-$$ -p swp7 -n NAME -b &"
	rm -f "$TMP/inject.out"	# the last run's "ready" must not be read as this one's
	ip netns exec "$P-inj" "$TMP/lldp-inject" -i swp7 -c "inj-$$" -p swp7 -n "$1" -b \
		>"$TMP/inject.out" &
	INJ_PID=$!
	for _ in $(seq 1 100); do
		grep -qs '^ready$' "$TMP/inject.out" && break
		sleep 0.05
	done
	grep -q '^ready$' "$TMP/inject.out" || fail "lldp-inject did not start"
	for _ in $(seq 1 150); do
		ip netns exec "$P-h1" "$FABRICCTL" discover --lldp --lldp-socket "$SOCK" -j \
			>"$TMP/view.json" 2>/dev/null || true
		[ "$(jq -r '[.nodes[] | select(.type == "switch") | .name] | length' "$TMP/view.json" \
			2>/dev/null)" = 2 ] && jq -e --arg c "inj-$$" \
			'[.nodes[] | select(.chassis_id == $c)] | length == 1' "$TMP/view.json" >/dev/null \
			2>&1 && return 0
		sleep 0.1
	done
	cat "$TMP/view.json" >&2
	fail "h1's lldpd never reported the injected neighbour"
}

# --- 1. a formula as a system name ------------------------------------------
FORMULA="=cmd|' /C calc'!A0"
inject "$FORMULA"
fab_ns "$P-h1" discover --lldp --lldp-socket "$SOCK" --csv
assert_eq "csv: rc" 0 "$rc"
assert_eq "csv: the name as quoted text" 1 \
	"$(grep -c -F "\"'$FORMULA\",," "$TMP/out" || true)"
# No field of any row starts with a formula character.
assert_eq "csv: fields starting = + - @" 0 \
	"$(tr ',' '\n' <"$TMP/out" | grep -c -E '^[=+@-]' || true)"

# --- 2. escapes as a system name --------------------------------------------
inject $'sw\e]0;owned\a\e[2J\e[31mred'
fab_ns "$P-h1" discover --lldp --lldp-socket "$SOCK"
assert_eq "text: rc" 0 "$rc"
assert_eq "text: control bytes on stdout" 0 "$(raw_ctl "$TMP/out")"
assert_eq "text: control bytes on stderr" 0 "$(raw_ctl "$TMP/err")"
assert_eq "text: the name, escaped" 1 \
	"$(grep -c -F 'sw\x1b]0;owned\x07\x1b[2J\x1b[31mred' "$TMP/out" || true)"
