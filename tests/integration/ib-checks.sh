#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# fabricctl discover --ib --checks against ibsim and opensm's routing engines:
#   - a 2-level fat tree (radix 8, 32 HCAs) routed by ftree: every CA pair
#     reaches, no credit loop, every tier exactly even (the documented bound
#     for ftree on a full fat tree: max = min), and the leaf-to-spine tier
#     carries exactly the ordered HCA pairs on different leaves (counted
#     from ibnetdiscover); routed by updn: reachable, no credit loop;
#   - one LFT entry of leaf-001 changed afterwards through a SubnSet(LFT)
#     MAD (tests/tools/ib-lft-set.c): taken out, exactly the 4 HCAs of
#     leaf-001 are named as unreachable to that LID, at leaf-001, reason
#     no-entry, and ibtracert fails on one of those pairs too; pointed at
#     an HCA port, the same pairs as a wrong end naming the HCA reached;
#   - a ring of 5 switches routed by minhop (opensm documents that it does
#     not avoid credit loops): two loops, each 5 channels chained switch to
#     switch round the ring, every channel a ring cable of ibnetdiscover's,
#     one clockwise and one counter-clockwise, both on VL 0 once the SL2VL
#     tables are read (no SA left: SL 0); the same ring routed by updn
#     from a root: none;
#   - the ring routed by lash and by dfsssp (opensm left running, its SA
#     answering PathRecord): loops on one VL, none per VL, as many VLs as
#     lash says it needed, one pair's SL as saquery gives it among them;
#     then every switch's SL2VL tables set to VL 0 by SubnSet
#     (tests/tools/ib-sl2vl-set.c): the two loops again, on VL 0;
#   - two opensm on the ring, priority 10 on h1 and 2 on h3: both listed,
#     master and standby with the priorities, GUIDs and states sminfo
#     reports, in agreement;
#   - two HCAs whose port GUIDs collide (ibsim caguid=): duplicate-guid;
#   - two HCAs sharing a node GUID (ibsim's console Guid command, after the
#     netfile, which refuses it): the walk keeps one, and the other, read
#     behind the linked-up switch port left without a cable, is a
#     duplicate-guid at that port naming the node kept and where it is;
#   - a 5 x 5 torus routed by dor: 20 loops on VL 0 (every row and column,
#     each way); by torus-2QoS: none per VL, lanes changing at datelines.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd ibsim opensm ibnetdiscover ibtracert sminfo cc pkg-config jq awk
[ -r /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ] || skip "libumad2sim.so missing (ibsim-utils)"
need_fabricctl
# shellcheck source=../lab/ibsim
. "$TOP/tests/lab/ibsim"

tmpdir_with_cleanup ib-checks
SMS=()
# sm_kill PID: stop one opensm started by sm_bg, and wait until it is gone.
sm_kill() {
	local i
	kill "$1" 2>/dev/null || return 0
	for i in $(seq 1 100); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	kill -KILL "$1" 2>/dev/null || true
}
cleanup_hook() {
	local p
	for p in "${SMS[@]}"; do
		sm_kill "$p"
	done
	ibsim_stop
}
# sm_bg NODE OUT CMD...: CMD under umad2sim at NODE in the background, output in OUT; its own
# pid into SMS (ibsim_run runs CMD in a subshell that execs it: the child of the job, whose
# pid alone would leave the SM running when killed).
sm_bg() {
	local node=$1 out=$2 job c="" i
	shift 2
	ibsim_run -H "$node" "$@" >"$out" 2>&1 &
	job=$!
	# Until the job's child is CMD itself (before that, a command substitution of ibsim_run's).
	for i in $(seq 1 200); do
		c=$(cat "/proc/$job/task/$job/children" 2>/dev/null) || true
		c=${c%% *}
		[ -n "$c" ] && [ "$(cat "/proc/$c/comm" 2>/dev/null)" = "${1##*/}" ] && break
		c=""
		sleep 0.05
	done
	[ -n "$c" ] || fail "$*: no process under job $job"
	SMS+=("$c")
}

# shellcheck disable=SC2046 # pkg-config's flags are words
run cc -std=c17 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$TMP/ib-lft-set" "$TOP/tests/tools/ib-lft-set.c" \
	$(pkg-config --libs libibmad libibumad)
# shellcheck disable=SC2046
run cc -std=c17 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$TMP/ib-sl2vl-set" "$TOP/tests/tools/ib-sl2vl-set.c" \
	$(pkg-config --libs libibmad libibumad)

# sm ENGINE [OPENSM ARGS...]: one opensm sweep with that routing engine.
sm() {
	local engine=$1
	shift
	rm -rf "$IBSIM_DIR/opensm"
	mkdir -p "$IBSIM_DIR/opensm"
	OSM_TMP_DIR=$IBSIM_DIR/opensm OSM_CACHE_DIR=$IBSIM_DIR/opensm \
		run ibsim_run timeout 60 opensm -o -R "$engine" "$@" -f "$IBSIM_DIR/opensm/log" \
		>"$IBSIM_DIR/opensm/out" 2>&1 || fail "opensm -R $engine failed"
	grep -q "$engine tables configured on all switches" "$IBSIM_DIR/opensm/log" ||
		fail "opensm did not route with $engine: $(grep -E 'ERR|tables' "$IBSIM_DIR/opensm/log" | tail -3)"
}
# checks NAME FAMILIES: discover with those checks, JSON in $TMP/NAME.json, exit status in $rc.
checks() {
	rc=0
	ibsim_run "$FABRICCTL" discover --ib --no-counters --checks "$2" -j >"$TMP/$1.json" \
		2>"$TMP/$1.err" || rc=$?
	[ "$rc" -le 1 ] || { cat "$TMP/$1.err" >&2; fail "$1: discover exit $rc"; }
}
q() { local n=$1; shift; jq -r "$@" "$TMP/$n.json"; }
# ibnetdiscover's CA ports: "LID NAME SWITCH", and switches: "NAME LID GUID".
ibnet() {
	ibsim_run ibnetdiscover >"$TMP/ibnet" 2>/dev/null
	awk '/^Ca/ { match($0, /# "[^"]*"/); name = substr($0, RSTART + 3, RLENGTH - 4); next }
	     /^\[[0-9]+\]\(/ && name != "" {
		match($0, /# lid [0-9]+ /); lid = substr($0, RSTART + 6, RLENGTH - 7)
		match($0, /lmc [0-9]+ "[^"]*"/); s = substr($0, RSTART, RLENGTH); sub(/^lmc [0-9]+ "/, "", s); sub(/"$/, "", s)
		print lid, name, s }
	     /^(Switch|Rt)/ { name = "" }' "$TMP/ibnet" | sort -n >"$TMP/cas"
	awk '/^Switch/ { match($0, /# "[^"]*"/); n = substr($0, RSTART + 3, RLENGTH - 4)
		match($0, / lid [0-9]+ /); l = substr($0, RSTART + 5, RLENGTH - 6)
		match($0, /"S-[0-9a-f]+"/); print n, l, "0x" substr($0, RSTART + 3, RLENGTH - 4) }' \
		"$TMP/ibnet" >"$TMP/switches"
}
ca_lid() { awk -v n="$1" '$2 == n { print $1 }' "$TMP/cas"; }
sw_field() { awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$TMP/switches"; }

# ---- a fat tree ----
run "$TOP/tests/lab/gen-fattree" --levels 2 --radix 8 --hcas 32 -o "$TMP/ft.net"
ibsim_start "$TMP/ft.net"
sm ftree
ibnet
assert_eq "ibnetdiscover: CA ports" 32 "$(wc -l <"$TMP/cas")"
checks ftree all,-sm
assert_eq "ftree: exit" 0 "$rc"
assert_eq "ftree: checks" '["routes","credit-loops","balance","ids"]' "$(q ftree -c .ib_checks.checks)"
assert_eq "ftree: pairs, unreachable" "992 0" "$(q ftree '.ib_checks.routes | "\(.pairs) \(.unreachable)"')"
assert_eq "ftree: credit loops" 0 "$(q ftree .ib_checks.credit_loops.loops)"
assert_eq "ftree: tiers" "ca>sw1 sw1>ca sw1>sw2 sw2>sw1" "$(q ftree '[.ib_checks.balance.tiers[].tier] | join(" ")')"
assert_eq "ftree: tiers uneven (max != min)" "" "$(q ftree '.ib_checks.balance.tiers[] | select(.max != .min) | .tier')"
cross=$(awk '{ n[$3]++; t++ } END { for (l in n) s += n[l] * (t - n[l]); print s }' "$TMP/cas")
assert_eq "ftree: leaf>spine routes = HCA pairs across leaves" "$cross" \
	"$(q ftree '.ib_checks.balance.tiers[] | select(.tier == "sw1>sw2") | .links * .min')"
assert_eq "ftree: problems" 0 "$(q ftree '.problems | length')"
sm updn
checks updn routes,credit-loops
assert_eq "updn: exit, unreachable, loops" "0 0 0" \
	"$rc $(q updn '"\(.ib_checks.routes.unreachable) \(.ib_checks.credit_loops.loops)"')"

# ---- one LFT entry changed after the SM ----
LEAF1=$(sw_field leaf-001 2)
DST=h0005
DLID=$(ca_lid "$DST")
if [ -z "$LEAF1" ] || [ -z "$DLID" ]; then fail "leaf-001 or $DST lid not found"; fi
awk '$3 == "leaf-001" { print $2 }' "$TMP/cas" | sort >"$TMP/leaf1-cas"
assert_eq "CAs on leaf-001" 4 "$(wc -l <"$TMP/leaf1-cas")"
grep -qx "$DST" "$TMP/leaf1-cas" && fail "$DST is on leaf-001: the test proves nothing"
run ibsim_run "$TMP/ib-lft-set" "$LEAF1" "$DLID" 255
checks hole routes
assert_eq "hole: exit" 1 "$rc"
assert_eq "hole: unreachable" 4 "$(q hole .ib_checks.routes.unreachable)"
q hole '.ib_checks.routes.unreachable_pairs[].src.node' | sort >"$TMP/hole-src"
diff -u "$TMP/leaf1-cas" "$TMP/hole-src" >&2 || fail "hole: sources != the HCAs of leaf-001"
assert_eq "hole: every pair at leaf-001, lid $DLID, no-entry, to $DST" "leaf-001 $DLID no-entry $DST" \
	"$(q hole '[.ib_checks.routes.unreachable_pairs[] | "\(.switch.node) \(.dlid) \(.reason) \(.dst.node)"] | unique | join(",")')"
assert_eq "hole: one problem naming leaf-001 and $DST" "unreachable leaf-001 $DST" \
	"$(q hole '[.problems[] | "\(.kind) \(.ports[0].node) \(.ports[1].node)"] | join(",")')"
src=$(head -1 "$TMP/hole-src")
trc=0
run ibsim_run ibtracert "$(ca_lid "$src")" "$DLID" >"$TMP/hole.tr" 2>&1 || trc=$?
grep -q "^To " "$TMP/hole.tr" && fail "ibtracert $src -> $DST still reaches it"
printf '  ok: ibtracert %s -> %s: rc %s, no destination\n' "$src" "$DST" "$trc" >&2
# The entry pointed at leaf-001 port 1: its HCA, which does not hold the LID.
run ibsim_run "$TMP/ib-lft-set" "$LEAF1" "$DLID" 1
p1=$(awk '/^Switch.*"leaf-001"/ { f = 1; next } f && /^\[1\]/ { match($0, /# "[^"]*"/); print substr($0, RSTART + 3, RLENGTH - 4); exit }' "$TMP/ibnet")
checks wrong routes
assert_eq "wrong end: unreachable" 4 "$(q wrong .ib_checks.routes.unreachable)"
assert_eq "wrong end: reason, port, reached" "wrong-end 1 $p1" \
	"$(q wrong '[.ib_checks.routes.unreachable_pairs[] | "\(.reason) \(.port) \(.to.node)"] | unique | join(",")')"
ibsim_stop

# ---- a ring of five switches ----
{
	for i in 1 2 3 4 5; do printf 'Hca\t1 "h%d"\n[1]\t"ring-%d"[1]\n\n' "$i" "$i"; done
	for i in 1 2 3 4 5; do
		printf 'Switch\t4 "ring-%d"\n[1]\t"h%d"[1]\n[2]\t"ring-%d"[3]\n[3]\t"ring-%d"[2]\n\n' \
			"$i" "$i" $((i % 5 + 1)) $(((i + 3) % 5 + 1))
	done
} >"$TMP/ring.net"
ibsim_start "$TMP/ring.net"
sm minhop
ibnet
checks minhop routes,credit-loops
assert_eq "minhop ring: exit" 1 "$rc"
assert_eq "minhop ring: unreachable" 0 "$(q minhop .ib_checks.routes.unreachable)"
assert_eq "minhop ring: loops" 2 "$(q minhop .ib_checks.credit_loops.loops)"
assert_eq "minhop ring: channels per loop" "5 5" "$(q minhop '[.ib_checks.credit_loops.cycles[].channels | length] | join(" ")')"
# Chained: each channel enters the switch the next one leaves, round the ring.
# shellcheck disable=SC2016 # jq variables
assert_eq "minhop ring: loops chained" "true true" \
	"$(q minhop '[.ib_checks.credit_loops.cycles[].channels | . as $c | [range(length)] | all(. as $i | $c[$i].to.node == $c[($i + 1) % ($c | length)].from.node)] | map(tostring) | join(" ")')"
assert_eq "minhop ring: every switch in each loop" "ring-1 ring-2 ring-3 ring-4 ring-5" \
	"$(q minhop '[.ib_checks.credit_loops.cycles[0].channels[].from.node] | sort | unique | join(" ")')"
# Every channel a cable of ibnetdiscover's; port 2 leaves clockwise, 3 counter: one loop each way.
awk '/^Switch/ { match($0, /# "[^"]*"/); cur = substr($0, RSTART + 3, RLENGTH - 4); next }
     /^\[[23]\]/ && cur != "" { match($0, /^\[[0-9]+\]/); lp = substr($0, 2, RLENGTH - 2)
	match($0, /"\[[0-9]+\]/); rp = substr($0, RSTART + 2, RLENGTH - 3)
	match($0, /# "[^"]*"/); print cur "[" lp "]>" substr($0, RSTART + 3, RLENGTH - 4) "[" rp "]" }' \
	"$TMP/ibnet" | sort >"$TMP/ring-cables"
q minhop '.ib_checks.credit_loops.cycles[].channels[] | "\(.from.node)[\(.from.port)]>\(.to.node)[\(.to.port)]"' |
	sort >"$TMP/loop-channels"
diff -u "$TMP/ring-cables" "$TMP/loop-channels" >&2 || fail "loop channels != the ring's cables, each way once"
assert_eq "minhop ring: loop directions" "2 3" \
	"$(q minhop '[.ib_checks.credit_loops.cycles[] | .channels[0].from.port] | sort | map(tostring) | join(" ")')"
assert_eq "minhop ring: problems" "credit-loop credit-loop" "$(q minhop '[.problems[].kind] | join(" ")')"
# Looping on one VL: the SL2VL tables are read (ibsim's identity tables; 3 inputs x 2 switch
# outputs less 2 U-turns a switch), the SM that routed is gone (opensm -o), so every path is
# taken on SL 0: both loops stay, on VL 0.
assert_eq "minhop ring: by vl, tables, per vl" 'true 20 [{"vl":0,"channels":10,"dependencies":10,"loops":2}]' \
	"$(q minhop '.ib_checks.credit_loops | "\(.by_vl) \(.sl2vl_tables) \(.per_vl | tojson)"')"
assert_eq "minhop ring: path sls" "not read" "$(q minhop '.ib_checks.credit_loops.path_sls[0:8]')"
assert_eq "minhop ring: cycles on vl 0" "0" "$(q minhop '[.ib_checks.credit_loops.cycles[].vls[]] | unique | join(" ")')"
sw_field ring-1 3 >"$TMP/roots"
sm updn -a "$TMP/roots"
checks updn-ring routes,credit-loops
assert_eq "updn ring from a root: exit, unreachable, loops" "0 0 0" \
	"$rc $(q updn-ring '"\(.ib_checks.routes.unreachable) \(.ib_checks.credit_loops.loops)"')"

# ---- lanes: opensm's lash and dfsssp break the ring's loops by SL, SL2VL on VL 0 undoes it ----
# [SM_NODE=NODE] sm_daemon ENGINE [OPENSM ARGS...]: an opensm left running at NODE (h5) (its
# SA answers PathRecord), no periodic sweep (-s 0), its log flushed line by line (-d2) for the
# readiness wait.
sm_daemon() {
	local engine=$1
	shift
	rm -rf "$IBSIM_DIR/osm-$engine"
	mkdir -p "$IBSIM_DIR/osm-$engine"
	OSM_TMP_DIR=$IBSIM_DIR/osm-$engine OSM_CACHE_DIR=$IBSIM_DIR/osm-$engine \
		sm_bg "${SM_NODE:-h5}" "$IBSIM_DIR/osm-$engine/out" opensm -d2 -s 0 -R "$engine" "$@" \
		-f "$IBSIM_DIR/osm-$engine/log"
	for i in $(seq 1 300); do
		grep -q "SUBNET UP" "$IBSIM_DIR/osm-$engine/log" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "opensm -R $engine: no SUBNET UP in 30 s"
}
sm_daemon_stop() {
	sm_kill "${SMS[-1]}"
	unset 'SMS[-1]'
}
sm_daemon lash
grep -q "lash tables configured on all switches" "$IBSIM_DIR/osm-lash/log" || fail "opensm did not route with lash"
lanes=$(awk '/Lanes needed:/ { for (i = 1; i < NF; i++) if ($i == "needed:") { n = $(i + 1); sub(/,/, "", n) } } END { print n }' \
	"$IBSIM_DIR/osm-lash/log")
checks lash routes,credit-loops
assert_eq "lash ring: exit, unreachable, loops" "0 0 0" \
	"$rc $(q lash '"\(.ib_checks.routes.unreachable) \(.ib_checks.credit_loops.loops)"')"
assert_eq "lash ring: by vl, path sls from the sa" "true sa" "$(q lash '.ib_checks.credit_loops | "\(.by_vl) \(.path_sls)"')"
assert_eq "lash ring: vls = lanes opensm needed" "$lanes" "$(q lash .ib_checks.credit_loops.vls)"
assert_eq "lash ring: every vl acyclic, no cross-vl dependency" "0 0" \
	"$(q lash '.ib_checks.credit_loops | "\([.per_vl[].loops] | add) \(.cross_vl_dependencies)"')"
# The same ten switch dependencies as on one VL, spread over the lanes.
assert_eq "lash ring: dependencies over the vls = one-vl ones" 10 "$(q lash '[.ib_checks.credit_loops.per_vl[].dependencies] | add')"
# The SL of one pair as saquery has it: the pair is on that VL (identity tables).
h1=$(ca_lid h1)
h3=$(ca_lid h3)
sl=$(ibsim_run saquery PR --slid "$h1" --dlid "$h3" 2>/dev/null | awk -F. '/^[ \t]*sl\./ { print $NF }')
[ -n "$sl" ] || fail "saquery PR $h1 -> $h3: no sl"
sl=$((sl))
printf '  ok: saquery PR h1 -> h3: sl %s\n' "$sl" >&2
# shellcheck disable=SC2016 # jq variables
assert_eq "lash ring: sl $sl among the vls used" 1 "$(q lash --argjson v "$sl" '[.ib_checks.credit_loops.per_vl[] | select(.vl == $v)] | length')"
# Every table of every switch maps every SL to VL 0: the loops are back, on VL 0.
for sw in ring-1 ring-2 ring-3 ring-4 ring-5; do
	run ibsim_run "$TMP/ib-sl2vl-set" "$(sw_field "$sw" 2)" all all 0 >/dev/null
done
checks lash-vl0 routes,credit-loops
assert_eq "lash, sl2vl all vl 0: exit, loops" "1 2" "$rc $(q lash-vl0 .ib_checks.credit_loops.loops)"
assert_eq "lash, sl2vl all vl 0: per vl" '[{"vl":0,"channels":10,"dependencies":10,"loops":2}]' \
	"$(q lash-vl0 -c .ib_checks.credit_loops.per_vl)"
assert_eq "lash, sl2vl all vl 0: problems" "credit-loop credit-loop" "$(q lash-vl0 '[.problems[].kind] | join(" ")')"
for sw in ring-1 ring-2 ring-3 ring-4 ring-5; do
	run ibsim_run "$TMP/ib-sl2vl-set" "$(sw_field "$sw" 2)" all all 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7 >/dev/null
done
sm_daemon_stop
sm_daemon dfsssp
grep -q "dfsssp tables configured on all switches" "$IBSIM_DIR/osm-dfsssp/log" || fail "opensm did not route with dfsssp"
checks dfsssp routes,credit-loops
assert_eq "dfsssp ring: exit, unreachable, loops, path sls" "0 0 0 sa" \
	"$rc $(q dfsssp '"\(.ib_checks.routes.unreachable) \(.ib_checks.credit_loops.loops) \(.ib_checks.credit_loops.path_sls)"')"
assert_eq "dfsssp ring: more than one vl" true "$(q dfsssp '.ib_checks.credit_loops.vls > 1')"
sm_daemon_stop

# ---- a master and a standby subnet manager ----
# sm_up NODE PRIORITY: an opensm attached at NODE, left running.
sm_up() {
	mkdir -p "$IBSIM_DIR/sm-$1"
	OSM_TMP_DIR=$IBSIM_DIR/sm-$1 OSM_CACHE_DIR=$IBSIM_DIR/sm-$1 \
		sm_bg "$1" "$IBSIM_DIR/sm-$1/out" opensm -p "$2" -R updn -a "$TMP/roots" \
		-f "$IBSIM_DIR/sm-$1/log"
}
# sm_wait LID STATE: until sminfo of LID says STATE (3 master, 2 standby), 30 s at most.
sm_wait() {
	local i
	for i in $(seq 1 300); do
		ibsim_run -H h5 sminfo "$1" >"$TMP/sminfo" 2>/dev/null </dev/null || true
		grep -q "state $2 " "$TMP/sminfo" && { cat "$TMP/sminfo" >&2; return 0; }
		sleep 0.1
	done
	fail "sminfo $1: state $2 not reached: $(cat "$TMP/sminfo")"
}
sm_up h1 10
sm_wait "$(ca_lid h1)" 3
sm_up h3 2
sm_wait "$(ca_lid h3)" 2
checks sm sm
[ "$rc" = 0 ] || q sm -c .problems >&2
assert_eq "sm: exit" 0 "$rc"
assert_eq "sm: masters standby silent agree" "1 1 0 true" \
	"$(q sm '.ib_checks.sm | "\(.masters) \(.standby) \(.silent) \(.agree)"')"
assert_eq "sm: listed" "h1 master 10 true,h3 standby 2 false" \
	"$(q sm '[.ib_checks.sm.sms[] | "\(.port.node) \(.state) \(.priority) \(.master)"] | join(",")')"
for n in h1 h3; do
	ibsim_run -H h5 sminfo "$(ca_lid "$n")" >"$TMP/sminfo" 2>/dev/null
	g=$(awk '{ for (i = 1; i < NF; i++) if ($i == "guid") { g = $(i + 1); sub(/,$/, "", g); print g } }' "$TMP/sminfo")
	[ -n "$g" ] || fail "sminfo $n: no guid: $(cat "$TMP/sminfo")"
	assert_eq "sm: $n guid as sminfo reports it" "$(printf '0x%016x' "$g")" \
		"$(jq -r --arg n "$n" '.ib_checks.sm.sms[] | select(.port.node == $n) | .sm_guid' "$TMP/sm.json")"
done
ibsim_stop

# ---- two HCAs, one port GUID ----
cat >"$TMP/dup.net" <<'EOF'
caguid=0x10000
Hca	2 "hA"
[1]	"sw1"[1]
[2]	"sw1"[2]

caguid=0x10001
Hca	1 "hB"
[1]	"sw1"[3]

caguid=0x20000
Hca	1 "hC"
[1]	"sw1"[4]

Switch	4 "sw1"
[1]	"hA"[1]
[2]	"hA"[2]
[3]	"hB"[1]
[4]	"hC"[1]
EOF
ibsim_start "$TMP/dup.net"
rc=0
ibsim_run -H hC "$FABRICCTL" discover --ib --no-counters --checks ids -j >"$TMP/dup.json" 2>"$TMP/dup.err" || rc=$?
assert_eq "dup: exit" 1 "$rc"
assert_eq "dup: duplicate guids" 2 "$(q dup .ib_checks.ids.duplicate_guids)"
assert_eq "dup: hA port 2 and hB port 1 share 0x10002" "hA 2 hB 1" \
	"$(q dup '.problems[] | select(.kind == "duplicate-guid" and (.detail | test("0x0000000000010002 "))) | "\(.ports[0].node) \(.ports[0].port) \(.ports[1].node) \(.ports[1].port)"')"
ibsim_stop

# ---- two nodes, one node GUID ----
# ibsim refuses two nodes with one GUID in a netfile, but its console's Guid command renames a
# node afterwards, unchecked: hB takes hA's node GUID (and so its port GUID, node GUID + 1).
# libibnetdisc keeps the first of the two it meets and leaves a switch port, link up, without
# a cable; what answers NodeInfo behind it is the other one.
cat >"$TMP/dupnode.net" <<'EOF'
caguid=0x10000
Hca	1 "hA"
[1]	"sw1"[1]

caguid=0x20000
Hca	1 "hB"
[1]	"sw1"[2]

caguid=0x30000
Hca	1 "hC"
[1]	"sw1"[3]

Switch	4 "sw1"
[1]	"hA"[1]
[2]	"hB"[1]
[3]	"hC"[1]
EOF
ibsim_start "$TMP/dupnode.net"
ibsim_console 'Guid "hB" 0x10000' >/dev/null
for p in 1 2; do
	assert_eq "dupnode: sw1 port $p leads to node guid 0x10000" 0x0000000000010000 \
		"$(ibsim_run -H hC smpquery -D nodeinfo "0,1,$p" 2>/dev/null | awk -F. '/^Guid:/ { print $NF }')"
done
rc=0
ibsim_run -H hC "$FABRICCTL" discover --ib --no-counters --checks ids -j >"$TMP/dupnode.json" \
	2>"$TMP/dupnode.err" || rc=$?
assert_eq "dupnode: exit" 1 "$rc"
assert_eq "dupnode: walk has 2 of the 3 cables" 2 "$(q dupnode '.links | length')"
assert_eq "dupnode: duplicate guids" 1 "$(q dupnode .ib_checks.ids.duplicate_guids)"
# The left-out port is the one the walk has no cable on; the problem names it and the node kept.
# shellcheck disable=SC2016 # jq variables
left=$(q dupnode '[.links[] | .a, .b | select(.node == "sw1") | .port] as $l | [1, 2] - $l | .[0]')
kept=$((3 - left))
assert_eq "dupnode: problem at the left-out port, naming the node kept" \
	"sw1 $left 0x0000000000010000 node guid 0x0000000000010000" \
	"$(q dupnode '.problems[] | select(.kind == "duplicate-guid") | "\(.ports[0].node) \(.ports[0].port) \(.ports[1].guid) \(.detail | capture("(?<g>node guid 0x[0-9a-f]+)").g)"')"
# shellcheck disable=SC2016 # jq variables
assert_eq "dupnode: the walk's copy is behind the other port" 1 \
	"$(q dupnode --arg w "behind \"sw1\" port $kept)" '[.problems[] | select(.kind == "duplicate-guid") | select(.detail | contains($w))] | length')"
ibsim_stop

# ---- a 5 x 5 torus: dor's loops on VL 0, torus-2QoS's datelines ----
# Switch tX_Y: port 1 its HCA, 2 to +x, 3 to -x, 4 to +y, 5 to -y.
{
	for y in 0 1 2 3 4; do for x in 0 1 2 3 4; do
		printf 'Hca\t1 "h%d_%d"\n[1]\t"t%d_%d"[1]\n\n' "$x" "$y" "$x" "$y"
	done; done
	for y in 0 1 2 3 4; do for x in 0 1 2 3 4; do
		printf 'Switch\t6 "t%d_%d"\n[1]\t"h%d_%d"[1]\n[2]\t"t%d_%d"[3]\n[3]\t"t%d_%d"[2]\n[4]\t"t%d_%d"[5]\n[5]\t"t%d_%d"[4]\n\n' \
			"$x" "$y" "$x" "$y" $(((x + 1) % 5)) "$y" $(((x + 4) % 5)) "$y" "$x" $(((y + 1) % 5)) \
			"$x" $(((y + 4) % 5))
	done; done
} >"$TMP/torus.net"
ibsim_start "$TMP/torus.net"
SM_NODE=h0_0 sm_daemon dor
grep -q "dor tables configured on all switches" "$IBSIM_DIR/osm-dor/log" || fail "opensm did not route with dor"
ibnet
checks torus-dor routes,credit-loops
# Dimension order on a torus with one lane: every row and every column a loop, each way round.
assert_eq "dor torus: exit, unreachable, loops" "1 0 20" \
	"$rc $(q torus-dor '"\(.ib_checks.routes.unreachable) \(.ib_checks.credit_loops.loops)"')"
assert_eq "dor torus: per vl" '[{"vl":0,"channels":100,"dependencies":200,"loops":20}]' \
	"$(q torus-dor -c .ib_checks.credit_loops.per_vl)"
assert_eq "dor torus: 16 listed, each 5 channels out of one port number" "16 [5] [1]" \
	"$(q torus-dor -c '.ib_checks.credit_loops.cycles | "\(length) \([.[].channels | length] | unique) \([.[] | [.channels[].from.port] | unique | length] | unique)"')"
sm_daemon_stop
# torus-2QoS (QoS on) moves a path to the other lane where it crosses a dimension's dateline,
# through the switches' SL2VL tables per input and output port, and gives PathRecord SLs.
printf 'torus 5 5 1\nxp_link %s %s\nyp_link %s %s\n' "$(sw_field t0_0 3)" "$(sw_field t1_0 3)" \
	"$(sw_field t0_0 3)" "$(sw_field t0_1 3)" >"$TMP/torus.conf"
SM_NODE=h0_0 sm_daemon torus-2QoS --torus_config "$TMP/torus.conf" -Q
grep -q "torus-2QoS tables configured on all switches" "$IBSIM_DIR/osm-torus-2QoS/log" ||
	fail "opensm did not route with torus-2QoS: $(grep ERR "$IBSIM_DIR/osm-torus-2QoS/log" | head -3)"
checks torus-2qos routes,credit-loops
assert_eq "torus-2QoS: exit, unreachable, loops, path sls" "0 0 0 sa" \
	"$rc $(q torus-2qos '"\(.ib_checks.routes.unreachable) \(.ib_checks.credit_loops.loops) \(.ib_checks.credit_loops.path_sls)"')"
assert_eq "torus-2QoS: lanes change on the way (datelines), more than one vl" "true true" \
	"$(q torus-2qos '.ib_checks.credit_loops | "\(.cross_vl_dependencies > 0) \(.vls > 1)"')"
sm_daemon_stop
