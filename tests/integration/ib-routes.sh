#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# InfiniBand routes from the linear forwarding tables against ibtracert.
# ibsim runs a 2-level fat tree of 32 HCAs (radix 8: 8 leaves, 4 spines;
# leaf-001's first uplink, port 5 to spine-01, made 1X), opensm programs
# the switches' LFTs, then tests/tools/ib-routes (fabricctl's subnet walk
# with subnet_opts.lft and model/route_ib.c) prints the route of every
# ordered CA pair and
#   - its CA list equals ibnetdiscover's CA ports and LIDs;
#   - for EVERY ordered pair the route equals ibtracert's hop by hop
#     (out port, the GUID of the port entered, in port);
#   - klass is 2 for two HCAs on one leaf (per ibnetdiscover), else 4;
#   - expected_mbps is 1X EDR (25781) exactly for the pairs whose route
#     in either direction crosses the thin cable, 4X EDR (103124) else;
# then, with faults injected through ibsim's console (no SM sweep, so the
# LFTs stay as they were):
#   - a switch that answers LinearForwardingTable with an error
#     (Error "spine-02" 100 25): exactly the routes that crossed spine-02
#     fail, naming it ("has no forwarding table"), the others are unchanged;
#   - the thin cable unplugged (Unlink "leaf-001"[5]): exactly the routes
#     that crossed it fail as a dead end naming leaf-001 or spine-01,
#     the others are unchanged, and ibtracert fails on one of the failing.
# Prints the pair count and the times (LFT read, routes, ibtracert).
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd ibsim opensm ibtracert ibnetdiscover cc pkg-config awk
[ -r /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ] || skip "libumad2sim.so missing (ibsim-utils)"
# shellcheck source=../lab/ibsim
. "$TOP/tests/lab/ibsim"

tmpdir_with_cleanup ib-routes
cleanup_hook() { ibsim_stop; }
JOBS=${JOBS:-4}	# ibtracert runs at once (ibsim serves a few clients; mostly waiting)

# The tool, linked against the project's objects (make lib, release build).
run make -C "$TOP" --no-print-directory -s lib
# shellcheck disable=SC2046 # pkg-config's flags are words
run cc -std=c17 -D_GNU_SOURCE -O2 -Wall -Wextra -I"$TOP/src" -o "$TMP/ib-routes" \
	"$TOP/tests/tools/ib-routes.c" "$TOP/build/rel/libfab.a" \
	$(pkg-config --libs libmnl jansson yaml-0.1 lldpctl libibumad libibmad libibnetdisc libibverbs librdmacm) -lm

run "$TOP/tests/lab/gen-fattree" --levels 2 --radix 8 --hcas 32 --thin leaf-001:5 -o "$TMP/ft.net"
ibsim_start "$TMP/ft.net"
run ibsim_sm

# ibnetdiscover: "LID NAME LEAF" per CA port, "NAME GUID" per switch.
run ibsim_run ibnetdiscover >"$TMP/ibnet" 2>"$TMP/ibnet.err"
awk '/^Ca/ { match($0, /# "[^"]*"/); name = substr($0, RSTART + 3, RLENGTH - 4); next }
     /^\[[0-9]+\]\(/ && name != "" {
	match($0, /# lid [0-9]+ /); lid = substr($0, RSTART + 6, RLENGTH - 7)
	match($0, /lmc [0-9]+ "[^"]*"/); s = substr($0, RSTART, RLENGTH); sub(/^lmc [0-9]+ "/, "", s); sub(/"$/, "", s)
	print lid, name, s }
     /^(Switch|Rt)/ { name = "" }' "$TMP/ibnet" | sort -n >"$TMP/cas"
awk '/^Switch/ { match($0, /"S-[0-9a-f]+"/); g = "0x" substr($0, RSTART + 3, RLENGTH - 4)
	match($0, /# "[^"]*"/); print substr($0, RSTART + 3, RLENGTH - 4), g }' "$TMP/ibnet" >"$TMP/switches"
n=$(wc -l <"$TMP/cas")
assert_eq "ibnetdiscover: CA ports" 32 "$n"
guid_of() { awk -v n="$1" '$1 == n { print $2 }' "$TMP/switches"; }
LEAF1=$(guid_of leaf-001) SPINE1=$(guid_of spine-01) SPINE2=$(guid_of spine-02)
if [ -z "$LEAF1" ] || [ -z "$SPINE1" ] || [ -z "$SPINE2" ]; then
	fail "switch GUIDs not found in ibnetdiscover output"
fi

# ib-routes, phase 1: the healthy fabric.
routes() { # NAME: run the tool, its output in $TMP/NAME, exit status in $rc
	rc=0
	run ibsim_run "$TMP/ib-routes" -v -t 200 -r 1 >"$TMP/$1" 2>"$TMP/$1.err" || rc=$?
	grep -E 'forwarding tables|warning' "$TMP/$1.err" >&2 || true
	tail -n 1 "$TMP/$1" >&2
}
routes ours
assert_eq "ib-routes exit" 0 "$rc"
assert_eq "ib-routes: CA lids" "$(awk '{ print $1 }' "$TMP/cas" | tr '\n' ' ')" \
	"$(awk '$1 == "ca" { print $2 }' "$TMP/ours" | sort -n | tr '\n' ' ')"
assert_eq "ib-routes: summary" "summary cas 32 pairs $((n * (n - 1))) errors 0" \
	"$(awk '$1 == "summary" { print $1, $2, $3, $4, $5, $6, $7 }' "$TMP/ours")"
awk '$1 == "route" { $1 = ""; $4 = ""; $5 = ""; print }' "$TMP/ours" | awk '{ $1 = $1; print }' |
	sort >"$TMP/ours.hops"
assert_eq "ib-routes: routes" "$((n * (n - 1)))" "$(wc -l <"$TMP/ours.hops")"

# ibtracert for every ordered pair, JOBS at a time.  Normalised to
# "SLID DLID OUT>GUID[IN] ...": the port that leaves, the port entered.
awk '{ lid[++k] = $1 } END { for (i = 1; i <= k; i++) for (j = 1; j <= k; j++) if (i != j) print lid[i], lid[j] }' \
	"$TMP/cas" >"$TMP/pairs"
split -n "l/$JOBS" "$TMP/pairs" "$TMP/chunk."
tracert_chunk() { # CHUNK: ibtracert under umad2sim, as ibsim_run does, without its per-call log
	local s d
	cd "$IBSIM_DIR/cwd" || exit 1
	unset SIM_HOST
	while read -r s d; do
		echo "pair $s $d"
		LD_PRELOAD=$IBSIM_UMAD2SIM ibtracert "$s" "$d" 2>/dev/null </dev/null || true
	done <"$1" | awk '
		$1 == "pair" { if (p != "") print p h; p = $2 " " $3; h = ""; next }
		/^\[/ { match($0, /^\[[0-9]+\]/); o = substr($0, 2, RLENGTH - 2)
			match($0, /\{0x[0-9a-f]+\}\[[0-9]+\]/); x = substr($0, RSTART + 1, RLENGTH - 1); sub(/\}/, "", x)
			h = h " " o ">" x }
		END { if (p != "") print p h }' >"$1.out"
}
t0=$(date +%s.%N)
pids=()
for c in "$TMP"/chunk.*; do
	(tracert_chunk "$c") &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
t1=$(date +%s.%N)
cat "$TMP"/chunk.*.out | sort >"$TMP/ref.hops"
assert_eq "ibtracert: pairs" "$((n * (n - 1)))" "$(wc -l <"$TMP/ref.hops")"
[ "$(awk 'NF < 4' "$TMP/ref.hops" | wc -l)" = 0 ] || fail "ibtracert: some traces have fewer than 2 hops"
diff -u "$TMP/ref.hops" "$TMP/ours.hops" >&2 || fail "routes differ from ibtracert"
printf '  ok: all %s ordered pairs equal ibtracert hop by hop (ibtracert %.1f s, %s jobs)\n' \
	"$(wc -l <"$TMP/ref.hops")" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$JOBS" >&2

# klass from the leaves in ibnetdiscover; expected_mbps from the thin cable.
awk 'NR == FNR { leaf[$1] = $NF; next }
     $1 == "route" { want = leaf[$2] == leaf[$3] ? 2 : 4; if ($4 != want) { print "klass", $2, $3, $4, "want", want; bad++ } }
     END { exit bad > 0 }' "$TMP/cas" "$TMP/ours" >&2 || fail "klass wrong"
printf '  ok: klass 2 on one leaf, 4 across, all pairs\n' >&2
crosses() { # hops on stdin -> "SLID DLID" of the routes over leaf-001[5] <-> spine-01[1]
	awk -v l="$LEAF1" -v s="$SPINE1" '{ for (i = 3; i <= NF; i++) if ($i == "5>" s "[1]" || $i == "1>" l "[5]") { print $1, $2; break } }'
}
crosses <"$TMP/ref.hops" | sort >"$TMP/thin"
[ -s "$TMP/thin" ] || fail "no route crosses the thin cable: the test proves nothing"
awk 'NR == FNR { thin[$1 " " $2] = 1; next }
     $1 == "route" { want = (thin[$2 " " $3] || thin[$3 " " $2]) ? 25781 : 103124
	if ($5 != want) { print "expected_mbps", $2, $3, $5, "want", want; bad++ } else k[want]++ }
     END { printf "  ok: expected_mbps 25781 on %d routes, 103124 on %d\n", k[25781], k[103124]; exit bad > 0 }' \
	"$TMP/thin" "$TMP/ours" >&2 || fail "expected_mbps wrong"

# Phase 2: spine-02 answers LinearForwardingTable with an error.
run ibsim_console 'Error "spine-02" 100 25'
routes nolft
run ibsim_console 'Error "spine-02" 0 25'
assert_eq "no lft: exit" 1 "$rc"
grep -q "switch spine-02 (${SPINE2}): forwarding table not read" "$TMP/nolft.err" ||
	fail "no warning naming spine-02"
awk -v s="$SPINE2" '{ for (i = 3; i <= NF; i++) if (index($i, ">" s "[")) { print $1, $2; break } }' \
	"$TMP/ref.hops" | sort >"$TMP/via-spine2"
[ -s "$TMP/via-spine2" ] || fail "no route crosses spine-02"
awk '$1 == "error" { print $2, $3 }' "$TMP/nolft" | sort >"$TMP/nolft.errs"
diff -u "$TMP/via-spine2" "$TMP/nolft.errs" >&2 || fail "failing routes != routes via spine-02"
[ "$(grep '^error' "$TMP/nolft" | grep -vc "switch \"spine-02\" (${SPINE2}) has no forwarding table")" = 0 ] ||
	fail "an error does not name spine-02"
awk '$1 == "route" { $1 = ""; $4 = ""; $5 = ""; print }' "$TMP/nolft" | awk '{ $1 = $1; print }' | sort >"$TMP/nolft.hops"
[ -z "$(comm -13 "$TMP/ours.hops" "$TMP/nolft.hops")" ] || fail "a route not via spine-02 changed"
assert_eq "no lft: routes kept" "$((n * (n - 1) - $(wc -l <"$TMP/via-spine2")))" "$(wc -l <"$TMP/nolft.hops")"
printf '  ok: %s routes via spine-02 fail naming it, the rest unchanged\n' "$(wc -l <"$TMP/via-spine2")" >&2

# Phase 3: the thin cable unplugged; the tables still point at it.
run ibsim_console 'Unlink "leaf-001"[5]'
routes cut
assert_eq "cut: exit" 1 "$rc"
awk '$1 == "error" { print $2, $3 }' "$TMP/cut" | sort >"$TMP/cut.errs"
diff -u "$TMP/thin" "$TMP/cut.errs" >&2 || fail "failing routes != routes over the unplugged cable"
[ "$(grep '^error' "$TMP/cut" | grep -Evc "dead end, switch \"(leaf-001|spine-01)\" \(0x[0-9a-f]+\) forwards it to port (5|1), which has no link")" = 0 ] ||
	fail "an error is not a dead end at leaf-001:5 or spine-01:1"
awk '$1 == "route" { $1 = ""; $4 = ""; $5 = ""; print }' "$TMP/cut" | awk '{ $1 = $1; print }' | sort >"$TMP/cut.hops"
[ -z "$(comm -13 "$TMP/ours.hops" "$TMP/cut.hops")" ] || fail "a route not over the cable changed"
read -r s d <"$TMP/cut.errs"
rc=0
run ibsim_run ibtracert "$s" "$d" >"$TMP/cut.tr" 2>&1 || rc=$?
grep -q "^To " "$TMP/cut.tr" && fail "ibtracert $s $d still reaches its destination"
printf '  ok: %s routes over the unplugged cable are dead ends (ibtracert %s %s: rc %s, no destination)\n' \
	"$(wc -l <"$TMP/cut.errs")" "$s" "$d" "$rc" >&2
