#!/bin/bash
# sweep --steer --transport verbs on the routed netns lab (4 hosts, 2 leaves,
# 2 spines, the leaves hashing the headers' 5-tuple, lldpd, the plan from
# `discover --save-plan`): the controller's half of RoCE v2 steering
# (docs/paths.md "RoCE v2").  Before the first round the workers trace each
# cross-leaf test's UDP tuples to 4791 both ways (a:S -> b:4791 from a,
# b:S' -> a:4791 from b, S and S' in 0xc000..0xffff, the ports a GRH flow
# label can give), and every pair is steered: each planned member, both
# ways, is the one Debian's `traceroute -U -p 4791 --sport S` reports for
# the same tuple (a second witness).  The verbs tests themselves cannot run
# here (rxe works only in the VM's root namespace, tests/vm): the sweep then
# stops at its RDMA check, exit 2 ("no RDMA device"), after steering.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq lldpd lldpcli traceroute
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"
tmpdir_with_cleanup sweep-steer-roce

P=sr$$
cleanup_hook() { lab_down --name "$P" || true; }

run lab_up --name "$P" --hosts 4 --leaves 2 --spines 2 --routed --hash headers
for n in leaf1 leaf2 spine1 spine2; do
	lab_lldpcli "$n" configure system ip management pattern '*,!127.0.0.1' >/dev/null
	lab_exec "$n" sysctl -q -w net.ipv4.icmp_ratelimit=0
done
run lab_lldp_wait --timeout 15
lab_hostsfile --switches | sed 's/$/ rdma=rxe0/' >"$TMP/hosts"
fab discover --lldp --hosts "$TMP/hosts" --launcher netns --save-plan "$TMP/plan.yaml"
assert_eq "discover exit" 0 "$rc"

pretty "$FABRICCTL -v sweep --hosts $TMP/hosts --launcher netns --transport verbs --topology $TMP/plan.yaml --steer"
rc=0
"$FABRICCTL" -v sweep --hosts "$TMP/hosts" --launcher netns --transport verbs --duration 0.5 \
	--topology "$TMP/plan.yaml" --steer >"$TMP/out" 2>"$TMP/err" || rc=$?
grep -E "steer|steering" "$TMP/err" >&2 || true
tail -n 2 "$TMP/err" >&2
grep -q "steering: 4 cross-leaf pairs, 4 steered, 0 on whole ECMP sets; .*; RoCE v2: UDP to 4791, ports set by flow label" \
	"$TMP/err" || fail "not every cross-leaf pair steered on RoCE v2 tuples"
# After steering, the RDMA check: no device in a netns host, bad input for verbs.
assert_eq "sweep exit (no rdma device in a netns host)" 2 "$rc"
grep -q -- "--transport verbs: 4 of 4 nodes cannot run it: .*no RDMA device" "$TMP/err" ||
	fail "the sweep did not stop at its RDMA check"

# The plan node holding ADDR.
node_of() {
	awk -v a="$1" 'match($0, /name: [^,]+,/) { n = substr($0, RSTART + 6, RLENGTH - 7) }
		index($0, " " a ",") || index($0, "[" a ",") || index($0, " " a "]") || index($0, "[" a "]") { print n; exit }' "$TMP/plan.yaml"
}
# traceroute -U from NODE, UDP SPORT -> DEST:4791: the node at hop 2.
witness() { # NODE SPORT DEST
	local addr
	addr=$(lab_exec "$1" traceroute -n -q 3 -w 2 -m 2 -U -p 4791 --sport="$2" "$3" 2>/dev/null |
		awk 'NR == 3 { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9.]+$/ && $i ~ /\./) { print $i; exit } }')
	[ -n "$addr" ] || echo "witness $*: hop 2 silent" >&2
	node_of "$addr"
}
addr_of() { awk -v h="$P-$1" '$1 == h { print $2 }' "$TMP/hosts"; }
n=0
spines=''
while read -r a b s d via s2 d2 via2; do
	assert_eq "$a -> $b: destination port" 4791 "$d"
	assert_eq "$b -> $a: destination port" 4791 "$d2"
	[ "$s" -ge 49152 ] && [ "$s2" -ge 49152 ] && [ "$s" -le 65535 ] && [ "$s2" -le 65535 ] ||
		fail "$a $b: ports $s, $s2 outside 0xc000..0xffff"
	assert_eq "$a -> $b udp port $s: traceroute -U" "$via" "$(witness "${a#"$P"-}" "$s" "$(addr_of "${b#"$P"-}")")"
	assert_eq "$b -> $a udp port $s2: traceroute -U" "$via2" "$(witness "${b#"$P"-}" "$s2" "$(addr_of "${a#"$P"-}")")"
	spines="$spines $via $via2"
	n=$((n + 1))
done < <(sed -n 's/.*steer \([^ ]*\) \([^ ]*\): udp port \([0-9]*\) -> \([0-9]*\) via \([^;]*\); back \([0-9]*\) -> \([0-9]*\) via \(.*\)$/\1 \2 \3 \4 \5 \6 \7 \8/p' "$TMP/err")
assert_eq "steered pairs witnessed" 4 "$n"
echo "members taken:$spines" >&2
