#!/bin/bash
# Sweep schedules and input errors on a 5-host netns lab (odd n):
# all pairs in 5 rounds of 2 (one node sits out each round), --serial,
# --pairs FILE, --new (new x rest), and bad hosts/pairs files (exit 2,
# file:line:col, nothing started).
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=sm$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P"; }

run lab_up --name "$P" --hosts 5 --leaves 2 --spines 1 --no-lldp
lab_hostsfile >"$TMP/hosts"
H1=$(lab_ns h1) H2=$(lab_ns h2) H3=$(lab_ns h3) H4=$(lab_ns h4) H5=$(lab_ns h5)
OPTS=(--launcher netns --duration 0.1 --lat-iters 50)
q() { jq -r "$@" "$TMP/out"; }
sweep() {
	rc=0
	run "$FABRICCTL" -j sweep "${OPTS[@]}" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	# For the log: what was not ok, and the run's own last words.
	jq -r '.pairs[] | select(.status != "ok") | "    \(.a) \(.b) \(.status): \(.reason)"' "$TMP/out" >&2 || true
	[ "$rc" = 0 ] || tail -n 5 "$TMP/err" >&2
}
no_node_twice='[.pairs | group_by(.round)[] | [.[].a, .[].b] | (length == (unique | length))] | all'

sweep --hosts "$TMP/hosts"
assert_eq "odd: rc" 0 "$rc"
assert_eq "odd: rounds" 5 "$(q .rounds)"
assert_eq "odd: pairs per round" "2,2,2,2,2" "$(q '[.pairs | group_by(.round)[] | length] | map(tostring) | join(",")')"
assert_eq "odd: every pair once" 10 "$(q '[.pairs[] | [.a, .b] | sort] | unique | length')"
assert_eq "odd: no node twice in a round" true "$(q "$no_node_twice")"
assert_eq "odd: each node sits out exactly one round" "1,1,1,1,1" \
	"$(q '[.nodes[].name as $n | [.pairs | group_by(.round)[] | select(all(.a != $n and .b != $n))] | length] | map(tostring) | join(",")')"

sweep --hosts "$TMP/hosts" --serial
assert_eq "serial: rc" 0 "$rc"
assert_eq "serial: mode" serial "$(q .mode)"
assert_eq "serial: rounds" 10 "$(q .rounds)"
assert_eq "serial: one pair a round" 10 "$(q '[.pairs[].round] | unique | length')"

printf '# two pairs sharing h1, one apart\n%s %s\n%s %s\n%s %s\n' "$H1" "$H2" "$H1" "$H3" "$H4" "$H5" >"$TMP/pairs"
sweep --hosts "$TMP/hosts" --pairs "$TMP/pairs"
assert_eq "pairs: rc" 0 "$rc"
assert_eq "pairs: the pairs" "$H1-$H2 $H1-$H3 $H4-$H5" "$(q '[.pairs[] | "\(.a)-\(.b)"] | sort | join(" ")')"
assert_eq "pairs: rounds" 2 "$(q .rounds)"
assert_eq "pairs: no node twice in a round" true "$(q "$no_node_twice")"

sed -e "s/^$H4 .*/& new/" -e "s/^$H5 .*/& new=yes/" "$TMP/hosts" >"$TMP/hosts.new"
sweep --hosts "$TMP/hosts.new" --new
assert_eq "new: rc" 0 "$rc"
assert_eq "new: mode" bipartite "$(q .mode)"
assert_eq "new: pairs are new x rest" 6 \
	"$(q --arg a "$H4" --arg b "$H5" '[.pairs[] | select(([.a, .b] | map(. == $a or . == $b)) == [false, true] or ([.a, .b] | map(. == $a or . == $b)) == [true, false])] | length')"
assert_eq "new: pairs" 6 "$(q '.pairs | length')"
assert_eq "new: rounds" 3 "$(q .rounds)"

# Bad input: exit 2 with the place, nothing started.
printf '%s %s\n%s nosuchhost\n' "$H1" "$H2" "$H3" >"$TMP/badpairs"
rc=0
"$FABRICCTL" sweep "${OPTS[@]}" --hosts "$TMP/hosts" --pairs "$TMP/badpairs" 2>"$TMP/err" || rc=$?
assert_eq "bad pairs: rc" 2 "$rc"
assert_eq "bad pairs: message" "fabricctl sweep: $TMP/badpairs:2:$(( ${#H3} + 2 )): 'nosuchhost' is not in the hosts file" "$(cat "$TMP/err")"
printf '%s 10.77.0.1\n%s 10.77.0.2 leaf\n' "$H1" "$H2" >"$TMP/badhosts"
rc=0
"$FABRICCTL" sweep "${OPTS[@]}" --hosts "$TMP/badhosts" 2>"$TMP/err" || rc=$?
assert_eq "bad hosts: rc" 2 "$rc"
assert_eq "bad hosts: message" "fabricctl sweep: $TMP/badhosts:2:$(( ${#H2} + 12 )): label 'leaf' needs a value (key=value)" "$(cat "$TMP/err")"
expect_rc 2 "$FABRICCTL" sweep "${OPTS[@]}" --hosts "$TMP/hosts" --new
expect_rc 2 "$FABRICCTL" sweep "${OPTS[@]}" --hosts "$TMP/hosts" --serial --new
expect_rc 2 "$FABRICCTL" sweep "${OPTS[@]}" --hosts "$TMP/hosts" --transport carrier-pigeon
expect_rc 2 "$FABRICCTL" sweep "${OPTS[@]}" --hosts "$TMP/hosts" --streams 0
expect_rc 2 "$FABRICCTL" sweep --launcher netns
echo "sweep-modes: all checks passed" >&2
