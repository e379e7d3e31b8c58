#!/bin/bash
# IPv6: trace and sweep --steer on the routed netns lab with IPv6 (4 hosts,
# 2 leaves, 2 spines, lab_up --ipv6, the leaves hashing the headers'
# 5-tuple, lldpd, the plan from `discover --save-plan` with the switches'
# IPv6 addresses).  The tracer's IPv6 probes (docs/paths.md "IPv6"):
# `fabricctl trace` to a host's IPv6 address names both spines, each
# port's path is the one Debian's `traceroute -6` reports for the same
# tuple (UDP and TCP; a second witness), a --flow-label rides every probe.
# Then a steered TCP sweep over the hosts' IPv6 addresses: every cross-leaf
# pair steered, each planned direction the member `traceroute -6 -T`
# reports for its tuple, the tests' packets carry flow label 0 (a capture),
# and with the leaves hashing the flow label too (fields 0x3f) the same
# holds: the tests' label is pinned, not Linux's random one.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq lldpd lldpcli traceroute tcpdump
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"
tmpdir_with_cleanup sweep-steer6

P=s6$$
cleanup_hook() { lab_down --name "$P" || true; }

run lab_up --name "$P" --hosts 4 --leaves 2 --spines 2 --routed --hash headers --ipv6
# The witnesses do not retry: no ICMP rate limit (v4 for LLDP's sake, v6 for the probes).
for n in h1 h2 h3 h4 leaf1 leaf2 spine1 spine2; do
	lab_exec "$n" sysctl -q -w net.ipv4.icmp_ratelimit=0 net.ipv6.icmp.ratelimit=0
done
for n in leaf1 leaf2 spine1 spine2; do
	lab_lldpcli "$n" configure system ip management pattern '*,!127.0.0.1' >/dev/null
done
run lab_lldp_wait --timeout 15
# The hosts by their IPv6 addresses (the switches keep theirs: their workers only discover).
lab_hostsfile --switches >"$TMP/hosts4"
awk 'NR == FNR { a[$2] = $3; next } ($1 in a) { $2 = a[$1] } { print }' \
	"$LAB_DIR/hosts6" "$TMP/hosts4" >"$TMP/hosts"
fab discover --lldp --hosts "$TMP/hosts" --launcher netns --save-plan "$TMP/plan.yaml"
assert_eq "discover exit" 0 "$rc"
grep -q "name: $P-spine2, type: switch, addresses: \[.*\"fd77:10:77:255::2\".*\"fd77:10:77:255::6\"" "$TMP/plan.yaml" ||
	fail "plan: spine2 without its IPv6 port addresses"

h2=$(lab_addr6 h2)
h1=$(lab_addr6 h1)
# The plan node holding ADDR.
node_of() {
	awk -v a="\"$1\"" 'match($0, /name: [^,]+,/) { n = substr($0, RSTART + 6, RLENGTH - 7) }
		index($0, " " a ",") || index($0, "[" a ",") || index($0, " " a "]") || index($0, "[" a "]") { print n; exit }' "$TMP/plan.yaml"
}

# --- 1. fabricctl trace to an IPv6 address, 8 ports, UDP to 4791 --------------------------
fab_ns "$P-h1" -j trace --plan "$TMP/plan.yaml" --ports 8 --sport 49152 "$h2"
assert_eq "trace exit" 0 "$rc"
cp "$TMP/out" "$TMP/u.json"
assert_eq "source chosen by the route" "$h1" "$(jq -r .src "$TMP/u.json")"
assert_eq "flow label" 0 "$(jq -r .flow_label "$TMP/u.json")"
assert_eq "every flow reached" true "$(jq -r '[.flows[].reached] | all' "$TMP/u.json")"
assert_eq "hops 1, 3, 4" "$P-leaf1 $P-leaf2 $P-h2" \
	"$(jq -r '[.flows[] | "\(.hops[0].node) \(.hops[2].node) \(.hops[3].node)"] | unique | join(",")' "$TMP/u.json")"
assert_eq "the destination: ICMPv6 port unreachable" "unreachable 4" \
	"$(jq -r '[.flows[].hops[-1] | "\(.answer) \(.code)"] | unique | join(",")' "$TMP/u.json")"
assert_eq "hop 2: both spines" "$P-spine1 $P-spine2" "$(jq -r '[.flows[].hops[1].node] | unique | join(" ")' "$TMP/u.json")"
assert_eq "map" "traced $P-leaf1 $P-leaf2 2" \
	"$(jq -r '.map | "\(.state) \(.src_leaf) \(.dst_leaf) \(.ab.members | length)"' "$TMP/u.json")"
fab_ns "$P-h1" trace --plan "$TMP/plan.yaml" "$h2"
assert_eq "text trace exit" 0 "$rc"
grep -q "$h2 .*port unreachable" "$TMP/out" || fail "text: the destination's answer is not 'port unreachable'"

# traceroute -6 with the same tuple: the same hops, address for address.
witness() { # NODE PROTO-FLAG DPORT SPORT DEST
	lab_exec "$1" traceroute -6 -n -q 1 -w 1 "$2" -p "$3" --sport="$4" "$5" 2>/dev/null |
		awk 'NR > 1 { printf "%s%s", sep, $2; sep = " " } END { print "" }'
}
ours() { jq -r --argjson s "$2" '.flows[] | select(.sport == $s) | [.hops[] | .addr // "*"] | join(" ")' "$1"; }
for s in $(seq 49152 49159); do
	assert_eq "udp sport $s: traceroute -6 -U" "$(witness h1 -U 4791 "$s" "$h2")" "$(ours "$TMP/u.json" "$s")"
done
fab_ns "$P-h1" -j trace --plan "$TMP/plan.yaml" -T -p 5201 --sport 40000 --ports 6 "$h2"
assert_eq "tcp trace exit" 0 "$rc"
cp "$TMP/out" "$TMP/t.json"
assert_eq "tcp: the destination resets" tcp-rst "$(jq -r '[.flows[].hops[-1].answer] | unique | join(" ")' "$TMP/t.json")"
for s in $(seq 40000 40005); do
	assert_eq "tcp sport $s: traceroute -6 -T" "$(witness h1 -T 5201 "$s" "$h2")" "$(ours "$TMP/t.json" "$s")"
done

# A flow label rides every probe, unchanged (a capture on h1's cable).
rm -f "$TMP/label.txt"
lab_exec h1 timeout 5 tcpdump -l -n -v -i eth0 "ip6 and udp and dst port 4791" >"$TMP/label.txt" 2>/dev/null &
cap=$!
sleep 1
fab_ns "$P-h1" -j trace --flow-label 0x2a5f1 --ports 2 "$h2"
assert_eq "labelled trace exit" 0 "$rc"
assert_eq "flow label in the document" $((0x2a5f1)) "$(jq -r .flow_label "$TMP/out")"
wait "$cap" || true
probes=$(grep -c "IP6 (flowlabel 0x2a5f1, hlim" "$TMP/label.txt" || true)
others=$(grep "IP6 (" "$TMP/label.txt" | grep -vc "flowlabel 0x2a5f1" || true)
echo "labelled probes captured: $probes, others: $others" >&2
[ "$probes" -ge 8 ] || fail "fewer than 8 probes with flow label 0x2a5f1 captured ($probes)"
assert_eq "probes without the label" 0 "$others"

# --- 2. sweep --steer over IPv6 -----------------------------------------------------------
steered_sweep() { # TAG
	rm -f "$TMP/cap.$1"
	lab_exec h1 timeout 25 tcpdump -l -n -v -i eth0 "ip6 and tcp" >"$TMP/cap.$1" 2>/dev/null &
	cap=$!
	sleep 1
	rc=0
	"$FABRICCTL" -v -j sweep --hosts "$TMP/hosts" --launcher netns --duration 0.5 \
		--topology "$TMP/plan.yaml" --steer >"$TMP/sweep.$1.json" 2>"$TMP/err.$1" || rc=$?
	kill "$cap" 2>/dev/null || true
	wait "$cap" 2>/dev/null || true
	grep -E "steer" "$TMP/err.$1" >&2 || true
	assert_eq "$1: sweep exit" 0 "$rc"
	grep -q "steering: 4 cross-leaf pairs, 4 steered, 0 on whole ECMP sets" "$TMP/err.$1" ||
		fail "$1: not every cross-leaf pair steered over IPv6"
	assert_eq "$1: no pair slow or failed" "0 0" \
		"$(jq -r '.summary | "\(.slow) \(.failed)"' "$TMP/sweep.$1.json")"
	# Every data segment h1 sent or got in the tests carries label 0 (tcpdump prints a label
	# only when set).  The resets the kernels send for the tracer's SYN probes have labels
	# of their own (no socket: the kernel's): they carry no data.
	assert_eq "$1: test segments with a flow label" 0 \
		"$(grep -v "length 0$" "$TMP/cap.$1" | grep -c "flowlabel" || true)"
	[ "$(grep -v "length 0$" "$TMP/cap.$1" | grep -c "IP6 (" || true)" -ge 100 ] ||
		fail "$1: no test traffic captured"
	# Each planned direction: the member traceroute -6 -T sees for its tuple, at hop 2.  Its
	# raw socket's packets get the kernel's own flow label (a hash of the tuple), where ours
	# and the tests' carry 0: while it runs, the hosts send no automatic labels.
	local n=0 a b s d via s2 d2 via2 h
	for h in h1 h2 h3 h4; do lab_exec "$h" sysctl -q -w net.ipv6.auto_flowlabels=0; done
	while read -r a b s d via s2 d2 via2; do
		assert_eq "$1: $a -> $b port $s: traceroute -6 -T" "$via" \
			"$(node_of "$(witness "${a#"$P"-}" -T "$d" "$s" "$(lab_addr6 "${b#"$P"-}")" | cut -d' ' -f2)")"
		assert_eq "$1: $b -> $a port $s2 -> $d2: traceroute -6 -T" "$via2" \
			"$(node_of "$(witness "${b#"$P"-}" -T "$d2" "$s2" "$(lab_addr6 "${a#"$P"-}")" | cut -d' ' -f2)")"
		n=$((n + 1))
	done < <(sed -n 's/.*steer \([^ ]*\) \([^ ]*\): port \([0-9]*\) -> \([0-9]*\) via \([^;]*\); back \([0-9]*\) -> \([0-9]*\) via \(.*\)$/\1 \2 \3 \4 \5 \6 \7 \8/p' "$TMP/err.$1")
	assert_eq "$1: steered pairs witnessed" 4 "$n"
	for h in h1 h2 h3 h4; do lab_exec "$h" sysctl -q -w net.ipv6.auto_flowlabels=1; done
}
steered_sweep ports
# The leaves hash the flow label too: tests and probes carry the same label (0), the paths hold.
for n in leaf1 leaf2; do
	lab_exec "$n" sysctl -q -w net.ipv6.fib_multipath_hash_fields=0x3f
done
steered_sweep label
echo "IPv6: traced, witnessed, steered, the label pinned" >&2
