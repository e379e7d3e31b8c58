#!/bin/bash
# fabricctl discover --ib against ibsim: on every ibsim example fabric and
# on generated fat trees (2 levels, 648 HCAs; 3 levels, 1296 HCAs), the
# node, switch and link counts and every link's two endpoints equal what
# ibnetdiscover reports on the same fabric in the same run.  Also: a
# cached fabric (ibnetdiscover --cache, --load-cache) gives the same
# graph; ibnetdiscover's own topology file, used as the plan, yields no
# problem; our --format ibnetdiscover / --save-plan output parses back to
# the same graph; a broken plan is bad input (exit 2, file:line:col).
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd ibsim ibnetdiscover jq awk
[ -r /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ] || skip "libumad2sim.so missing (ibsim-utils)"
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (make)"
# shellcheck source=../lab/ibsim
. "$TOP/tests/lab/ibsim"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/discover-ib.$$.XXXXXX")
cleanup() {
	local rc=$?
	ibsim_stop || true
	rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT

# ibnetdiscover topology text -> sorted "0xGUID:port 0xGUID:port" lines, one per link.
ibnet_links() {
	awk '
	/^(Switch|Ca|Rt)[ \t]/ { match($0, /"[SHR]-[0-9a-f]+"/); cur = substr($0, RSTART + 3, RLENGTH - 4); next }
	/^\[/ {
		match($0, /^\[[0-9]+\]/); lp = substr($0, 2, RLENGTH - 2)
		match($0, /"[SHR]-[0-9a-f]+"\[[0-9]+\]/); s = substr($0, RSTART, RLENGTH)
		rg = substr(s, 4, index(s, "[") - 5); rp = substr(s, index(s, "[") + 1); sub(/\]$/, "", rp)
		a = "0x" cur ":" lp; b = "0x" rg ":" rp
		print (a < b ? a " " b : b " " a)
	}' "$1" | sort -u
}
# fabricctl discover JSON -> the same form.
json_links() {
	jq -r '.links[] | [(.a.guid + ":" + (.a.port | tostring)), (.b.guid + ":" + (.b.port | tostring))] | sort | join(" ")' "$1" | sort -u
}

# compare NAME: ibnetdiscover and fabricctl on the running fabric.
compare() {
	local name=$1 ref=$WORK/$1.ibnet js=$WORK/$1.json
	run ibsim_run ibnetdiscover >"$ref" 2>"$WORK/$name.ibnet.err"
	run ibsim_run "$FABRICCTL" discover --ib --no-counters -j >"$js" 2>"$WORK/$name.err" ||
		{ cat "$WORK/$name.err" >&2; fail "$name: discover failed"; }
	assert_eq "$name: schema" "fabricctl.discover/1" "$(jq -r .schema "$js")"
	assert_eq "$name: switches" "$(grep -c '^Switch' "$ref")" "$(jq '[.nodes[] | select(.type == "switch")] | length' "$js")"
	assert_eq "$name: cas" "$(grep -c '^Ca' "$ref")" "$(jq '[.nodes[] | select(.type == "ca")] | length' "$js")"
	assert_eq "$name: nodes" "$(grep -cE '^(Switch|Ca|Rt)' "$ref")" "$(jq '.nodes | length' "$js")"
	ibnet_links "$ref" >"$WORK/$name.ref-links"
	json_links "$js" >"$WORK/$name.our-links"
	[ -s "$WORK/$name.ref-links" ] || fail "$name: ibnetdiscover reported no links"
	assert_eq "$name: links" "$(wc -l <"$WORK/$name.ref-links")" "$(jq '.links | length' "$js")"
	diff -u "$WORK/$name.ref-links" "$WORK/$name.our-links" >&2 || fail "$name: link endpoints differ from ibnetdiscover"
	printf '  ok: %s: all %s link endpoints equal\n' "$name" "$(wc -l <"$WORK/$name.ref-links")" >&2
	# Healthy simulated fabric: nothing to report.
	assert_eq "$name: problems" 0 "$(jq '.problems | length' "$js")"
}

for net in /usr/share/doc/ibsim-utils/net-examples/net*; do
	[ -f "$net" ] || continue
	name=$(basename "$net")
	ibsim_start "$net"
	compare "$name"
	ibsim_stop
done

run "$TOP/tests/lab/gen-fattree" --levels 2 --radix 36 --hcas 648 -o "$WORK/ft2.net"
ibsim_start "$WORK/ft2.net"
compare ft2-648
assert_eq "ft2-648: 648 cas" 648 "$(jq .summary.cas "$WORK/ft2-648.json")"
ibsim_stop

run "$TOP/tests/lab/gen-fattree" --levels 3 --radix 18 --hcas 1296 -o "$WORK/ft3.net"
ibsim_start "$WORK/ft3.net"
compare ft3-1296
assert_eq "ft3-1296: 1296 cas" 1296 "$(jq .summary.cas "$WORK/ft3-1296.json")"

# Offline: ibnetdiscover --cache, re-analysed with --load-cache (no ibsim needed for that run).
run ibsim_run ibnetdiscover --cache "$WORK/ft3.cache" >/dev/null 2>&1
run "$FABRICCTL" discover --load-cache "$WORK/ft3.cache" -j >"$WORK/cache.json"
json_links "$WORK/cache.json" >"$WORK/cache.links"
diff -u "$WORK/ft3-1296.ref-links" "$WORK/cache.links" >&2 || fail "--load-cache: links differ"
assert_eq "cache: sources" '["cache"]' "$(jq -c .sources "$WORK/cache.json")"

# ibnetdiscover's topology file is a valid plan, and the fabric matches it.
expect_rc 0 ibsim_run "$FABRICCTL" discover --ib --no-counters --expect "$WORK/ft3-1296.ibnet" -j >"$WORK/plan.json"
assert_eq "ibnetdiscover file as plan: problems" 0 "$(jq '.problems | length' "$WORK/plan.json")"

# Our writer: --save-plan and --format ibnetdiscover give the same graph back.
run ibsim_run "$FABRICCTL" discover --ib --no-counters --save-plan "$WORK/saved.topo" --format ibnetdiscover >"$WORK/fmt.topo"
cmp "$WORK/saved.topo" "$WORK/fmt.topo" || fail "--save-plan and --format ibnetdiscover differ"
ibnet_links "$WORK/saved.topo" >"$WORK/saved.links"
diff -u "$WORK/ft3-1296.ref-links" "$WORK/saved.links" >&2 || fail "saved plan: links differ"
expect_rc 0 ibsim_run "$FABRICCTL" discover --ib --no-counters --expect "$WORK/saved.topo" -j >/dev/null
ibsim_stop

# The DOT renderer draws every link.
run "$FABRICCTL" discover --load-cache "$WORK/ft3.cache" --format dot >"$WORK/f.dot"
assert_eq "dot: edges" 3888 "$(grep -c -- ' -- ' "$WORK/f.dot")"

# Bad plans are bad input: exit 2, file:line:column, nothing discovered.
printf 'Switch 8 "sw1"\n[1] "h1"[1]\n[9] "h2"[1]\n' >"$WORK/bad.topo"
expect_rc 2 "$FABRICCTL" discover --load-cache "$WORK/ft3.cache" --expect "$WORK/bad.topo" 2>"$WORK/bad.err"
grep -q "bad.topo:3:2: port 9 out of range 1..8" "$WORK/bad.err" || { cat "$WORK/bad.err" >&2; fail "bad plan: message"; }
expect_rc 2 "$FABRICCTL" discover --load-cache "$WORK/nonexistent.cache"
expect_rc 2 "$FABRICCTL" discover --format svg
echo "discover-ib: all checks passed"
