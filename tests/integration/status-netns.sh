#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# fabricctl status against real veth links in a lab namespace: h1 has eth0
# at MTU 9000 (its leaf cable) and eth1 at 1500 (a second cable to the same
# leaf).  Values are compared with what the lab set and with what the
# kernel says through ip(8) and sysfs in the same namespace.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=st$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P"; }

run lab_up --name "$P" --hosts 2 --leaves 1 --spines 0 --mtu 9000 --no-lldp
run lab_add_link h1 eth1 leaf1 swp20 1500
H1=$(lab_ns h1)
L1=$(lab_ns leaf1)

# link NAME: its object from the last JSON output.
link() { jq -c --arg n "$1" '[.links[] | select(.name == $n)] | if length == 1 then .[0] else error("\(length) links named \($n)") end' "$TMP/out"; }
# kernel's view: ip -j link show DEV in NS, field F.
kern() { ip -n "$1" -j link show dev "$2" | jq -r ".[0].$3"; }

# --- JSON, host namespace ---------------------------------------------------
fab_ns "$H1" status -j
assert_eq "status -j rc" 0 "$rc"
assert_eq "status -j: one JSON object" object "$(jq -rs 'map(type) | join(",")' "$TMP/out" 2>&1 | tail -n 1)"
assert_eq "schema" fabricctl.status/1 "$(jq -r .schema "$TMP/out")"
assert_eq "hostname" "$(hostname)" "$(jq -r .hostname "$TMP/out")"
assert_eq "links is an array" array "$(jq -r '.links | type' "$TMP/out")"
assert_eq "link names (lo aside)" "eth0 eth1" "$(jq -r '[.links[].name | select(. != "lo")] | sort | join(" ")' "$TMP/out")"
assert_eq "every link has every key" true "$(jq '[.links[] | has("name", "ifindex", "kind", "operstate", "admin_up", "mtu", "speed_mbps", "driver", "master", "address") ] | all' "$TMP/out")"
assert_eq "rdma" '[]' "$(jq -c .rdma "$TMP/out")"

e0=$(link eth0)
assert_eq "eth0 mtu" 9000 "$(jq .mtu <<<"$e0")"
assert_eq "eth0 kind" veth "$(jq -r .kind <<<"$e0")"
assert_eq "eth0 driver" veth "$(jq -r .driver <<<"$e0")"
assert_eq "eth0 operstate" up "$(jq -r '.operstate | ascii_downcase' <<<"$e0")"
assert_eq "eth0 admin_up" true "$(jq .admin_up <<<"$e0")"
assert_eq "eth0 ifindex" "$(kern "$H1" eth0 ifindex)" "$(jq .ifindex <<<"$e0")"
assert_eq "eth0 address" "$(kern "$H1" eth0 address)" "$(jq -r .address <<<"$e0")"
assert_eq "eth0 master" null "$(jq .master <<<"$e0")"
assert_eq "eth0 speed_mbps" "$(ip netns exec "$H1" cat /sys/class/net/eth0/speed)" "$(jq .speed_mbps <<<"$e0")"
assert_eq "eth0 numbers are numbers" '["number","number","number"]' "$(jq -c '[.mtu, .ifindex, .speed_mbps] | map(type)' <<<"$e0")"

e1=$(link eth1)
assert_eq "eth1 mtu" 1500 "$(jq .mtu <<<"$e1")"
assert_eq "eth1 kind" veth "$(jq -r .kind <<<"$e1")"
assert_eq "eth1 driver" veth "$(jq -r .driver <<<"$e1")"
assert_eq "eth1 operstate" up "$(jq -r '.operstate | ascii_downcase' <<<"$e1")"
assert_eq "eth1 ifindex" "$(kern "$H1" eth1 ifindex)" "$(jq .ifindex <<<"$e1")"

# A link changed behind fabricctl's back is read back as it is now.
run lab_set_mtu h1 eth1 4000
run ip -n "$H1" link set dev eth1 down
fab_ns "$H1" status -j
assert_eq "status -j rc (2nd)" 0 "$rc"
e1=$(link eth1)
assert_eq "eth1 mtu after set_mtu" 4000 "$(jq .mtu <<<"$e1")"
assert_eq "eth1 admin_up after down" false "$(jq .admin_up <<<"$e1")"
assert_eq "eth1 operstate after down" down "$(jq -r '.operstate | ascii_downcase' <<<"$e1")"

# One device by name.
fab_ns "$H1" status -j eth0
assert_eq "status -j eth0 rc" 0 "$rc"
assert_eq "status -j eth0 links" eth0 "$(jq -r '[.links[].name] | join(" ")' "$TMP/out")"

# --- JSON, switch namespace: bridge and its ports ---------------------------
fab_ns "$L1" status -j
assert_eq "leaf status -j rc" 0 "$rc"
assert_eq "swp20 master" br0 "$(link swp20 | jq -r .master)"
assert_eq "swp20 mtu" 1500 "$(link swp20 | jq .mtu)"
assert_eq "swp1 mtu" 9000 "$(link swp1 | jq .mtu)"
assert_eq "br0 kind" bridge "$(link br0 | jq -r .kind)"

# --- text ---------------------------------------------------------------------
fab_ns "$H1" status
assert_eq "status rc" 0 "$rc"
grep -q 'no RDMA devices' "$TMP/out" || fail "status text does not say 'no RDMA devices': $(cat "$TMP/out")"
grep -qw eth0 "$TMP/out" || fail "status text does not list eth0"
assert_eq "status text: eth0's MTU column" 9000 "$(awk 'NR > 1 && $1 == "eth0" { print $4; exit }' "$TMP/out")"
printf '  ok: text mode\n' >&2

# --- errors -------------------------------------------------------------------
fab_ns "$H1" status nosuchdev
assert_eq "status nosuchdev rc" 3 "$rc"
grep -q nosuchdev "$TMP/err" || fail "stderr of 'status nosuchdev' does not name nosuchdev: $(cat "$TMP/err")"
fab_ns "$H1" nosuchcmd
assert_eq "nosuchcmd rc" 2 "$rc"
grep -qx "fabricctl: unknown command 'nosuchcmd' (commands: 'fabricctl help')" "$TMP/err" ||
	fail "unknown command message: $(cat "$TMP/err")"
fab_ns "$H1" statsu
assert_eq "statsu rc" 2 "$rc"
grep -qF "did you mean 'status'?" "$TMP/err" || fail "no suggestion for statsu: $(cat "$TMP/err")"
fab_ns "$H1" -x
grep -q "^fabricctl: invalid option -- 'x'" "$TMP/err" || fail "-x does not name the tool: $(cat "$TMP/err")"
fab_ns "$H1" status --bogus
assert_eq "status --bogus rc" 2 "$rc"
echo "status-netns: ok"
