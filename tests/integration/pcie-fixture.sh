#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# The PCIe view end to end on DGX-like layout fixtures
# (tests/fixtures/pcie-dgx/build, read with `fabricctl --root DIR`): status
# text and JSON, verify with a profile's nics: items (a NIC trained at x8
# named with its figure), and status/verify --hosts over three nodes, one
# of them degraded, grouped by PCIe picture (status) and by PCIe drift
# (verify).  The fleet's launcher is a two-line wrapper giving each
# node's worker its own fixture root.
set -eu
. "$(dirname "$0")/../lib/common.sh"
need_cmd jq
need_fabricctl
tmpdir_with_cleanup

run "$TOP/tests/fixtures/pcie-dgx/build" "$TMP/h1" fw-lldp=off >&2
run "$TOP/tests/fixtures/pcie-dgx/build" "$TMP/h2" fw-lldp=off >&2
run "$TOP/tests/fixtures/pcie-dgx/build" "$TMP/h3" fw-lldp=off width:0000:93:00.0=8 >&2

# One node.
fab --root "$TMP/h1" -j status
assert_eq "status rc" 0 "$rc"
assert_eq "nics" 9 "$(jq '.pcie.nics | length' "$TMP/out")"
assert_eq "gpus" 8 "$(jq '.pcie.gpus | length' "$TMP/out")"
assert_eq "gpudirect" true "$(jq '.pcie.gpudirect.ready' "$TMP/out")"
assert_eq "enp147s0np0's gpus" "switch 0000:94:00.0 0000:96:00.0" \
	"$(jq -r '.pcie.nics[] | select(.netdevs[0] == "enp147s0np0") | .near_gpus | "\(.distance) \(.bdfs | join(" "))"' "$TMP/out")"
fab --root "$TMP/h3" status
grep -q '^nic enp147s0np0 0000:93:00.0 (mlx5_core): pcie x8 32GT/s (max x16 32GT/s, slot x16 32GT/s) BELOW MAX; numa 1 socket 1; iommu identity' "$TMP/out" ||
	fail "status text lacks the degraded NIC line"

cat >"$TMP/p.yaml" <<'EOF'
nics:
  - match: ["enp*", "ens*"]
    pcie_width: max
    pcie_speed: max
    acs: off
    numa: local
    gpudirect: ready
    fw_lldp: off
EOF
fab --root "$TMP/h1" verify "$TMP/p.yaml"
assert_eq "verify healthy rc" 0 "$rc"
fab --root "$TMP/h3" -j verify "$TMP/p.yaml"
assert_eq "verify degraded rc" 1 "$rc"
assert_eq "drift" "enp147s0np0 pcie.width x16 (max) x8" \
	"$(jq -r '.drift[] | "\(.interface) \(.field) \(.wanted) \(.found)"' "$TMP/out")"
# apply changes nothing and says the field is verify-only.
fab --root "$TMP/h3" -j apply --dry-run "$TMP/p.yaml"
assert_eq "apply --dry-run rc" 0 "$rc"
assert_eq "apply steps" 0 "$(jq '.steps | length' "$TMP/out")"
assert_eq "apply verify-only" "enp147s0np0 pcie.width" \
	"$(jq -r '.verify_only[] | "\(.object) \(.field)"' "$TMP/out")"

# Three nodes, each worker on its own fixture.
cat >"$TMP/wrap" <<EOF
#!/bin/sh
h=\$1 exe=\$2; shift 2
exec "\$exe" --root "$TMP/\$h" "\$@"
EOF
chmod +x "$TMP/wrap"
printf 'h1 127.0.0.1\nh2 127.0.0.2\nh3 127.0.0.3\n' >"$TMP/hosts"
fab status --hosts "$TMP/hosts" --launcher "$TMP/wrap {host}"
assert_eq "status --hosts rc" 0 "$rc"
grep -q '^PCIe: 2 of 3 nodes alike; 1 differ:$' "$TMP/out" || fail "no PCIe group line"
grep -q '^  h3:$' "$TMP/out" || fail "h3 not named"
grep -qF '    nic 0000:93:00.0: mlx5_core x8 32GT/s numa 1 gpus switch acs off fw-lldp - (majority: mlx5_core x16 32GT/s numa 1 gpus switch acs off fw-lldp -)' "$TMP/out" ||
	fail "the x8 NIC is not shown against the majority"
fab -j status --hosts "$TMP/hosts" --launcher "$TMP/wrap {host}"
assert_eq "groups" "2 h1,h2 0; 1 h3 1" \
	"$(jq -r '[.pcie_groups[] | "\(.count) \(.nodes | join(",")) \(.differs | length)"] | join("; ")' "$TMP/out")"
assert_eq "each node's pcie carried" 9 "$(jq '.nodes[2].status.pcie.nics | length' "$TMP/out")"
fab -j verify --hosts "$TMP/hosts" --launcher "$TMP/wrap {host}" "$TMP/p.yaml"
assert_eq "verify --hosts rc" 1 "$rc"
assert_eq "fleet drift" "h3 enp147s0np0 pcie.width x8" \
	"$(jq -r '.drift[] | "\(.node) \(.interface) \(.field) \(.found)"' "$TMP/out")"
assert_eq "fleet drift groups" "2 h1,h2 0; 1 h3 1" \
	"$(jq -r '[.pcie_groups[] | "\(.count) \(.nodes | join(",")) \(.drift | length)"] | join("; ")' "$TMP/out")"
fab verify --hosts "$TMP/hosts" --launcher "$TMP/wrap {host}" "$TMP/p.yaml"
assert_eq "verify --hosts text rc" 1 "$rc"
grep -qx '  1 node: enp147s0np0 pcie.width x8, want x16 (max): h3' "$TMP/out" ||
	fail "verify --hosts: no group line for h3's x8 NIC"
echo "pcie-fixture: ok" >&2
