#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# fabricctl discover --lldp against the namespace fabric (tests/lab/netns):
# 4 hosts, 2 leaves, 1 spine, one lldpd per namespace with its own socket.
#
#  1. clean fabric, every node's view through the fleet layer (launcher
#     netns): the leaf/spine graph equals the lab's cabling, no problems;
#     --save-plan writes a YAML plan; --expect that plan: nothing found.
#  2. swapped cables (h1 <-> h2 across leaves): miswired, ports named,
#     with where each should go.
#  3. a cut cable (h4): down; a removed cable (h3): missing.
#  4. MTU mismatch host vs switch port (both ends' own MTUs, --hosts).
#  5. rails from the plan --save-plan wrote (nics: from the ports LLDP saw,
#     rail: of the leaves; NIC i on a leaf of rail i), then MTU
#     mismatch against a neighbor that advertises the IEEE 802.3 Max
#     Frame Size TLV (tests/tools/lldp-inject.c, since lldpd does not send
#     it): MFS 1518 on a 9000-byte port is found; MFS 9018 is clean.
#  6. bad YAML plan: FILE:LINE:COL message, exit 2; a node whose lldpd
#     does not answer: exit 3 naming the node.
#  7. `discover --lldp -j` on one node (its own lldpd socket).
#  8. --no-optics (run after 1): the workers, started through a launcher
#     that logs what they are sent, are asked for their modules without
#     it and not with it; the document has no "cables", the text no
#     "cable ends:"; without --hosts it is a usage error.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq lldpd lldpcli cc
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=dl$$
tmpdir_with_cleanup fabricctl-lldp
INJ_PID=
cleanup_hook() {
	local rc=$1
	if [ -n "$INJ_PID" ]; then kill "$INJ_PID" 2>/dev/null || true; wait "$INJ_PID" 2>/dev/null || true; fi
	ip netns del "$P-inj" 2>/dev/null || true
	if [ "$rc" != 0 ] && [ -d "$LAB_STATE_ROOT/$P/lldp" ]; then
		tail -n 5 "$LAB_STATE_ROOT/$P"/lldp/*.log >&2 || true
	fi
	lab_down --name "$P"
}

run cc -std=c17 -O2 -Wall -Wextra -o "$TMP/lldp-inject" "$TOP/tests/tools/lldp-inject.c"
run lab_up --name "$P" --hosts 4 --leaves 2 --spines 1 --wait

# Hosts file: the lab's hosts plus the switches (they run lldpd too, so
# switch-switch links are seen).  Each node's lldpd socket by its
# namespace name, for --lldp-socket '.../{host}.sock'.
mkdir "$TMP/sock"
lab_hostsfile | awk '{ print $1, $2 }' >"$TMP/hosts"
i=200
while read -r n ns kind; do
	ln -s "$LAB_DIR/lldp/$n.sock" "$TMP/sock/$ns.sock"
	if [ "$kind" != host ]; then
		echo "$ns 10.77.0.$i" >>"$TMP/hosts"
		i=$((i + 1))
	fi
done <"$LAB_DIR/nodes"
cat "$TMP/hosts" >&2

# discover [ARGS]: every node through the fleet; JSON in $TMP/out.json, rc in $RC.
discover() {
	RC=0
	pretty "fabricctl -p discover --lldp --hosts $TMP/hosts --launcher netns --lldp-socket $TMP/sock/{host}.sock -j $*"
	"$FABRICCTL" -p discover --lldp --hosts "$TMP/hosts" --launcher netns \
		--lldp-socket "$TMP/sock/{host}.sock" -j "$@" >"$TMP/out.json" || RC=$?
}
# Found links as sorted "NODE:PORT NODE:PORT" lines (each pair sorted too).
found_links() {
	jq -r '.links[] | [(.a.node + ":" + .a.port_name), (.b.node + ":" + .b.port_name)] | sort | join(" ")' \
		"$TMP/out.json" | sort
}
lab_links_now() {
	awk -v p="$P" '$6 == "up" { a = p "-" $1 ":" $2; b = p "-" $3 ":" $4; print (a < b ? a " " b : b " " a) }' \
		"$LAB_DIR/links" | sort
}
# Problems as "KIND A B EXPECTED" lines (ends as NODE:PORT, "-" when none).
problems() {
	jq -r '.problems[] | [.kind,
		((.ports[0] // null) | if . then .node + ":" + .port_name else "-" end),
		((.ports[1] // null) | if . then .node + ":" + .port_name else "-" end),
		(.expected | if . then .node + ":" + .port_name else "-" end)] | join(" ")' \
		"$TMP/out.json" | sort
}

# --- 1. clean fabric ----------------------------------------------------------
discover --save-plan "$TMP/plan.yaml"
assert_eq "clean: exit status" 0 "$RC"
assert_eq "clean: schema" "fabricctl.discover/1" "$(jq -r .schema "$TMP/out.json")"
assert_eq "clean: nodes" 7 "$(jq '.nodes | length' "$TMP/out.json")"
assert_eq "clean: switches" "$P-leaf1 $P-leaf2 $P-spine1" \
	"$(jq -r '[.nodes[] | select(.type == "switch") | .name] | sort | join(" ")' "$TMP/out.json")"
assert_eq "clean: hosts" "$P-h1 $P-h2 $P-h3 $P-h4" \
	"$(jq -r '[.nodes[] | select(.type == "host") | .name] | sort | join(" ")' "$TMP/out.json")"
assert_eq "clean: links equal the lab's cabling" "$(lab_links_now)" "$(found_links)"
assert_eq "clean: every link ok" "ok" "$(jq -r '[.links[].status] | unique | join(",")' "$TMP/out.json")"
assert_eq "clean: problems" 0 "$(jq '.problems | length' "$TMP/out.json")"
assert_eq "saved plan: links" 6 "$(grep -c '^- a: ' "$TMP/plan.yaml")"
grep -q "^  b: $P-h1:eth0\$" "$TMP/plan.yaml" || fail "saved plan lacks h1's cable"
# The same graph through the DOT renderer: 7 nodes (3 boxes), 6 edges.
run "$FABRICCTL" discover --lldp --hosts "$TMP/hosts" --launcher netns \
	--lldp-socket "$TMP/sock/{host}.sock" --format dot >"$TMP/fabric.dot"
assert_eq "dot: edges" 6 "$(grep -c ' -- ' "$TMP/fabric.dot")"
assert_eq "dot: switches" 3 "$(grep -c 'shape=box' "$TMP/fabric.dot")"
assert_eq "dot: hosts" 4 "$(grep -c 'shape=ellipse' "$TMP/fabric.dot")"
discover --expect "$TMP/plan.yaml"
assert_eq "clean vs own plan: exit status" 0 "$RC"
assert_eq "clean vs own plan: problems" 0 "$(jq '.problems | length' "$TMP/out.json")"

# --- 8. --no-optics -----------------------------------------------------------
# A launcher that logs each worker's requests before the netns launcher's
# command gets them: the "optics" op is in the log without --no-optics
# (none of these veths has a module, so there are no cables either way:
# the log is what tells the switch works).
cat >"$TMP/tap" <<EOF
#!/bin/sh
h=\$1
shift
tee -a "$TMP/ops-\$h.log" | ip netns exec "\$h" env FABRICCTL_RUNDIR=/run/fabricctl-netns-\$h "\$@"
EOF
chmod +x "$TMP/tap"
ops_count() { cat "$TMP"/ops-*.log | grep -c "\"op\":\"$1\"" || true; }
run "$FABRICCTL" discover --lldp --hosts "$TMP/hosts" --launcher "$TMP/tap {host}" \
	--lldp-socket "$TMP/sock/{host}.sock" -j >"$TMP/opt.json"
assert_eq "optics: every worker asked for its modules" 7 "$(ops_count optics)"
rm -f "$TMP"/ops-*.log
run "$FABRICCTL" discover --lldp --hosts "$TMP/hosts" --launcher "$TMP/tap {host}" \
	--lldp-socket "$TMP/sock/{host}.sock" -j --no-optics >"$TMP/noopt.json"
assert_eq "--no-optics: every worker asked for its LLDP view" 7 "$(ops_count lldp)"
assert_eq "--no-optics: no worker asked for its modules" 0 "$(ops_count optics)"
assert_eq "--no-optics: no cables" false "$(jq 'has("cables")' "$TMP/noopt.json")"
assert_eq "--no-optics: the same graph" "$(jq -c .links "$TMP/opt.json")" \
	"$(jq -c .links "$TMP/noopt.json")"
run "$FABRICCTL" discover --lldp --hosts "$TMP/hosts" --launcher netns \
	--lldp-socket "$TMP/sock/{host}.sock" --no-optics >"$TMP/noopt.txt"
! grep -q '^cable ends:' "$TMP/noopt.txt" || fail "--no-optics: the text has cable ends"
RC=0
"$FABRICCTL" discover --lldp --no-optics >/dev/null 2>"$TMP/noopt.err" || RC=$?
assert_eq "--no-optics without --hosts: usage error" 2 "$RC"
grep -q -- "--no-optics is for --lldp --hosts" "$TMP/noopt.err" || fail "--no-optics: message"

# --- 2. swapped cables: h1 and h2 change leaf ports ---------------------------
run lab_swap h1 h2
run lab_lldp_wait
discover --expect "$TMP/plan.yaml"
assert_eq "swap: exit status" 1 "$RC"
assert_eq "swap: problems" \
	"miswired $P-h1:eth0 $P-leaf2:swp1 $P-leaf1:swp1
miswired $P-leaf1:swp1 $P-h2:eth0 $P-h1:eth0" "$(problems)"
assert_eq "swap: sources say a plan was checked" '["lldp","plan"]' "$(jq -c .sources "$TMP/out.json")"
# The link list carries the cable's problem, never "ok" beside "miswired".
assert_eq "swap: link statuses" "miswired $P-h1:eth0 $P-leaf2:swp1
miswired $P-h2:eth0 $P-leaf1:swp1
ok x4" "$(jq -r '.links[] | select(.status != "ok") |
	[.status, ([(.a.node + ":" + .a.port_name), (.b.node + ":" + .b.port_name)] | sort | join(" "))] | join(" ")' \
	"$TMP/out.json" | sort; echo "ok x$(jq '[.links[] | select(.status == "ok")] | length' "$TMP/out.json")")"
RC=0
"$FABRICCTL" -p discover --lldp --hosts "$TMP/hosts" --launcher netns --lldp-socket "$TMP/sock/{host}.sock" \
	--expect "$TMP/plan.yaml" >"$TMP/out.txt" || RC=$?
cat "$TMP/out.txt" >&2
assert_eq "swap text: exit status" 1 "$RC"
assert_eq "swap text: rows marked and miswired" 2 \
	"$(grep -c "^! .*$P-h[12].* miswired\$" "$TMP/out.txt")"
assert_eq "swap text: rows ok" 4 "$(grep -c ' ok$' "$TMP/out.txt")"
run lab_swap h1 h2
run lab_lldp_wait

# --- 3. a cut cable (down) and a removed cable (missing) ----------------------
run lab_cut h4
run lab_lldp_wait
discover --expect "$TMP/plan.yaml"
assert_eq "cut: exit status" 1 "$RC"
assert_eq "cut: problems" "down $P-leaf2:swp2 - $P-h4:eth0" "$(problems)"
run lab_mend h4
run lab_lldp_wait
# Remove h3's cable altogether: no port on either side any more.
run ip -n "$P-h3" link del eth0
for _ in $(seq 1 100); do	# until leaf1's lldpd forgets the port
	discover --expect "$TMP/plan.yaml"
	[ "$(jq '.links | length' "$TMP/out.json")" = 5 ] && break
	sleep 0.1
done
assert_eq "removed: exit status" 1 "$RC"
assert_eq "removed: problems" "missing $P-leaf1:swp2 - $P-h3:eth0" "$(problems)"

# --- 4. MTU mismatch between a host and its switch port -----------------------
run lab_set_mtu h2 eth0 9000
discover
assert_eq "host mtu: exit status" 1 "$RC"
assert_eq "host mtu: problems" "mtu-mismatch $P-h2:eth0 $P-leaf2:swp1 -" "$(problems)"
assert_eq "host mtu: detail" "mtu 9000 on \"$P-h2\" eth0, 1500 on \"$P-leaf2\" swp1" \
	"$(jq -r '.problems[0].detail' "$TMP/out.json")"
# --save-plan with problems warns; an LLDP graph is saved as YAML whatever the name
RC=0
"$FABRICCTL" discover --lldp --hosts "$TMP/hosts" --launcher netns \
	--lldp-socket "$TMP/sock/{host}.sock" --save-plan "$TMP/today.topo" >/dev/null 2>"$TMP/save.err" || RC=$?
assert_eq "save-plan with a problem: exit status" 1 "$RC"
grep -qF "today.topo: the fabric saved as a plan has 1 problem now (listed below): check them before using it as --expect" \
	"$TMP/save.err" || fail "save-plan: no warning about the problem: $(cat "$TMP/save.err")"
grep -qF "today.topo: an LLDP graph is saved as a YAML plan (fabricctl-plan(5)), not in ibnetdiscover format" \
	"$TMP/save.err" || fail "save-plan: format not said: $(cat "$TMP/save.err")"
grep -q '^- a: ' "$TMP/today.topo" || fail "save-plan x.topo: not a YAML plan"
# ... and the link itself is not shown "ok" in the link list
assert_eq "host mtu: link status" "mtu-mismatch" \
	"$(jq -r --arg h "$P-h2" '.links[] | select(.a.node == $h or .b.node == $h) | .status' "$TMP/out.json")"
run lab_set_mtu h2 eth0 1500

# --- 4b. rails from a YAML plan ------------------------------------------------
# Second NICs: h1:eth1 and h3:eth1 on leaf2 (rail 1; leaf1 is rail 0); h3's eth0 (removed
# in 3) cabled again to leaf1.
run lab_add_link h3 eth0 leaf1 swp2
run lab_add_link h1 eth1 leaf2 swp47
run lab_add_link h3 eth1 leaf2 swp46
# wait_links N: until the merged graph has N links (lldpd needs a tx interval)
wait_links() {
	for _ in $(seq 1 100); do
		discover "$@"
		[ "$(jq '.links | length' "$TMP/out.json")" = "$N" ] && return 0
		sleep 0.1
	done
	fail "never saw $N links"
}
N=8 wait_links --save-plan "$TMP/rails.yaml"
assert_eq "rails: saved plan without problems" 0 "$RC"
# One line a host in the hosts file: h1's and h3's nics: are the two ports LLDP saw, in
# name order, each on its own leaf; a leaf's rail: is the one its railed NICs share (h2's
# and h4's single ports do not count).
assert_eq "rails: plan lines with rail/nics" "- {name: $P-h1, type: host, nics: [eth0, eth1]
- {name: $P-h3, type: host, nics: [eth0, eth1]
- {name: $P-leaf1, type: switch, rail: 0
- {name: $P-leaf2, type: switch, rail: 1" \
	"$(grep 'rail: \|nics: ' "$TMP/rails.yaml" | sed 's/[,}] *addresses.*//; s/}$//' | sort)"
discover --expect "$TMP/rails.yaml"
assert_eq "rails aligned: exit status" 0 "$RC"
# h3's second NIC moves to leaf1 (rail 0): miswired, and off its rail.
run ip -n "$P-h3" link del eth1
run lab_add_link h3 eth1 leaf1 swp47
for _ in $(seq 1 100); do
	discover --expect "$TMP/rails.yaml"
	jq -e --arg n "$P-h3" '.links[] | select(.b.node == $n and .b.port_name == "eth1" and .a.port_name == "swp47")' \
		"$TMP/out.json" >/dev/null && break
	sleep 0.1
done
assert_eq "rails crossed: exit status" 1 "$RC"
assert_eq "rails crossed: problems" "miswired $P-h3:eth1 $P-leaf1:swp47 $P-leaf2:swp46
rail $P-h3:eth1 $P-leaf1:swp47 -" "$(problems)"
assert_eq "rails crossed: rail detail" "nic 1 (rail 1) reaches $P-leaf1 of rail 0; rail 1 leaves: $P-leaf2" \
	"$(jq -r '.problems[] | select(.kind == "rail") | .detail' "$TMP/out.json")"

# --- 5. MTU mismatch against an advertised Max Frame Size ---------------------
# A switch port that only speaks through lldp-inject: veth h1:eth2 (MTU 9000)
# <-> $P-inj:swp7.  No lldpd there, so only the crafted LLDPDU describes it.
run ip netns add "$P-inj"
run ip -n "$P-h1" link add eth2 mtu 9000 type veth peer name swp7 netns "$P-inj"
run ip -n "$P-h1" link set eth2 up
run ip -n "$P-inj" link set swp7 up
# inject MFS: start lldp-inject, wait for its "ready", then for h1's lldpd
# to report that MFS through fabricctl itself.
inject() {
	if [ -n "$INJ_PID" ]; then kill "$INJ_PID"; wait "$INJ_PID" || true; INJ_PID=; fi
	pretty "ip netns exec $P-inj lldp-inject -i swp7 -c inj-$$ -p swp7 -n $P-injsw -m $1 -b &"
	rm -f "$TMP/inject.out"	# the last run's "ready" must not be read as this one's
	ip netns exec "$P-inj" "$TMP/lldp-inject" -i swp7 -c "inj-$$" -p swp7 -n "$P-injsw" -m "$1" -b \
		>"$TMP/inject.out" &
	INJ_PID=$!
	for _ in $(seq 1 100); do
		grep -qs '^ready$' "$TMP/inject.out" && break
		sleep 0.05
	done
	grep -q '^ready$' "$TMP/inject.out" || fail "lldp-inject did not start"
	for _ in $(seq 1 100); do
		printf '{"v":1,"id":1,"op":"hello","version":1}\n{"v":1,"id":2,"op":"lldp","socket":"%s"}\n' \
			"$LAB_DIR/lldp/h1.sock" |
			ip netns exec "$P-h1" "$FABRICCTL" worker 2>/dev/null >"$TMP/view.json" || true
		[ "$(jq -r 'select(.id == 2) | .result.ports[] | select(.name == "eth2") | .neighbors[0].mfs' \
			"$TMP/view.json" 2>/dev/null)" = "$1" ] && return 0
		sleep 0.1
	done
	cat "$TMP/view.json" >&2
	fail "h1's lldpd never reported MFS $1 on eth2"
}
inject 1518
discover
assert_eq "mfs 1518: exit status" 1 "$RC"
assert_eq "mfs 1518: problems" "mtu-mismatch $P-h1:eth2 $P-injsw:swp7 -" "$(problems)"
assert_eq "mfs 1518: detail" \
	"mtu 9000 on \"$P-h1\" eth2, peer \"$P-injsw\" swp7 advertises max frame size 1518 (mtu 1500)" \
	"$(jq -r '.problems[0].detail' "$TMP/out.json")"
assert_eq "mfs 1518: injected switch" "switch" \
	"$(jq -r --arg n "$P-injsw" '.nodes[] | select(.name == $n) | .type' "$TMP/out.json")"
inject 9018
discover
assert_eq "mfs 9018: exit status" 0 "$RC"
assert_eq "mfs 9018: problems" 0 "$(jq '.problems | length' "$TMP/out.json")"
assert_eq "mfs 9018: links" 9 "$(jq '.links | length' "$TMP/out.json")"

# --- 6. bad plan: input error with position, exit 2, nothing queried ----------
printf 'version: 1\nlinks:\n  - { a: h1:eth0, b: leaf1:swp1, mtu: 12 }\n' >"$TMP/bad.yaml"
RC=0
"$FABRICCTL" discover --lldp --hosts "$TMP/hosts" --launcher netns --expect "$TMP/bad.yaml" \
	>"$TMP/bad.out" 2>"$TMP/bad.err" || RC=$?
assert_eq "bad plan: exit status" 2 "$RC"
assert_eq "bad plan: message" "fabricctl discover: $TMP/bad.yaml:3:39: mtu: 12 out of range 68..65535" \
	"$(cat "$TMP/bad.err")"
assert_eq "bad plan: no output" "" "$(cat "$TMP/bad.out")"

# --- 6b. a node whose lldpd does not answer fails the discovery, named ------
mkdir "$TMP/sock2"
cp -P "$TMP"/sock/*.sock "$TMP/sock2/"
rm "$TMP/sock2/$P-h2.sock"
RC=0
"$FABRICCTL" discover --lldp --hosts "$TMP/hosts" --launcher netns --lldp-socket "$TMP/sock2/{host}.sock" \
	>"$TMP/fail.out" 2>"$TMP/fail.err" || RC=$?
assert_eq "dead lldpd: exit status" 3 "$RC"
assert_eq "dead lldpd: summary" "fabricctl discover: lldp: 1 of 7 nodes failed: $P-h2" "$(tail -n 1 "$TMP/fail.err")"
grep -q "$P-h2: lldp: $TMP/sock2/$P-h2.sock: cannot connect to lldpd" "$TMP/fail.err" ||
	fail "dead lldpd: per-node reason missing: $(cat "$TMP/fail.err")"

# --- 7. one node, its own lldpd: `discover --lldp -j` -------------------------
RC=0
run ip netns exec "$P-leaf2" "$FABRICCTL" discover --lldp --lldp-socket "$LAB_DIR/lldp/leaf2.sock" -j \
	>"$TMP/one.json" || RC=$?
assert_eq "one node: exit status" 0 "$RC"
assert_eq "one node: links" "$P-h1:eth1 $P-leaf2:swp47
$P-h2:eth0 $P-leaf2:swp1
$P-h4:eth0 $P-leaf2:swp2
$P-leaf2:swp49 $P-spine1:swp2" \
	"$(jq -r '.links[] | [(.a.node + ":" + .a.port_name), (.b.node + ":" + .b.port_name)] | sort | join(" ")' "$TMP/one.json" | sort)"
RC=0
"$FABRICCTL" discover --lldp --lldp-socket "$TMP/no-such.sock" 2>"$TMP/nosock.err" || RC=$?
assert_eq "no lldpd: exit status" 3 "$RC"
grep -q "lldp: $TMP/no-such.sock: cannot connect to lldpd" "$TMP/nosock.err" ||
	fail "no lldpd: message names the socket: $(cat "$TMP/nosock.err")"
echo "discover-lldp: all checks passed"
