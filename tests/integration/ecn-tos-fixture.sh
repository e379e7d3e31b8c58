#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# ECN per priority and RoCE default ToS against a LAYOUT FIXTURE: a
# directory tree under a temporary --root with the mlx5 sysfs layout
# (sys/class/net/IF/ecn/roce_np|roce_rp/enable/PRIO), an RDMA device whose
# GID table names the netdev (sys/class/infiniband/...), and the rdma_cm
# configfs file (sys/kernel/config/rdma_cm/DEV/ports/N/default_roce_tos).
# The fixture imitates file layout only, not driver behaviour.  The netdevs
# themselves are real veths in a private namespace (rtnetlink is not
# redirected by --root).
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl

NS=ecn$$
tmpdir_with_cleanup
R=$TMP/root
cleanup_hook() { ip netns del "$NS" 2>/dev/null; }

run ip netns add "$NS"
run ip -n "$NS" link add eth0 type veth peer name eth1

# --- the layout fixture ---
for pt in roce_np roce_rp; do
	mkdir -p "$R/sys/class/net/eth0/ecn/$pt/enable"
	for p in 0 1 2 3 4 5 6 7; do echo 0 >"$R/sys/class/net/eth0/ecn/$pt/enable/$p"; done
done
echo 1 >"$R/sys/class/net/eth0/ecn/roce_np/enable/0"	# stale: must be switched off
mkdir -p "$R/sys/class/net/eth1"			# eth1: no ecn directory (not mlx5)
D=$R/sys/class/infiniband/mlx5_0
mkdir -p "$D/ports/1/gids" "$D/ports/1/gid_attrs/ndevs" "$D/ports/1/gid_attrs/types"
echo 1 >"$D/node_type"
echo 0000:0000:0000:0001 >"$D/node_guid"
echo Ethernet >"$D/ports/1/link_layer"
echo "4: ACTIVE" >"$D/ports/1/state"
echo "5: LinkUp" >"$D/ports/1/phys_state"
echo fe80:0000:0000:0000:0000:00ff:fe00:0001 >"$D/ports/1/gids/0"
echo eth0 >"$D/ports/1/gid_attrs/ndevs/0"
echo "RoCE v2" >"$D/ports/1/gid_attrs/types/0"
mkdir -p "$R/sys/kernel/config/rdma_cm/mlx5_0/ports/1"
echo 0 >"$R/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"

fab() { fab_ns "$NS" --root "$R" "$@"; }
ecn() { local d=$R/sys/class/net/$1/ecn/$2/enable; echo "$(cat "$d"/0)$(cat "$d"/1)$(cat "$d"/2)$(cat "$d"/3)$(cat "$d"/4)$(cat "$d"/5)$(cat "$d"/6)$(cat "$d"/7)"; }
tos() { cat "$R/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"; }

cat >"$TMP/p.yaml" <<'Y'
interfaces:
  - match: eth0
    ecn: {np: [3], rp: [3, 4]}
    roce: {tos: 106}
Y

# 1. Drift listed with the values of the fixture.
fab -j verify "$TMP/p.yaml"
assert_eq "verify rc" 1 "$rc"
assert_eq "drift" "eth0 ecn.np 3 0|eth0 ecn.rp 3,4 none|eth0 roce.tos 106 0" \
	"$(jq -r '[.drift[] | "\(.interface) \(.field) \(.wanted) \(.found)"] | join("|")' "$TMP/out")"

# 2. Apply: exactly the differing priorities change, then no drift.
fab -j apply "$TMP/p.yaml"
assert_eq "apply rc" 0 "$rc"
assert_eq "steps" "ecn.np.0:on->off ecn.np.3:off->on ecn.rp.3:off->on ecn.rp.4:off->on roce.tos:0->106" \
	"$(jq -r '[.steps[] | "\(.field):\(.from)->\(.to)"] | join(" ")' "$TMP/out")"
assert_eq "roce_np files" 00010000 "$(ecn eth0 roce_np)"
assert_eq "roce_rp files" 00011000 "$(ecn eth0 roce_rp)"
assert_eq "default_roce_tos" 106 "$(tos)"
[ -d "$R/sys/kernel/config/rdma_cm/mlx5_0" ] || fail "pre-existing rdma_cm device directory removed"
fab verify "$TMP/p.yaml"
assert_eq "verify after apply rc" 0 "$rc"
fab -j apply "$TMP/p.yaml"
assert_eq "second apply changes" 0 "$(jq -r .changes "$TMP/out")"

# 2b. status shows mlx5_0/1's chain in one line; status --hosts carries it
#     from the node's worker (launched in the namespace, reading the same
#     fixture) and prints the same line under "chains (RoCE ports)".  A
#     veth has no DCB: the chain is "unknown" with that reason.
fab status
assert_eq "status rc" 0 "$rc"
CHAIN=$(sed -n 's/^    chain //p' "$TMP/out")
case $CHAIN in "eth0 (mlx5_0/1) unknown: DSCP 26 "*) ;; *) fail "status chain line: '$CHAIN'" ;; esac
# shellcheck disable=SC2016 # the wrapper's own $1 and $@
printf '#!/bin/sh\nexe=$1; shift\nexec "$exe" --root "%s" "$@"\n' "$R" >"$TMP/wrap"
chmod +x "$TMP/wrap"
echo "$NS 192.0.2.1" >"$TMP/hosts"
L="ip netns exec {host} env FABRICCTL_RUNDIR=$TMP/run $TMP/wrap"
fab -j status --hosts "$TMP/hosts" --launcher "$L"
assert_eq "status --hosts rc" 0 "$rc"
assert_eq "status --hosts: the worker's chain" "eth0 mlx5_0/1 unknown 26" \
	"$(jq -r '.nodes[0].status.rdma[0].ports[0].chain | "\(.interface) \(.rdma) \(.verdict) \(.dscp)"' "$TMP/out")"
fab status --hosts "$TMP/hosts" --launcher "$L"
assert_eq "status --hosts text rc" 0 "$rc"
assert_eq "status --hosts text: the chain line" "$(printf '%-16s %s' "$NS" "$CHAIN")" \
	"$(sed -n '/^chains (RoCE ports):$/,$p' "$TMP/out" | sed -n 3p)"

# 2c. An address on eth0 that has no RoCE v2 GID in the fixture's table:
#     the chain breaks (no_gid, a link that needs no DCB), one drift of
#     field "chain" through the worker, so verify --hosts (what accept's
#     stage 2 runs) exits 1, and the node's group says BROKEN (no_gid);
#     accept rejects at stage 2 naming the chain.
run ip -n "$NS" addr add 192.0.2.1/24 dev eth0
fab -j verify --hosts "$TMP/hosts" --launcher "$L" "$TMP/p.yaml"
assert_eq "verify --hosts no GID rc" 1 "$rc"
assert_eq "verify --hosts no GID: the chain drift" \
	"eth0 chain address 192.0.2.1 of eth0 has no RoCE v2 GID on mlx5_0/1" \
	"$(jq -r '[.drift[] | select(.field == "chain") | "\(.interface) \(.field) \(.found)"] | join(";")' "$TMP/out")"
assert_eq "verify --hosts no GID: chain_groups" "1 true $NS broken no_gid" \
	"$(jq -r '[.chain_groups[] | "\(.count) \(.majority) \(.nodes | join(",")) \(.chains | map("\(.verdict) \(.break)") | join(","))"] | join(";")' "$TMP/out")"
fab verify --hosts "$TMP/hosts" --launcher "$L" "$TMP/p.yaml"
assert_eq "verify --hosts no GID text rc" 1 "$rc"
grep -qx "  1 node BROKEN (no_gid): DSCP 26: $NS" "$TMP/out" || fail "verify --hosts text: no chain group line"
# accept, stage 2 only (the others off: no lab to reach or measure): the
# node as new, REJECT at stage 2 with the chain as its one drift.
echo "$NS 192.0.2.1 new" >"$TMP/hosts-new"
printf 'stages:\n  reach: false\n  configuration: true\n  cabling: false\n  counters-baseline: false\n  traffic: false\n  counters-after: false\n' >"$TMP/policy.yaml"
fab -j accept --hosts "$TMP/hosts-new" --launcher "$L" --profile "$TMP/p.yaml" --policy "$TMP/policy.yaml"
assert_eq "accept no GID rc" 1 "$rc"
assert_eq "accept no GID: verdict, stage" "REJECT 2" "$(jq -r '"\(.verdict) \(.failed_stage)"' "$TMP/out")"
assert_eq "accept no GID: the finding" \
	"FAB-CONFIG-DRIFT 2 $NS: eth0 chain: wanted unbroken, found address 192.0.2.1 of eth0 has no RoCE v2 GID on mlx5_0/1" \
	"$(jq -r '[.findings[] | "\(.code) \(.stage) \(.node): \(.evidence)"] | join(";")' "$TMP/out")"
run ip -n "$NS" addr del 192.0.2.1/24 dev eth0

# 3. Rollback: the ToS step fails (the configfs file is replaced by a
#    directory), the ECN steps before it are undone.
echo 0 >"$R/sys/class/net/eth0/ecn/roce_np/enable/3"
rm "$R/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"
mkdir "$R/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"
cat >"$TMP/p2.yaml" <<'Y'
interfaces:
  - match: eth0
    ecn: {np: [3, 5]}
    roce: {tos: 96}
Y
# A dry run promises nothing the apply cannot do: the ToS step is certain
# to fail (a directory where the file should be), exit 3 as the apply.
fab -j apply --dry-run "$TMP/p2.yaml"
assert_eq "dry run rc (tos file is a directory)" 3 "$rc"
assert_eq "dry run: only the tos step would fail" "ecn.np.3:- ecn.np.5:- roce.tos:fails" \
	"$(jq -r '[.steps[] | "\(.field):\(if .fails then "fails" else "-" end)"] | join(" ")' "$TMP/out")"
jq -r '.steps[] | select(.field == "roce.tos") | .fails' "$TMP/out" | grep -q 'roce_tos: mlx5_0/1' ||
	fail "dry run: the tos step's reason does not name mlx5_0/1"
assert_eq "dry run changed nothing" 00000000 "$(ecn eth0 roce_np)"
fab -j apply "$TMP/p2.yaml"
assert_eq "rollback rc" 3 "$rc"
assert_eq "statuses" "ecn.np.3:undone ecn.np.5:undone roce.tos:failed" \
	"$(jq -r '[.steps[] | "\(.field):\(.status)"] | join(" ")' "$TMP/out")"
assert_eq "roce_np restored" 00000000 "$(ecn eth0 roce_np)"
jq -r .error "$TMP/out" | grep -q 'roce_tos: mlx5_0/1' || fail "error does not name mlx5_0/1"

# 4. A device without the capability: a clear error naming it, not a skip.
cat >"$TMP/p3.yaml" <<'Y'
interfaces:
  - match: eth1
    ecn: {np: [3]}
Y
fab -j verify "$TMP/p3.yaml"
assert_eq "verify eth1 rc" 1 "$rc"
jq -r '.drift[0].found' "$TMP/out" | grep -q 'ecn: eth1: roce_np not supported by driver' ||
	fail "verify does not name eth1 and roce_np: $(jq -r '.drift[0].found' "$TMP/out")"
# The dry run says it cannot, with the driver's reason, and exits 3 as the
# apply does (it used to say "would" and exit 0).
fab apply --dry-run "$TMP/p3.yaml"
assert_eq "dry run eth1 rc" 3 "$rc"
grep -q '^ *1 WOULD-FAIL  *eth1  *ecn.np.3 ' "$TMP/out" || fail "dry run: ecn.np.3 not marked WOULD-FAIL"
grep -q 'ecn: eth1: roce_np not supported by driver' "$TMP/out" ||
	fail "dry run: no reason naming eth1 and roce_np"
grep -q '^ *[0-9][0-9]* would ' "$TMP/out" && fail "dry run still says would"
fab apply "$TMP/p3.yaml"
assert_eq "apply eth1 rc" 3 "$rc"
grep -q 'ecn: eth1: roce_np not supported by driver' "$TMP/err" || fail "apply error does not name eth1/roce_np"

# 5. roce.tos on a netdev without an RDMA device: named, not skipped.
printf 'interfaces:\n  - match: eth1\n    roce: {tos: 106}\n' >"$TMP/p4.yaml"
fab apply "$TMP/p4.yaml"
assert_eq "apply tos eth1 rc" 3 "$rc"
grep -q 'roce: eth1: no rdma device on this netdev' "$TMP/err" || fail "no clear error for eth1 tos"
echo "ecn-tos-fixture: all checks passed"
