#!/bin/bash
# `fabricctl sweep --steer --transport verbs` over a routed ECMP path
# between two Soft-RoCE hosts (docs/paths.md "RoCE v2").  rxe on 6.1 works
# only in the VM's root namespace, so both hosts live there, each on its
# own veth whose other end is a leaf router in a namespace; two spines join
# the leaves (`nexthop via spine1 nexthop via spine2`, the leaves hashing
# the headers' 5-tuple), and policy routing (as vm_rxe_pair does) sends
# each host's packets to the other out of its own veth, through the
# routers:
#
#   root ns: va 10.1.1.2 (rxe) -- leaf1 == spine1, spine2 == leaf2 -- vb 10.2.2.2 (rxe)
#
# Checks: the one cross-leaf pair is steered, its test ok; the member
# traced each way is the one Debian's `traceroute -U -p 4791 --sport S`
# reports for the same tuple; tcpdump sees every RoCE v2 packet of the
# test leave from the planned ports (a -> b from S, b -> a from S'), which
# are the ones the sweep recorded (pairs[].udp_sport) and the JSON's
# traced members.  Then the same sweep steered in windows of one base round
# (FABRICCTL_STEER_WINDOW=1): traced in its window, steered, ok, the ports
# recorded those planned, the a -> b member traceroute's.  Last, workers
# that ignore the plan (FABRICCTL_VERBS_FLOW_LABEL=0): the pair said to
# have moved (fallback `moved`, whole set), the capture's ports the ones
# recorded.  Last, the same fabric over IPv6 (fd00:1::2, fd00:2::2 beside
# the IPv4 addresses, /127 cables in fd00:ff::/64, the leaves hashing the
# IPv6 5-tuple, not the flow label): the verbs tests connect from the
# hosts' IPv6 GIDs, the pair is steered (the tracer's IPv6 probes, each
# with the flow label of its port's QP) and ok, tcpdump sees the test
# leave from the planned ports, the probes from S with S's label and the
# test's packets with label 0 (this kernel's rxe writes 0 into the IPv6
# header whatever the QP's label: docs/paths.md "IPv6"), each member the
# one `traceroute -6 -U --sport S` reports, and other ports reach the
# other spine.  Runs inside the VM:
#   tests/vm/run-tests --results tests/out/vm-results.txt tests/vm/one-vm/43-sweep-steer-roce.sh
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need
need_cmd jq rdma tcpdump traceroute
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make at the repo root first)"

tmp=$(mktemp -d /tmp/steer-roce.$$.XXXXXX)
N=sr$$
NS="$N-leaf1 $N-leaf2 $N-spine1 $N-spine2"
pids=()
cleanup() {
	set +e
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	for n in $NS; do ip netns del "$n" 2>/dev/null; done
	ip -6 rule del pref 100 from "$IP6A" 2>/dev/null
	ip -6 rule del pref 100 from "$IP6B" 2>/dev/null
	if ! ip -6 rule show | grep -q '^0:.*lookup local'; then
		ip -6 rule add pref 0 lookup local 2>/dev/null
		ip -6 rule del pref 1000 lookup local 2>/dev/null
	fi
	rm -rf "$tmp"
	vm_reset >/dev/null 2>&1
}
trap cleanup EXIT

IPA=10.1.1.2 IPB=10.2.2.2
IP6A=fd00:1::2 IP6B=fd00:2::2
# b NODE CMD...: iproute2 commands in NODE's namespace, one process (ip -batch).
b() {
	local n=$1
	shift
	printf '%s\n' "$@" >"$tmp/batch"
	pretty "ip -n $N-$n -batch: $(paste -sd ';' "$tmp/batch")"
	ip -n "$N-$n" -batch "$tmp/batch" || fail "ip -batch in $n"
}
vm_modprobe veth
# No duplicate address detection anywhere: every IPv6 address usable at once.
vm_sysctl net.ipv6.conf.all.accept_dad 0
vm_sysctl net.ipv6.conf.default.accept_dad 0
for n in $NS; do
	run ip netns add "$n"
	run ip netns exec "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
done
# The hosts' cables: root ns ha/hb <-> the leaves' swp1; leafL swp49 <->
# spine1 swpL, leafL swp50 <-> spine2 swpL, /31 each.  The leaves spread
# over both spines by the 5-tuple (docs/paths.md "Linux routers and the lab").
run ip link add ha type veth peer name swp1 netns "$N-leaf1"
run ip link add hb type veth peer name swp1 netns "$N-leaf2"
for l in 1 2; do
	o=$((4 * l - 4))	# leafL: 10.0.0.o (to spine1), 10.0.0.o+2 (to spine2)
	b "leaf$l" "link add swp49 type veth peer name swp$l netns $N-spine1" \
		"link add swp50 type veth peer name swp$l netns $N-spine2" \
		"addr add 10.0.0.$o/31 dev swp49" "addr add 10.0.0.$((o + 2))/31 dev swp50" \
		"addr add 10.$l.$l.1/24 dev swp1" \
		"addr add fd00:ff::$o/127 dev swp49 nodad" "addr add fd00:ff::$((o + 2))/127 dev swp50 nodad" \
		"addr add fd00:$l::1/64 dev swp1 nodad" \
		"link set lo up" "link set swp1 up" "link set swp49 up" "link set swp50 up"
done
b leaf1 "route add 10.2.2.0/24 nexthop via 10.0.0.1 nexthop via 10.0.0.3" \
	"route add fd00:2::/64 nexthop via fd00:ff::1 dev swp49 nexthop via fd00:ff::3 dev swp50"
b leaf2 "route add 10.1.1.0/24 nexthop via 10.0.0.5 nexthop via 10.0.0.7" \
	"route add fd00:1::/64 nexthop via fd00:ff::5 dev swp49 nexthop via fd00:ff::7 dev swp50"
for s in 1 2; do
	o=$((2 * s - 2))	# spineS: 10.0.0.o+1 (to leaf1), 10.0.0.o+5 (to leaf2)
	b "spine$s" "addr add 10.0.0.$((o + 1))/31 dev swp1" "addr add 10.0.0.$((o + 5))/31 dev swp2" \
		"addr add fd00:ff::$((o + 1))/127 dev swp1 nodad" "addr add fd00:ff::$((o + 5))/127 dev swp2 nodad" \
		"link set lo up" "link set swp1 up" "link set swp2 up" \
		"route add 10.1.1.0/24 via 10.0.0.$o" "route add 10.2.2.0/24 via 10.0.0.$((o + 4))" \
		"route add fd00:1::/64 via fd00:ff::$o" "route add fd00:2::/64 via fd00:ff::$((o + 4))"
done
for n in leaf1 leaf2 spine1 spine2; do
	run ip netns exec "$N-$n" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.icmp_ratelimit=0 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.fib_multipath_hash_policy=3 net.ipv4.fib_multipath_hash_fields=0x37 \
		net.ipv6.conf.all.forwarding=1 net.ipv6.icmp.ratelimit=0 \
		net.ipv6.fib_multipath_hash_policy=3 net.ipv6.fib_multipath_hash_fields=0x37
done
# Root ns: each host's packets to the other leave by its own cable (iif lo:
# locally sent only); what arrives is delivered by the local table, moved
# after those rules.
run ip addr add "$IPA/24" dev ha
run ip addr add "$IPB/24" dev hb
run ip addr add "$IP6A/64" dev ha nodad
run ip addr add "$IP6B/64" dev hb nodad
run ip link set ha up
run ip link set hb up
vm_sysctl net.ipv4.conf.all.rp_filter 0
vm_sysctl net.ipv4.conf.default.rp_filter 0
for i in ha hb; do
	vm_sysctl "net.ipv4.conf.$i.rp_filter" 0
	vm_sysctl "net.ipv4.conf.$i.accept_local" 1
	vm_sysctl "net.ipv4.conf.$i.arp_ignore" 1
done
run ip route add "$IPB/32" via 10.1.1.1 dev ha src "$IPA" table 110
run ip rule add pref 100 from "$IPA" to "$IPB" iif lo lookup 110
run ip route add "$IPA/32" via 10.2.2.1 dev hb src "$IPB" table 111
run ip rule add pref 100 from "$IPB" to "$IPA" iif lo lookup 111
if ip rule show | grep -q '^0:.*lookup local'; then
	run ip rule add pref 1000 lookup local
	run ip rule del pref 0 lookup local
fi
run ip -6 route add "$IP6B/128" via fd00:1::1 dev ha src "$IP6A" table 110
run ip -6 rule add pref 100 from "$IP6A" to "$IP6B" iif lo lookup 110
run ip -6 route add "$IP6A/128" via fd00:2::1 dev hb src "$IP6B" table 111
run ip -6 rule add pref 100 from "$IP6B" to "$IP6A" iif lo lookup 111
if ip -6 rule show | grep -q '^0:.*lookup local'; then
	run ip -6 rule add pref 1000 lookup local
	run ip -6 rule del pref 0 lookup local
fi
vm_modprobe rdma_rxe
run rdma link add rxe_ha type rxe netdev ha
run rdma link add rxe_hb type rxe netdev hb
vm_wait_for "rxe_ha IPv4 GID" 10 vm_gid_index rxe_ha 1 "$IPA"
vm_wait_for "rxe_hb IPv4 GID" 10 vm_gid_index rxe_hb 1 "$IPB"

# fabric PLAN HOSTS A B LEAF1 LEAF2 SPINE1 SPINE2: the plan (each switch's addresses a YAML
# list) and the hosts file (va at A, vb at B) of this fabric, IPv4 or IPv6.
fabric() {
	cat >"$1" <<EOF
version: 1
nodes:
  - { name: va, type: host }
  - { name: vb, type: host }
  - { name: leaf1, type: switch, addresses: $5 }
  - { name: leaf2, type: switch, addresses: $6 }
  - { name: spine1, type: switch, addresses: $7 }
  - { name: spine2, type: switch, addresses: $8 }
links:
  - [ "va:ha", "leaf1:swp1" ]
  - [ "vb:hb", "leaf2:swp1" ]
  - [ "leaf1:swp49", "spine1:swp1" ]
  - [ "leaf1:swp50", "spine2:swp1" ]
  - [ "leaf2:swp49", "spine1:swp2" ]
  - [ "leaf2:swp50", "spine2:swp2" ]
EOF
	printf 'va %s rdma=rxe_ha\nvb %s rdma=rxe_hb\n' "$3" "$4" >"$2"
}
fabric "$tmp/plan.yaml" "$tmp/hosts" "$IPA" "$IPB" "[10.1.1.1, 10.0.0.0, 10.0.0.2]" \
	"[10.2.2.1, 10.0.0.4, 10.0.0.6]" "[10.0.0.1, 10.0.0.5]" "[10.0.0.3, 10.0.0.7]"

# cap IF SRC NAME [OPTION]: tcpdump (with OPTION: -v, the IPv6 flow label) of RoCE v2
# packets from SRC leaving by IF.
cap() {
	tcpdump -i "$1" -nn -l ${4:+"$4"} -c 400 -s 96 "udp dst port 4791 and src host $2" \
		>"$tmp/cap-$3.txt" 2>"$tmp/cap-$3.err" &
	pids+=($!)
	vm_wait_for "tcpdump on $1" 10 grep -q "listening on" "$tmp/cap-$3.err"
}
# cap_stop: the captures started by cap ended.
cap_stop() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	pids=()
}
# steered WHAT JSON ERR: the pair steered, its plan read from ERR's -v line into S VIA (a -> b)
# and S2 VIA2 (b -> a), and JSON's recorded ports and traced members those.
steered() {
	local line
	assert_eq "${1}pair status" ok "$(jq -r '.pairs[0].status' "$2")"
	assert_eq "${1}steer" '{"traced":true,"steered":true,"fallback":null}' "$(jq -c '.pairs[0].steer' "$2")"
	line=$(sed -n 's/.*steer va vb: udp port \([0-9]*\) -> 4791 via \([^;]*\); back \([0-9]*\) -> 4791 via \(.*\)$/\1 \2 \3 \4/p' "$3")
	read -r S VIA S2 VIA2 <<<"$line"
	[ -n "${VIA2:-}" ] || fail "${1}no steer line for va vb"
	pretty "${1}planned: va -> vb from $S via $VIA; vb -> va from $S2 via $VIA2"
	assert_eq "${1}recorded udp_sport" "$S $S2" "$(jq -r '.pairs[0].udp_sport | "\(.ab) \(.ba)"' "$2")"
	assert_eq "${1}JSON traced member a -> b" "$VIA" "$(jq -r '.pairs[0].routes.ab[] | select(.traced) | .hops[1].to.node' "$2")"
	assert_eq "${1}JSON traced member b -> a" "$VIA2" "$(jq -r '.pairs[0].routes.ba[] | select(.traced) | .hops[1].to.node' "$2")"
}
# top NAME SRC DST: the source ports of capture NAME's packets SRC -> DST:4791, most first
# (IPv4 and IPv6 lines alike).
top() { sed -n "s/^.* $2\.\([0-9]*\) > $3\.4791: .*$/\1/p" "$tmp/cap-$1.txt" | sort | uniq -c | sort -rn; }
# top_port WHAT NAME SRC DST PORT: PORT carried the most; top_many WHAT NAME SRC DST: at
# least 100 packets (a traced port's probes are a few dozen at most; a test's are the many).
top_port() { assert_eq "$1" "$5" "$(top "$2" "$3" "$4" | awk 'NR == 1 { print $2 }')"; }
top_many() { assert_eq "$1" true "$(top "$2" "$3" "$4" | awk 'NR == 1 { print ($1 >= 100) ? "true" : "false" }')"; }
cap ha "$IPA" ab
cap hb "$IPB" ba
pretty "set up in ${SECONDS}s"
rc=0
run "$FABRICCTL" -v sweep --hosts "$tmp/hosts" --launcher 'env FAB_NODE={host}' --transport verbs \
	--topology "$tmp/plan.yaml" --steer -j --duration 0.5 --lat-iters 100 --msg-size 2 \
	--timeout 60 --no-progress >"$tmp/sweep.json" 2>"$tmp/sweep.err" || rc=$?
cap_stop
pretty "sweep done at ${SECONDS}s"
grep -E "steer|UDP source port|sweep:" "$tmp/sweep.err" >&2 || true
assert_eq "sweep exit" 0 "$rc"
assert_eq "schedule counted" steered "$(jq -r .schedule.counted "$tmp/sweep.json")"
steered "" "$tmp/sweep.json" "$tmp/sweep.err"
# What left each host: the traces' probes are UDP to 4791 too (a few from each
# traced port); the test's own packets are the many, all from the planned port.
pretty "captured: $(wc -l <"$tmp/cap-ab.txt") packets a -> b, $(wc -l <"$tmp/cap-ba.txt") b -> a"
top ab "$IPA" "$IPB" | head -3 >&2
top ba "$IPB" "$IPA" | head -3 >&2
top_port "captured a -> b: the test's port" ab "$IPA" "$IPB" "$S"
top_port "captured b -> a: the test's port" ba "$IPB" "$IPA" "$S2"
top_many "captured a -> b: the test's packets" ab "$IPA" "$IPB"
top_many "captured b -> a: the test's packets" ba "$IPB" "$IPA"
# A second witness: traceroute with the same tuple reaches the same spine.
node_of() { case $1 in 10.0.0.1 | 10.0.0.5) echo spine1 ;; 10.0.0.3 | 10.0.0.7) echo spine2 ;; *) echo "?$1" ;; esac; }
witness() { # SRC SPORT DST
	node_of "$(traceroute -n -q 2 -w 1 -m 2 -U -p 4791 --sport="$2" -s "$1" "$3" 2>/dev/null |
		awk 'NR == 3 { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9.]+$/ && $i ~ /\./) { print $i; exit } }')"
}
assert_eq "va -> vb udp $S: traceroute -U" "$VIA" "$(witness "$IPA" "$S" "$IPB")"
assert_eq "vb -> va udp $S2: traceroute -U" "$VIA2" "$(witness "$IPB" "$S2" "$IPA")"

# Steering in windows (docs/paths.md "Steering in windows"), forced to one
# base round a window: the pair is traced in its window, packed, and its test
# runs on the ports the window planned (the QPs' flow labels), recorded as
# the -v line says them.  A new sweep: a new random base, new ports.
pretty "steered in windows (FABRICCTL_STEER_WINDOW=1) at ${SECONDS}s"
rc=0
run env FABRICCTL_STEER_WINDOW=1 "$FABRICCTL" -v sweep --hosts "$tmp/hosts" --launcher 'env FAB_NODE={host}' \
	--transport verbs --topology "$tmp/plan.yaml" --steer -j --duration 0.2 --lat-iters 100 \
	--msg-size 2 --timeout 60 --no-progress >"$tmp/win.json" 2>"$tmp/win.err" || rc=$?
grep -E "steer|UDP source port|sweep:" "$tmp/win.err" >&2 || true
w() { jq -r "$@" "$tmp/win.json"; }
assert_eq "windows: sweep exit" 0 "$rc"
grep -q "pairs steered in windows: the pairs of 1 base rounds traced at a time" "$tmp/win.err" ||
	fail "windows: the sweep did not steer in windows"
grep -q "sweep --steer: tracing 1 pairs of the next 1 base rounds" "$tmp/win.err" ||
	fail "windows: no window traced"
assert_eq "windows: trace_window" 1 "$(w .schedule.trace_window)"
assert_eq "windows: pairs" 1 "$(w '.pairs | length')"
steered "windows: " "$tmp/win.json" "$tmp/win.err"
assert_eq "windows: va -> vb udp $S: traceroute -U" "$VIA" "$(witness "$IPA" "$S" "$IPB")"

# Workers that ignore the plan (FABRICCTL_VERBS_FLOW_LABEL=0, a test
# setting: their QPs keep the kernel's flow label, as a worker that does
# not steer would, and record the ports that gives): the ports recorded are
# not those planned, so the pair is said to have moved and falls back to
# its whole ECMP set; the capture shows the test left from the recorded
# ports (rxe: rdma_get_udp_sport() of label 0, from the QP numbers).
pretty "workers ignoring the plan (FABRICCTL_VERBS_FLOW_LABEL=0) at ${SECONDS}s"
cap ha "$IPA" mab
cap hb "$IPB" mba
rc=0
run "$FABRICCTL" -v sweep --hosts "$tmp/hosts" \
	--launcher 'env FAB_NODE={host} FABRICCTL_VERBS_FLOW_LABEL=0' --transport verbs \
	--topology "$tmp/plan.yaml" --steer -j --duration 0.5 --lat-iters 100 --msg-size 2 \
	--timeout 60 --no-progress >"$tmp/moved.json" 2>"$tmp/moved.err" || rc=$?
cap_stop
grep -E "steer|UDP source port|sweep:" "$tmp/moved.err" >&2 || true
m() { jq -r "$@" "$tmp/moved.json"; }
assert_eq "ignored: sweep exit" 0 "$rc"
assert_eq "ignored: pair status" ok "$(m '.pairs[0].status')"
assert_eq "ignored: fallback" moved "$(m '.pairs[0].steer.fallback')"
grep -q "sweep --steer: va vb: its QPs recorded UDP ports" "$tmp/moved.err" ||
	fail "ignored: the pair was not said to have moved"
read -r MS MS2 <<<"$(m '.pairs[0].udp_sport | "\(.ab) \(.ba)"')"
pretty "ignored: recorded va -> vb from $MS, vb -> va from $MS2; captured $(wc -l <"$tmp/cap-mab.txt") and $(wc -l <"$tmp/cap-mba.txt") packets"
top mab "$IPA" "$IPB" | head -3 >&2
top mba "$IPB" "$IPA" | head -3 >&2
top_port "ignored: captured a -> b: the recorded port" mab "$IPA" "$IPB" "$MS"
top_port "ignored: captured b -> a: the recorded port" mba "$IPB" "$IPA" "$MS2"
top_many "ignored: captured a -> b: the test's packets" mab "$IPA" "$IPB"
pretty "IPv6 GIDs at ${SECONDS}s"

# --- IPv6 GIDs: the same pair by its IPv6 addresses ----------------------------------------
# gid6 DEV FULL: the RoCE v2 GID FULL (the address written out, as sysfs shows it) is in
# DEV's table (one grep over its 1024 entries: a cat each would take seconds under TCG).
gid6() {
	local g
	for g in $(grep -lx "$2" /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null); do
		[ "$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/${g##*/}" 2>/dev/null)" = "RoCE v2" ] &&
			return 0
	done
	return 1
}
vm_wait_for "rxe_ha IPv6 GID" 10 gid6 rxe_ha fd00:0001:0000:0000:0000:0000:0000:0002
vm_wait_for "rxe_hb IPv6 GID" 10 gid6 rxe_hb fd00:0002:0000:0000:0000:0000:0000:0002

fabric "$tmp/plan6.yaml" "$tmp/hosts6" "$IP6A" "$IP6B" '["fd00:1::1", "fd00:ff::", "fd00:ff::2"]' \
	'["fd00:2::1", "fd00:ff::4", "fd00:ff::6"]' '["fd00:ff::1", "fd00:ff::5"]' '["fd00:ff::3", "fd00:ff::7"]'
cap ha "$IP6A" ab6 -v
cap hb "$IP6B" ba6 -v
rc=0
run "$FABRICCTL" -v sweep --hosts "$tmp/hosts6" --launcher 'env FAB_NODE={host}' --transport verbs \
	--topology "$tmp/plan6.yaml" --steer -j --duration 0.5 --lat-iters 100 --msg-size 2 \
	--timeout 60 --no-progress >"$tmp/sweep6.json" 2>"$tmp/sweep6.err" || rc=$?
cap_stop
pretty "IPv6: sweep done at ${SECONDS}s"
grep -E "steer|UDP source port|sweep:|gid" "$tmp/sweep6.err" >&2 || true
assert_eq "IPv6: sweep exit" 0 "$rc"
steered "IPv6: " "$tmp/sweep6.json" "$tmp/sweep6.err"
# What left each host: the test's packets are the many, from the planned port.
pretty "captured: $(wc -l <"$tmp/cap-ab6.txt") packets a -> b, $(wc -l <"$tmp/cap-ba6.txt") b -> a"
top ab6 "$IP6A" "$IP6B" | head -3 >&2
top ba6 "$IP6B" "$IP6A" | head -3 >&2
top_port "IPv6: captured a -> b: the test's port" ab6 "$IP6A" "$IP6B" "$S"
top_port "IPv6: captured b -> a: the test's port" ba6 "$IP6B" "$IP6A" "$S2"
top_many "IPv6: captured a -> b: the test's packets" ab6 "$IP6A" "$IP6B"
# Flow labels: the probes from S carry the QP's label (the port's: (S & 0x3fff),
# or 0x4001 for 0xc000); the test's packets from S carry 0 (rxe writes none).
label=$(printf '0x%05x' $(( S == 49152 ? 0x4001 : (S & 0x3fff) )))
probes=$(grep -c "IP6 (flowlabel $label, .* $IP6A\.$S > " "$tmp/cap-ab6.txt" || true)
tests0=$(grep -v "flowlabel" "$tmp/cap-ab6.txt" | grep -c " $IP6A\.$S > $IP6B\.4791: " || true)
others=$(grep "flowlabel" "$tmp/cap-ab6.txt" | grep -vc "flowlabel $label," || true)
pretty "port $S: $probes probes with flow label $label, $tests0 packets with label 0, $others others labelled"
[ "$probes" -ge 1 ] || fail "no probe from port $S with its QP's flow label $label"
[ "$tests0" -ge 100 ] || fail "the test's packets from $S do not carry label 0 (rxe)"
# A second witness: traceroute -6 with the same tuple reaches the same spine.
node6() { case $1 in fd00:ff::1 | fd00:ff::5) echo spine1 ;; fd00:ff::3 | fd00:ff::7) echo spine2 ;; *) echo "?$1" ;; esac; }
witness6() { # SRC SPORT DST
	node6 "$(traceroute -6 -n -q 2 -w 1 -m 2 -U -p 4791 --sport="$2" -s "$1" "$3" 2>/dev/null |
		awk 'NR == 3 { for (i = 2; i <= NF; i++) if ($i ~ /:/) { print $i; exit } }')"
}
assert_eq "IPv6: va -> vb udp $S: traceroute -6 -U" "$VIA" "$(witness6 "$IP6A" "$S" "$IP6B")"
assert_eq "IPv6: vb -> va udp $S2: traceroute -6 -U" "$VIA2" "$(witness6 "$IP6B" "$S2" "$IP6A")"
# The path is a choice: other ports of the same pair reach the other spine (IPv6 ECMP at
# work): ports from 49152 up until both spines are seen (at most 64: the hash seed is the
# boot's, so which ports go where changes; 64 ports all on one spine: 2^-63).
seen=''
for p in $(seq 49152 49215); do
	seen=$(printf '%s\n%s\n' "$seen" "$(node6 "$(traceroute -6 -n -q 1 -w 1 -m 2 -U -p 4791 --sport="$p" \
		-s "$IP6A" "$IP6B" 2>/dev/null | awk 'NR == 3 { print $2 }')")" | sort -u | grep . | paste -sd' ')
	[ "$seen" != "spine1 spine2" ] || break
done
assert_eq "IPv6: va -> vb, ports from 49152: both spines" "spine1 spine2" "$seen"
pretty "done in ${SECONDS}s"
