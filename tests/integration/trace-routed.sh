#!/bin/bash
# fabricctl trace on the routed netns lab (6 hosts, 3 leaves, 2 spines,
# lldpd everywhere): the path of a flow by its own 5-tuple, hops named
# after the nodes of a plan that `discover --save-plan` wrote from LLDP
# management addresses; several source ports reach both spines, each port
# always the same one (repeats, both directions, UDP to 4791 and TCP),
# every traced path is the one Debian's traceroute reports for the same
# tuple (a second witness); the routers' ICMP rate limit is met and passed
# by retries; a spine that drops its time-exceeded answers (nftables) is
# a "*" hop and the leaf pair's map falls back, saying why.
#
# The leaves hash multipath on the headers' 5-tuple (lab_up --hash headers:
# fib_multipath_hash_policy 3, fields 0x37), as a switch ASIC does.  The
# lab's default policy 1 uses the hash a
# socket put on the packet when there is one (skb->l4_hash: a TCP or
# connected UDP socket's random sk_txhash, kept across the veth into the
# leaf's namespace), so the same tuple from two sockets can take two spines
# there: docs/paths.md, "Linux routers and the lab".
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq lldpd lldpcli traceroute nft
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"
tmpdir_with_cleanup trace-routed

P=tr$$
cleanup_hook() { lab_down --name "$P" || true; }

run lab_up --name "$P" --hosts 6 --leaves 3 --spines 2 --routed --hash headers
for n in leaf1 leaf2 leaf3; do
	assert_eq "$n hashes the headers" "3 55" \
		"$(lab_exec "$n" sysctl -n net.ipv4.fib_multipath_hash_policy net.ipv4.fib_multipath_hash_fields | xargs)"
done
# Every switch advertises all its interface addresses over LLDP.
for n in leaf1 leaf2 leaf3 spine1 spine2; do
	lab_lldpcli "$n" configure system ip management pattern '*,!127.0.0.1' >/dev/null
done
run lab_lldp_wait --timeout 15
lab_hostsfile --switches >"$TMP/hosts"
fab discover --lldp --hosts "$TMP/hosts" --launcher netns --save-plan "$TMP/plan.yaml"
assert_eq "discover exit" 0 "$rc"
cat "$TMP/plan.yaml" >&2
grep -q "name: $P-spine1, type: switch, addresses: \[.*10.77.255.0.*10.77.255.4.*10.77.255.8" "$TMP/plan.yaml" ||
	fail "plan: spine1 without its port addresses"
grep -q "name: $P-leaf2, type: switch, addresses: \[.*10.77.2.254.*10.77.255.5.*10.77.255.7" "$TMP/plan.yaml" ||
	fail "plan: leaf2 without its addresses"

# JSON summaries: per flow "SPORT HOP-NODES" ("*" for a silent hop), and the map.
paths() { jq -r '.flows[] | "\(.sport) \([.hops[] | .node // "*"] | join(" "))"' "$1"; }
members() { jq -r '.map.ab.ports[] | "\(.sport) \(.member)"' "$1"; }
trace_json() { # NODE OUT ARGS...
	local node=$1 out=$2
	shift 2
	fab_ns "$P-$node" -j trace --plan "$TMP/plan.yaml" "$@"
	cp "$TMP/out" "$out"
}

# --- 1. h1 (leaf1) -> h2 (leaf2), 8 ports, the routers' default ICMP rate limit
t0=$(date +%s%N)
trace_json h1 "$TMP/a.json" --ports 8 10.77.2.2
t1=$(date +%s%N)
assert_eq "trace exit" 0 "$rc"
echo "8 ports traced in $(((t1 - t0) / 1000000)) ms" >&2
assert_eq "schema" fabricctl.trace/1 "$(jq -r .schema "$TMP/a.json")"
assert_eq "source chosen by the route" 10.77.1.1 "$(jq -r .src "$TMP/a.json")"
assert_eq "flows reached" "true true true true true true true true" "$(jq -r '[.flows[].reached] | join(" ")' "$TMP/a.json")"
assert_eq "hop 1, 3, 4 of every flow" "$P-leaf1 $P-leaf2 $P-h2" \
	"$(jq -r '[.flows[] | "\(.hops[0].node) \(.hops[2].node) \(.hops[3].node)"] | unique | join(",")' "$TMP/a.json")"
assert_eq "hop 2: the spines, both" "$P-spine1 $P-spine2" "$(jq -r '[.flows[].hops[1].node] | unique | join(" ")' "$TMP/a.json")"
# leaf1 answers a prober 6 times at once, then once a second: 8 TTL-1 probes need retries
tries=$(jq '[.flows[].hops[0].tries] | max' "$TMP/a.json")
[ "$tries" -ge 2 ] || fail "hop 1 answered at once for 8 ports: the rate limit was not met (tries $tries)"
echo "hop 1: up to $tries tries (leaf1's rate limit met and passed)" >&2
assert_eq "map" "traced $P-leaf1 $P-leaf2 2" \
	"$(jq -r '.map | "\(.state) \(.src_leaf) \(.dst_leaf) \(.ab.members | length)"' "$TMP/a.json")"
members "$TMP/a.json" >"$TMP/a.members"

# The witnesses do not retry: no rate limit from here on.
for n in h1 h2 h3 leaf1 leaf2 leaf3 spine1 spine2; do
	lab_exec "$n" sysctl -q -w net.ipv4.icmp_ratelimit=0
done

# --- 2. the same ports again, twice each: the same members, no instability
trace_json h1 "$TMP/b.json" --ports 8 --repeat 2 10.77.2.2
assert_eq "repeat exit" 0 "$rc"
assert_eq "repeat map" "traced 2" "$(jq -r '.map | "\(.state) \(.ab.members | length)"' "$TMP/b.json")"
assert_eq "each port traced twice" "2" "$(jq -r '[.map.ab.ports[].traces] | unique | join(" ")' "$TMP/b.json")"
assert_eq "members as in the first run" "$(cat "$TMP/a.members")" "$(members "$TMP/b.json")"

# --- 3. traceroute with the same tuple reports the same hops, address for address
witness() { # NODE PROTO-FLAG DPORT SPORT DEST
	lab_exec "$1" traceroute -n -q 1 -w 1 "$2" -p "$3" --sport="$4" "$5" 2>/dev/null |
		awk 'NR > 1 { printf "%s%s", sep, $2; sep = " " } END { print "" }'
}
ours() { jq -r --argjson s "$2" '.flows[] | select(.sport == $s and .repeat == 1) | [.hops[] | .addr // "*"] | join(" ")' "$1"; }
for s in $(seq 49152 49159); do
	assert_eq "udp sport $s: traceroute -U" "$(witness h1 -U 4791 "$s" 10.77.2.2)" "$(ours "$TMP/b.json" "$s")"
done
trace_json h1 "$TMP/t.json" -T -p 5201 --sport 40000 --ports 6 10.77.2.2
assert_eq "tcp trace exit" 0 "$rc"
assert_eq "tcp: the destination resets" tcp-rst "$(jq -r '[.flows[].hops[-1].answer] | unique | join(" ")' "$TMP/t.json")"
assert_eq "tcp: both spines" "$P-spine1 $P-spine2" "$(jq -r '[.flows[].hops[1].node] | unique | join(" ")' "$TMP/t.json")"
for s in $(seq 40000 40005); do
	assert_eq "tcp sport $s: traceroute -T" "$(witness h1 -T 5201 "$s" 10.77.2.2)" "$(ours "$TMP/t.json" "$s")"
done

# --- 4. the way back (hashed by leaf2) and another leaf pair
trace_json h2 "$TMP/r.json" --ports 8 10.77.1.1
assert_eq "h2 -> h1 map" "traced $P-leaf2 $P-leaf1 2" \
	"$(jq -r '.map | "\(.state) \(.src_leaf) \(.dst_leaf) \(.ab.members | length)"' "$TMP/r.json")"
for s in 49152 49155; do
	assert_eq "h2 -> h1 sport $s: traceroute -U" "$(witness h2 -U 4791 "$s" 10.77.1.1)" "$(ours "$TMP/r.json" "$s")"
done
trace_json h3 "$TMP/c.json" --ports 8 10.77.1.4
assert_eq "h3 -> h4 (leaf3 -> leaf1) map" "traced $P-leaf3 $P-leaf1 2" \
	"$(jq -r '.map | "\(.state) \(.src_leaf) \(.dst_leaf) \(.ab.members | length)"' "$TMP/c.json")"

# --- 5. text: one flow as tracepath prints it
fab_ns "$P-h1" trace --plan "$TMP/plan.yaml" --sport 49153 10.77.2.2
assert_eq "text exit" 0 "$rc"
grep -Eq "^  2  10\.77\.255\.[02] +$P-spine[12] " "$TMP/out" || fail "text: no spine at hop 2"
grep -Eq "^  4  10\.77\.2\.2 +$P-h2 .* port unreachable$" "$TMP/out" || fail "text: no destination line"
grep -Eq "^map $P-leaf1 -> $P-leaf2: traced, 1 member over 1 port$" "$TMP/out" || fail "text: no map line"

# --- 6. spine1 drops its time-exceeded answers: "*", and the map falls back
lab_exec spine1 nft -f - <<'NFT'
table ip fabtest {
	chain out {
		type filter hook output priority 0; policy accept;
		icmp type time-exceeded drop
	}
}
NFT
trace_json h1 "$TMP/f.json" --ports 8 --tries 2 --wait 300 10.77.2.2
assert_eq "fallback exit" 1 "$rc"
paths "$TMP/f.json" >&2
s1_ports=$(jq -r --arg n "$P-spine1" '.map.ab.members[] | select(.nodes == [$n]) | .ports | join(" ")' "$TMP/a.json")
[ -n "$s1_ports" ] || fail "no port took spine1 in the first run"
for s in $s1_ports; do
	assert_eq "sport $s (took spine1): hop 2 silent" "*" \
		"$(jq -r --argjson s "$s" '.flows[] | select(.sport == $s) | .hops[1].node // "*"' "$TMP/f.json")"
done
assert_eq "fallback map" "fallback silent" "$(jq -r '.map | "\(.state) \(.reason)"' "$TMP/f.json")"
# 3 tries: the first round does not count (spine2's ports got their answers in it)
jq -r .map.detail "$TMP/f.json" | grep -Eq "^port [0-9]+: hop 2 \(between $P-leaf1 and $P-leaf2\) did not answer after 3 tries$" ||
	fail "fallback detail: $(jq -r .map.detail "$TMP/f.json")"
assert_eq "ports through spine2 still named" "$P-spine2" \
	"$(jq -r '[.flows[].hops[1].node | select(. != null)] | unique | join(" ")' "$TMP/f.json")"
fab_ns "$P-h1" trace --plan "$TMP/plan.yaml" --ports 8 --tries 2 --wait 300 10.77.2.2
grep -q "^map $P-leaf1 -> $P-leaf2: fallback (silent): port " "$TMP/out" || fail "text: no fallback line"
run lab_exec spine1 nft delete table ip fabtest

run lab_down --name "$P"
assert_eq "namespaces left" "" "$(ip netns list | grep -E "^$P-" || true)"
echo "trace-routed: ok"
