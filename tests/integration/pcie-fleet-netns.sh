#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: verify/status --hosts groups, tests/run-all)
# verify --hosts and status --hosts group the nodes by what is inside them,
# on a netns fleet (tests/lab/netns, launcher `ip netns exec {host}`, as
# the built-in netns launcher) whose nodes each read their own DGX-like
# layout fixture (tests/fixtures/pcie-dgx/build, `fabricctl --root DIR`,
# the way pcie-fixture.sh feeds PCIe readings): six nodes, two with the
# same NIC trained at x8, one with ACS on above a NIC, one with an MTU
# drift that is not host-side.  verify --hosts: one line a group, largest
# first, in text, and "pcie_groups" in JSON; a node that could not be
# verified is in no group; a profile without nics: items prints no group.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=pf$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P"; }

run lab_up --name "$P" --hosts 6 --leaves 1 --spines 0 --mtu 9000 --no-lldp
lab_hostsfile >"$TMP/hosts"
for i in 1 2 3 4 5 6; do eval "H$i=\$(lab_ns h$i)"; done

# Each node's PCIe readings: its own fixture, named after its namespace.
for h in "$H1" "$H2" "$H6"; do
	run "$TOP/tests/fixtures/pcie-dgx/build" "$TMP/fx/$h" fw-lldp=off >&2
done
for h in "$H3" "$H5"; do
	run "$TOP/tests/fixtures/pcie-dgx/build" "$TMP/fx/$h" fw-lldp=off width:0000:93:00.0=8 >&2
done
run "$TOP/tests/fixtures/pcie-dgx/build" "$TMP/fx/$H4" fw-lldp=off acs:0000:92:00.0=001d >&2
run lab_set_mtu h2 eth0 1500

# The worker runs in the node's namespace (netlink: its eth0) and reads
# sysfs under the node's fixture.  A node named in $TMP/down fails.
cat >"$TMP/wrap" <<EOF
#!/bin/sh
h=\$1 exe=\$2; shift 2
grep -qx "\$h" "$TMP/down" 2>/dev/null && exit 1
exec "\$exe" --root "$TMP/fx/\$h" "\$@"
EOF
chmod +x "$TMP/wrap"
LAUNCH="ip netns exec {host} env FABRICCTL_RUNDIR=$TMP/run-{host} $TMP/wrap {host}"

cat >"$TMP/p.yaml" <<'Y'
interfaces:
  - match: eth0
    mtu: 9000
nics:
  - match: ["enp*", "ens*"]
    pcie_width: max
    pcie_speed: max
    acs: off
    numa: local
    gpudirect: ready
    fw_lldp: off
Y
q() { jq -r "$@" "$TMP/out"; }

# 1. JSON: three groups, largest first; h2's MTU drift is in "drift" but
#    not in its group's.
fab -j verify --hosts "$TMP/hosts" --launcher "$LAUNCH" "$TMP/p.yaml"
assert_eq "verify: rc" 1 "$rc"
assert_eq "verify: drift" "$H2 eth0 mtu;$H3 enp147s0np0 pcie.width;$H4 enp147s0np0 pcie.acs;$H5 enp147s0np0 pcie.width" \
	"$(q '[.drift[] | "\(.node) \(.interface) \(.field)"] | join(";")')"
assert_eq "groups" "3 true $H1,$H2,$H6 -;2 false $H3,$H5 enp147s0np0 pcie.width x16 (max) x8;1 false $H4 enp147s0np0 pcie.acs off on at 0000:92:00.0 (ctl 0x001d)" \
	"$(q '[.pcie_groups[] | "\(.count) \(.majority) \(.nodes | join(",")) \(if .drift == [] then "-" else (.drift | map("\(.interface) \(.field) \(.wanted) \(.found)") | join(",")) end)"] | join(";")')"

# 2. Text: after the table, one line a group.
fab verify --hosts "$TMP/hosts" --launcher "$LAUNCH" "$TMP/p.yaml"
assert_eq "verify text: rc" 1 "$rc"
assert_eq "verify text: groups" "PCIe drift on 3 of 6 verified nodes, by group, largest first:
  3 nodes: no PCIe drift: $H1, $H2, $H6
  2 nodes: enp147s0np0 pcie.width x8, want x16 (max): $H3, $H5
  1 node: enp147s0np0 pcie.acs on at 0000:92:00.0 (ctl 0x001d), want off: $H4" \
	"$(sed -n '/^PCIe drift/,$p' "$TMP/out")"

# 3. status --hosts over the same fleet: the same three pictures.
fab -j status --hosts "$TMP/hosts" --launcher "$LAUNCH"
assert_eq "status: rc" 0 "$rc"
assert_eq "status: groups" "3 $H1,$H2,$H6;2 $H3,$H5;1 $H4" \
	"$(q '[.pcie_groups[] | "\(.count) \(.nodes | join(","))"] | join(";")')"

# 4. h5 cannot be verified: exit 3, h5 in no group, h3 a group of one.
echo "$H5" >"$TMP/down"
fab -j verify --hosts "$TMP/hosts" --launcher "$LAUNCH" "$TMP/p.yaml"
assert_eq "h5 down: rc" 3 "$rc"
assert_eq "h5 down: groups" "3 $H1,$H2,$H6;1 $H3;1 $H4" \
	"$(q '[.pcie_groups[] | "\(.count) \(.nodes | join(","))"] | join(";")')"
fab verify --hosts "$TMP/hosts" --launcher "$LAUNCH" "$TMP/p.yaml"
assert_eq "h5 down text: rc" 3 "$rc"
grep -q "^PCIe drift on 2 of 5 verified nodes, by group, largest first:$" "$TMP/out" ||
	fail "h5 down: no group header over the 5 verified nodes"
rm -f "$TMP/down"

# 5. No nics: items: one group of every node without drift, no text for it.
printf 'interfaces:\n  - match: eth0\n    mtu: 9000\n' >"$TMP/mtu.yaml"
fab -j verify --hosts "$TMP/hosts" --launcher "$LAUNCH" "$TMP/mtu.yaml"
assert_eq "no nics: rc" 1 "$rc"
assert_eq "no nics: one group" "6 true 0" \
	"$(q '[.pcie_groups[] | "\(.count) \(.majority) \(.drift | length)"] | join(";")')"
fab verify --hosts "$TMP/hosts" --launcher "$LAUNCH" "$TMP/mtu.yaml"
assert_eq "no nics text: rc" 1 "$rc"
if grep -q "PCIe" "$TMP/out"; then fail "no nics: a PCIe group section without PCIe drift"; fi
# 6. accept, stage 2 only (no lab to reach or measure): h3 as a new node,
#    its NIC at x8 where the profile wants its maximum -> REJECT at stage 2
#    naming that drift (the verify-only `nics:` fields reach accept through
#    the worker's verify, as the profile's other fields do).
grep "^$H3 " "$TMP/hosts" | sed 's/$/ new/' >"$TMP/hosts-new"
printf 'nics:\n  - match: ["enp*", "ens*"]\n    pcie_width: max\n' >"$TMP/nics.yaml"
printf 'stages:\n  reach: false\n  configuration: true\n  cabling: false\n  counters-baseline: false\n  traffic: false\n  counters-after: false\n' >"$TMP/policy.yaml"
fab -j accept --hosts "$TMP/hosts-new" --launcher "$LAUNCH" --profile "$TMP/nics.yaml" --policy "$TMP/policy.yaml"
assert_eq "accept h3: rc" 1 "$rc"
assert_eq "accept h3: verdict, stage" "REJECT 2" "$(q '"\(.verdict) \(.failed_stage)"')"
q -r '.findings[] | "  finding: \(.code) \(.node): \(.evidence)"' >&2
assert_eq "accept h3: one finding, the NIC's width" "FAB-CONFIG-DRIFT $H3 true" \
	"$(q '[.findings[] | "\(.code) \(.node) \(.evidence | test("^enp147s0np0 pcie.width.*x8"))"] | join(";")')"
echo "pcie-fleet-netns: all checks passed" >&2
