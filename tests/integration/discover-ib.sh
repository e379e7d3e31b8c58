#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
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
need_fabricctl
# shellcheck source=../lab/ibsim
. "$TOP/tests/lab/ibsim"

tmpdir_with_cleanup discover-ib
cleanup_hook() { ibsim_stop; }

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
	local name=$1 ref=$TMP/$1.ibnet js=$TMP/$1.json
	run ibsim_run ibnetdiscover >"$ref" 2>"$TMP/$name.ibnet.err"
	run ibsim_run "$FABRICCTL" discover --ib --no-counters -j >"$js" 2>"$TMP/$name.err" ||
		{ cat "$TMP/$name.err" >&2; fail "$name: discover failed"; }
	assert_eq "$name: schema" "fabricctl.discover/1" "$(jq -r .schema "$js")"
	assert_eq "$name: switches" "$(grep -c '^Switch' "$ref")" "$(jq '[.nodes[] | select(.type == "switch")] | length' "$js")"
	assert_eq "$name: cas" "$(grep -c '^Ca' "$ref")" "$(jq '[.nodes[] | select(.type == "ca")] | length' "$js")"
	assert_eq "$name: nodes" "$(grep -cE '^(Switch|Ca|Rt)' "$ref")" "$(jq '.nodes | length' "$js")"
	ibnet_links "$ref" >"$TMP/$name.ref-links"
	json_links "$js" >"$TMP/$name.our-links"
	[ -s "$TMP/$name.ref-links" ] || fail "$name: ibnetdiscover reported no links"
	assert_eq "$name: links" "$(wc -l <"$TMP/$name.ref-links")" "$(jq '.links | length' "$js")"
	diff -u "$TMP/$name.ref-links" "$TMP/$name.our-links" >&2 || fail "$name: link endpoints differ from ibnetdiscover"
	printf '  ok: %s: all %s link endpoints equal\n' "$name" "$(wc -l <"$TMP/$name.ref-links")" >&2
	# Healthy simulated fabric: nothing to report.
	assert_eq "$name: problems" 0 "$(jq '.problems | length' "$js")"
}

# No InfiniBand on this node (outside ibsim): our one message, no library
# noise before it, exit 3; with -j a "fabricctl.error/1" document on stdout.
if ! ls /sys/class/infiniband/* >/dev/null 2>&1; then
	fab discover --ib
	assert_eq "no ib: exit" 3 "$rc"
	assert_eq "no ib: stderr is one line" 1 "$(wc -l <"$TMP/err")"
	grep -q '^fabricctl discover: subnet: no infiniband device on this node' "$TMP/err" ||
		fail "no ib: message"
	expect_rc 3 "$FABRICCTL" discover --ib -j >"$TMP/noib.json" 2>/dev/null
	assert_eq "no ib -j: schema" fabricctl.error/1 "$(jq -r .schema "$TMP/noib.json")"
	assert_eq "no ib -j: exit" 3 "$(jq -r .exit "$TMP/noib.json")"
fi
# -C naming a CA that is not there: bad input, the CAs that are listed, no noise.
ibsim_start /usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
rc=0
ibsim_run "$FABRICCTL" discover --ib -C nosuch -j >"$TMP/noca.json" 2>"$TMP/noca.err" || rc=$?
cat "$TMP/noca.err" >&2
assert_eq "-C nosuch: exit" 2 "$rc"
grep -q "no ca 'nosuch' on this node (cas: ibsim0)" "$TMP/noca.err" || fail "-C nosuch: message"
! grep -qE "can't open|ibnetdisc" "$TMP/noca.err" || fail "-C nosuch: library noise"
assert_eq "-C nosuch -j: error" "subnet: no ca 'nosuch' on this node (cas: ibsim0)" "$(jq -r .error "$TMP/noca.json")"
assert_eq "-C nosuch -j: kind" input "$(jq -r .kind "$TMP/noca.json")"
expect_rc 0 ibsim_run "$FABRICCTL" discover --ib -C ibsim0 --no-counters -j >/dev/null 2>&1
ibsim_stop

for net in /usr/share/doc/ibsim-utils/net-examples/net*; do
	[ -f "$net" ] || continue
	name=$(basename "$net")
	ibsim_start "$net"
	compare "$name"
	ibsim_stop
done

run "$TOP/tests/lab/gen-fattree" --levels 2 --radix 36 --hcas 648 -o "$TMP/ft2.net"
ibsim_start "$TMP/ft2.net"
compare ft2-648
assert_eq "ft2-648: 648 cas" 648 "$(jq .summary.cas "$TMP/ft2-648.json")"
ibsim_stop

run "$TOP/tests/lab/gen-fattree" --levels 3 --radix 18 --hcas 1296 -o "$TMP/ft3.net"
ibsim_start "$TMP/ft3.net"
compare ft3-1296
assert_eq "ft3-1296: 1296 cas" 1296 "$(jq .summary.cas "$TMP/ft3-1296.json")"

# Offline: ibnetdiscover --cache, re-analysed with --load-cache (no ibsim needed for that run).
run ibsim_run ibnetdiscover --cache "$TMP/ft3.cache" >/dev/null 2>&1
run "$FABRICCTL" discover --load-cache "$TMP/ft3.cache" -j >"$TMP/cache.json"
json_links "$TMP/cache.json" >"$TMP/cache.links"
diff -u "$TMP/ft3-1296.ref-links" "$TMP/cache.links" >&2 || fail "--load-cache: links differ"
assert_eq "cache: sources" '["cache"]' "$(jq -c .sources "$TMP/cache.json")"

# ibnetdiscover's topology file is a valid plan, and the fabric matches it.
expect_rc 0 ibsim_run "$FABRICCTL" discover --ib --no-counters --expect "$TMP/ft3-1296.ibnet" -j >"$TMP/plan.json"
assert_eq "ibnetdiscover file as plan: problems" 0 "$(jq '.problems | length' "$TMP/plan.json")"

# Our writer: --save-plan and --format ibnetdiscover give the same graph back.
run ibsim_run "$FABRICCTL" discover --ib --no-counters --save-plan "$TMP/saved.topo" --format ibnetdiscover >"$TMP/fmt.topo"
cmp "$TMP/saved.topo" "$TMP/fmt.topo" || fail "--save-plan and --format ibnetdiscover differ"
ibnet_links "$TMP/saved.topo" >"$TMP/saved.links"
diff -u "$TMP/ft3-1296.ref-links" "$TMP/saved.links" >&2 || fail "saved plan: links differ"
expect_rc 0 ibsim_run "$FABRICCTL" discover --ib --no-counters --expect "$TMP/saved.topo" -j >/dev/null
ibsim_stop

# The DOT renderer draws every link.
run "$FABRICCTL" discover --load-cache "$TMP/ft3.cache" --format dot >"$TMP/f.dot"
assert_eq "dot: edges" 3888 "$(grep -c -- ' -- ' "$TMP/f.dot")"

# Bad plans are bad input: exit 2, file:line:column, nothing discovered.
printf 'Switch 8 "sw1"\n[1] "h1"[1]\n[9] "h2"[1]\n' >"$TMP/bad.topo"
expect_rc 2 "$FABRICCTL" discover --load-cache "$TMP/ft3.cache" --expect "$TMP/bad.topo" 2>"$TMP/bad.err"
grep -q "bad.topo:3:2: port 9 out of range 1..8" "$TMP/bad.err" || { cat "$TMP/bad.err" >&2; fail "bad plan: message"; }
expect_rc 2 "$FABRICCTL" discover --load-cache "$TMP/nonexistent.cache"
expect_rc 2 "$FABRICCTL" discover --format svg
echo "discover-ib: all checks passed"
