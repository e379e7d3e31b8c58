#!/bin/bash
# sweep --topology with an incomplete source says what is missing (netns
# lab, 4 hosts on 2 leaves under one spine, lldpd in every namespace).
# Dry runs: the graph, placement and routes are what is checked.
#  1. --topology lldp with the lab's default hosts file (hosts only): exit
#     2, one line ending in a newline that names both leaves, says their
#     lldpd was not read, the line to add and the lab's
#     `hostsfile --switches`.  With the switches in the hosts file: exit 0,
#     every cross-leaf pair routed over the spine (class 4).
#  2. A plan whose spine appears only under links: (nodes: lists the
#     hosts and leaves): the spine is a switch (exit 0, cross-leaf pairs
#     class 4 through it); a plan that declares no switch at all: the same.
#  3. A plan that declares the spine `type: host`: exit 2, one line ending
#     in a newline naming the spine and how to declare it.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq lldpd lldpcli
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=ti$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P"; }

run lab_up --name "$P" --hosts 4 --leaves 2 --spines 1
lab_hostsfile >"$TMP/hosts"
lab_hostsfile --switches >"$TMP/hosts.sw"
lab_planfile >"$TMP/plan.yaml"
run lab_lldp_wait
L1=$P-leaf1 L2=$P-leaf2 S1=$P-spine1

ARGS=(--launcher netns --transport tcp --dry-run)

# one_line WHAT: stderr is exactly one line, ending in a newline.
one_line() {
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$1: stderr is not one line"
	[ "$(tail -c 1 "$TMP/err" | od -An -c | tr -d ' ')" = '\n' ] || fail "$1: no newline at the end"
}
# cross_class: the classes of the cross-leaf pairs of the -j document, unique.
cross_class() {
	jq -r '(.nodes | map({(.name): .leaf}) | add) as $leaf
		| [.pairs[] | select($leaf[.a] != $leaf[.b]) | .class] | unique | map(tostring) | join(",")' "$TMP/out"
}

# --- 1. lldp, hosts only ----------------------------------------------------------------
fab sweep --hosts "$TMP/hosts" --topology lldp "${ARGS[@]}"
assert_eq "lldp, hosts only: exit" 2 "$rc"
one_line "lldp, hosts only"
grep -q "^fabricctl sweep: topology lldp: leaves $L1 and $L2 have no path between them: .*lldpd were not read ($L1, $L2 not in the hosts file); add the switches to the hosts file, one line each, 'NAME ADDRESS role=leaf|spine \[lldp_socket=PATH\]': $L1, $L2 and the spines between them (the netns lab writes them: tests/lab/netns hostsfile --switches)\$" "$TMP/err" ||
	fail "lldp, hosts only: the error does not say what to add"
assert_eq "lldp, hosts only: stdout" "" "$(cat "$TMP/out")"

fab -j sweep --hosts "$TMP/hosts.sw" --topology lldp "${ARGS[@]}"
assert_eq "lldp, with switches: exit" 0 "$rc"
assert_eq "lldp, with switches: cross-leaf classes" 4 "$(cross_class)"

# --- 2. the spine only under links ------------------------------------------------------
grep -v "name: $S1," "$TMP/plan.yaml" >"$TMP/plan.nospine.yaml"
grep -q "$S1:swp1" "$TMP/plan.nospine.yaml" || fail "the plan has no spine cable"
fab -v -j sweep --hosts "$TMP/hosts" --topology "$TMP/plan.nospine.yaml" "${ARGS[@]}"
assert_eq "plan, spine only in links: exit" 0 "$rc"
assert_eq "plan, spine only in links: cross-leaf classes" 4 "$(cross_class)"
assert_eq "plan, spine only in links: pairs" 6 "$(jq '.pairs | length' "$TMP/out")"
jq -e --arg s "$S1" '[.topology.nodes[] | select(.name == $s) | .type] == ["switch"]' "$TMP/out" >/dev/null ||
	fail "plan, spine only in links: $S1 is not a switch in the document"
grep -q "node $S1 is in no line of the hosts file and has 2 cables: a switch" "$TMP/err" ||
	fail "plan, spine only in links: -v does not say the spine was taken for a switch"

grep -v "type: switch" "$TMP/plan.yaml" >"$TMP/plan.noswitch.yaml"
fab -j sweep --hosts "$TMP/hosts" --topology "$TMP/plan.noswitch.yaml" "${ARGS[@]}"
assert_eq "plan, no switch declared: exit" 0 "$rc"
assert_eq "plan, no switch declared: cross-leaf classes" 4 "$(cross_class)"

# --- 3. the spine declared a host --------------------------------------------------------
sed "s/name: $S1, type: switch/name: $S1, type: host/" "$TMP/plan.yaml" >"$TMP/plan.spinehost.yaml"
grep -q "name: $S1, type: host" "$TMP/plan.spinehost.yaml" || fail "no spine declared a host"
fab sweep --hosts "$TMP/hosts" --topology "$TMP/plan.spinehost.yaml" "${ARGS[@]}"
assert_eq "plan, spine declared a host: exit" 2 "$rc"
one_line "plan, spine declared a host"
grep -q "^fabricctl sweep: plan $TMP/plan.spinehost.yaml: leaves $L1 and $L2 have no path between them: $S1 is declared a host (never transit) but in no line of the hosts file and cabled more than once; if it is a switch, declare it with 'type: switch' under nodes\$" "$TMP/err" ||
	fail "plan, spine declared a host: the error does not name the spine"
echo "sweep-topo-input: ok" >&2
