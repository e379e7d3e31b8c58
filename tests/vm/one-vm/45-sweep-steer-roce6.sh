#!/bin/bash
# `fabricctl sweep --steer --transport verbs` over IPv6 GIDs: the routed
# ECMP path of 43-sweep-steer-roce.sh with IPv6 addresses only (docs/paths.md
# "IPv6").  Two Soft-RoCE hosts in the VM's root namespace, each on its own
# veth to a leaf router in a namespace; two spines join the leaves
# (`nexthop via spine1 nexthop via spine2`, the leaves hashing the headers'
# 5-tuple, not the flow label: net.ipv6.fib_multipath_hash_fields 0x37);
# policy routing sends each host's packets to the other out of its own
# veth, through the routers:
#
#   root ns: va fd00:1::2 (rxe) -- leaf1 == spine1, spine2 == leaf2 -- vb fd00:2::2 (rxe)
#
# Checks: the verbs tests connect from the hosts' IPv6 GIDs; the pair is
# steered (the tracer's IPv6 probes, each carrying the flow label of its
# QP), its test ok; the member traced each way is the one Debian's
# `traceroute -6 -U -p 4791 --sport S` reports for the same tuple (and
# other ports reach the other spine: the choice was real);
# tcpdump sees the test's RoCE v2 packets leave from the planned ports,
# the ones recorded (pairs[].udp_sport); the probes carry the QP's flow
# label (verbs_sport_flow_label() of their port) and rxe's test packets
# label 0 (this kernel's rxe writes 0 into the IPv6 header whatever the
# QP's label: docs/paths.md "IPv6").  Runs inside the VM:
#   tests/vm/run-tests --results tests/out/vm-results.txt tests/vm/one-vm/45-sweep-steer-roce6.sh
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need
need_cmd jq rdma tcpdump traceroute
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make at the repo root first)"

tmp=$(mktemp -d /tmp/steer-roce6.$$.XXXXXX)
N=s6$$
NS="$N-leaf1 $N-leaf2 $N-spine1 $N-spine2"
pids=()
cleanup() {
	set +e
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	for n in $NS; do ip netns del "$n" 2>/dev/null; done
	ip -6 rule del pref 100 from fd00:1::2 2>/dev/null
	ip -6 rule del pref 100 from fd00:2::2 2>/dev/null
	if ! ip -6 rule show | grep -q '^0:.*lookup local'; then
		ip -6 rule add pref 0 lookup local 2>/dev/null
		ip -6 rule del pref 1000 lookup local 2>/dev/null
	fi
	rm -rf "$tmp"
	vm_reset >/dev/null 2>&1
}
trap cleanup EXIT

IPA=fd00:1::2 IPB=fd00:2::2
# b NODE CMD...: iproute2 commands in NODE's namespace, one process (ip -batch).
b() {
	local n=$1
	shift
	printf '%s\n' "$@" >"$tmp/batch"
	pretty "ip -n $N-$n -batch: $(paste -sd ';' "$tmp/batch")"
	ip -n "$N-$n" -batch "$tmp/batch" || fail "ip -batch in $n"
}
vm_modprobe veth
for n in $NS; do
	run ip netns add "$n"
	run ip netns exec "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
done
vm_sysctl net.ipv6.conf.all.accept_dad 0
vm_sysctl net.ipv6.conf.default.accept_dad 0
# The hosts' cables: root ns ha/hb <-> the leaves' swp1; leafL swp49 <->
# spine1 swpL, leafL swp50 <-> spine2 swpL, a /127 each (fd00:ff::/64).
run ip link add ha type veth peer name swp1 netns "$N-leaf1"
run ip link add hb type veth peer name swp1 netns "$N-leaf2"
for l in 1 2; do
	o=$((4 * l - 4))	# leafL: fd00:ff::o (to spine1), fd00:ff::o+2 (to spine2)
	b "leaf$l" "link add swp49 type veth peer name swp$l netns $N-spine1" \
		"link add swp50 type veth peer name swp$l netns $N-spine2" \
		"addr add fd00:ff::$o/127 dev swp49 nodad" "addr add fd00:ff::$((o + 2))/127 dev swp50 nodad" \
		"addr add fd00:$l::1/64 dev swp1 nodad" \
		"link set lo up" "link set swp1 up" "link set swp49 up" "link set swp50 up"
done
b leaf1 "route add fd00:2::/64 nexthop via fd00:ff::1 dev swp49 nexthop via fd00:ff::3 dev swp50"
b leaf2 "route add fd00:1::/64 nexthop via fd00:ff::5 dev swp49 nexthop via fd00:ff::7 dev swp50"
for s in 1 2; do
	o=$((2 * s - 2))	# spineS: fd00:ff::o+1 (to leaf1), fd00:ff::o+5 (to leaf2)
	b "spine$s" "addr add fd00:ff::$((o + 1))/127 dev swp1 nodad" "addr add fd00:ff::$((o + 5))/127 dev swp2 nodad" \
		"link set lo up" "link set swp1 up" "link set swp2 up" \
		"route add fd00:1::/64 via fd00:ff::$o" "route add fd00:2::/64 via fd00:ff::$((o + 4))"
done
for n in leaf1 leaf2 spine1 spine2; do
	run ip netns exec "$N-$n" sysctl -qw net.ipv6.conf.all.forwarding=1 net.ipv6.icmp.ratelimit=0 \
		net.ipv6.fib_multipath_hash_policy=3 net.ipv6.fib_multipath_hash_fields=0x37
done
# Root ns: each host's packets to the other leave by its own cable (iif lo:
# locally sent only); what arrives is delivered by the local table, moved
# after those rules.
run ip addr add "$IPA/64" dev ha nodad
run ip addr add "$IPB/64" dev hb nodad
run ip link set ha up
run ip link set hb up
run ip -6 route add "$IPB/128" via fd00:1::1 dev ha src "$IPA" table 110
run ip -6 rule add pref 100 from "$IPA" to "$IPB" iif lo lookup 110
run ip -6 route add "$IPA/128" via fd00:2::1 dev hb src "$IPB" table 111
run ip -6 rule add pref 100 from "$IPB" to "$IPA" iif lo lookup 111
if ip -6 rule show | grep -q '^0:.*lookup local'; then
	run ip -6 rule add pref 1000 lookup local
	run ip -6 rule del pref 0 lookup local
fi
vm_wait_for "va -> vb over the leaves" 10 ping -6 -c 1 -W 1 -I "$IPA" "$IPB"
vm_modprobe rdma_rxe
run rdma link add rxe_ha type rxe netdev ha
run rdma link add rxe_hb type rxe netdev hb
# gid6 DEV FULL: the RoCE v2 GID FULL (the address written out, as sysfs shows it) is in DEV's table.
gid6() {
	local full=$2 g i
	for g in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		i=${g##*/}
		[ "$(cat "$g" 2>/dev/null)" = "$full" ] &&
			[ "$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] &&
			return 0
	done
	return 1
}
vm_wait_for "rxe_ha IPv6 GID" 10 gid6 rxe_ha fd00:0001:0000:0000:0000:0000:0000:0002
vm_wait_for "rxe_hb IPv6 GID" 10 gid6 rxe_hb fd00:0002:0000:0000:0000:0000:0000:0002

cat >"$tmp/plan.yaml" <<EOF
version: 1
nodes:
  - { name: va, type: host }
  - { name: vb, type: host }
  - { name: leaf1, type: switch, addresses: ["fd00:1::1", "fd00:ff::", "fd00:ff::2"] }
  - { name: leaf2, type: switch, addresses: ["fd00:2::1", "fd00:ff::4", "fd00:ff::6"] }
  - { name: spine1, type: switch, addresses: ["fd00:ff::1", "fd00:ff::5"] }
  - { name: spine2, type: switch, addresses: ["fd00:ff::3", "fd00:ff::7"] }
links:
  - [ "va:ha", "leaf1:swp1" ]
  - [ "vb:hb", "leaf2:swp1" ]
  - [ "leaf1:swp49", "spine1:swp1" ]
  - [ "leaf1:swp50", "spine2:swp1" ]
  - [ "leaf2:swp49", "spine1:swp2" ]
  - [ "leaf2:swp50", "spine2:swp2" ]
EOF
cat >"$tmp/hosts" <<EOF
va $IPA rdma=rxe_ha
vb $IPB rdma=rxe_hb
EOF

# cap IF SRC NAME: tcpdump (-v: the flow label) of RoCE v2 packets from SRC leaving by IF.
cap() {
	tcpdump -i "$1" -nn -l -v -c 400 -s 96 "ip6 and udp dst port 4791 and src host $2" \
		>"$tmp/cap-$3.txt" 2>"$tmp/cap-$3.err" &
	pids+=($!)
	vm_wait_for "tcpdump on $1" 10 grep -q "listening on" "$tmp/cap-$3.err"
}
cap ha "$IPA" ab
cap hb "$IPB" ba
pretty "set up in ${SECONDS}s"
rc=0
run "$FABRICCTL" -v sweep --hosts "$tmp/hosts" --launcher 'env FAB_NODE={host}' --transport verbs \
	--topology "$tmp/plan.yaml" --steer -j --duration 0.5 --lat-iters 100 --msg-size 2 \
	--timeout 60 --no-progress >"$tmp/sweep.json" 2>"$tmp/sweep.err" || rc=$?
for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
pids=()
pretty "sweep done at ${SECONDS}s"
grep -E "steer|UDP source port|sweep:|gid" "$tmp/sweep.err" >&2 || true
q() { jq -r "$@" "$tmp/sweep.json"; }
assert_eq "sweep exit" 0 "$rc"
assert_eq "pair status" ok "$(q '.pairs[0].status')"
assert_eq "steer" '{"traced":true,"steered":true,"fallback":null}' "$(q -c '.pairs[0].steer')"
line=$(sed -n 's/.*steer va vb: udp port \([0-9]*\) -> 4791 via \([^;]*\); back \([0-9]*\) -> 4791 via \(.*\)$/\1 \2 \3 \4/p' "$tmp/sweep.err")
read -r S VIA S2 VIA2 <<<"$line"
[ -n "${VIA2:-}" ] || fail "no steer line for va vb"
pretty "planned: va -> vb from $S via $VIA; vb -> va from $S2 via $VIA2"
assert_eq "recorded udp_sport" "$S $S2" "$(q '.pairs[0].udp_sport | "\(.ab) \(.ba)"')"
assert_eq "JSON traced member a -> b" "$VIA" "$(q '.pairs[0].routes.ab[] | select(.traced) | .hops[1].to.node')"
assert_eq "JSON traced member b -> a" "$VIA2" "$(q '.pairs[0].routes.ba[] | select(.traced) | .hops[1].to.node')"
# What left each host: the test's packets are the many, from the planned port.
pretty "captured: $(wc -l <"$tmp/cap-ab.txt") packets a -> b, $(wc -l <"$tmp/cap-ba.txt") b -> a"
top() { sed -n "s/^.* $2\.\([0-9]*\) > $3\.4791: .*$/\1/p" "$tmp/cap-$1.txt" | sort | uniq -c | sort -rn; }
top ab "$IPA" "$IPB" | head -3 >&2
top ba "$IPB" "$IPA" | head -3 >&2
assert_eq "captured a -> b: the test's port" "$S" "$(top ab "$IPA" "$IPB" | awk 'NR == 1 { print $2 }')"
assert_eq "captured b -> a: the test's port" "$S2" "$(top ba "$IPB" "$IPA" | awk 'NR == 1 { print $2 }')"
assert_eq "captured a -> b: the test's packets" true "$(top ab "$IPA" "$IPB" | awk 'NR == 1 { print ($1 >= 100) ? "true" : "false" }')"
# Flow labels: the probes from S carry the QP's label (the port's: (S & 0x3fff),
# or 0x4001 for 0xc000); the test's packets from S carry 0 (rxe writes none).
label=$(printf '0x%05x' $(( S == 49152 ? 0x4001 : (S & 0x3fff) )))
probes=$(grep -c "IP6 (flowlabel $label, .* $IPA\.$S > " "$tmp/cap-ab.txt" || true)
tests0=$(grep -v "flowlabel" "$tmp/cap-ab.txt" | grep -c " $IPA\.$S > $IPB\.4791: " || true)
others=$(grep "flowlabel" "$tmp/cap-ab.txt" | grep -vc "flowlabel $label," || true)
pretty "port $S: $probes probes with flow label $label, $tests0 packets with label 0, $others others labelled"
[ "$probes" -ge 1 ] || fail "no probe from port $S with its QP's flow label $label"
[ "$tests0" -ge 100 ] || fail "the test's packets from $S do not carry label 0 (rxe)"
# A second witness: traceroute -6 with the same tuple reaches the same spine.
node_of() { case $1 in fd00:ff::1 | fd00:ff::5) echo spine1 ;; fd00:ff::3 | fd00:ff::7) echo spine2 ;; *) echo "?$1" ;; esac; }
witness() { # SRC SPORT DST
	node_of "$(traceroute -6 -n -q 2 -w 1 -m 2 -U -p 4791 --sport="$2" -s "$1" "$3" 2>/dev/null |
		awk 'NR == 3 { for (i = 2; i <= NF; i++) if ($i ~ /:/) { print $i; exit } }')"
}
assert_eq "va -> vb udp $S: traceroute -6 -U" "$VIA" "$(witness "$IPA" "$S" "$IPB")"
assert_eq "vb -> va udp $S2: traceroute -6 -U" "$VIA2" "$(witness "$IPB" "$S2" "$IPA")"
# The path is a choice: other ports of the same pair reach the other spine too (IPv6 ECMP at work).
seen=$(for p in $(seq 49152 49167); do
	traceroute -6 -n -q 1 -w 1 -m 2 -U -p 4791 --sport="$p" -s "$IPA" "$IPB" 2>/dev/null | awk 'NR == 3 { print $2 }'
done | while read -r a; do node_of "$a"; done | sort -u | paste -sd' ')
assert_eq "va -> vb over 16 ports: both spines" "spine1 spine2" "$seen"
pretty "done in ${SECONDS}s"
