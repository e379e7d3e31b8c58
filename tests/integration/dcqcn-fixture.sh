#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# DCQCN parameters in both layouts mlx5 drivers use, against LAYOUT
# FIXTURES under a temporary --root (file layout only, not driver
# behaviour): eth0 has the vendor driver's sysfs files
# (sys/class/net/eth0/ecn/roce_np/cnp_dscp, roce_rp/rpg_ai_rate, ...),
# eth1 the inbox mlx5_ib debugfs ones, found through its device link
# (sys/class/net/eth1/device -> .../0000:03:00.0, then
# sys/kernel/debug/mlx5/0000:03:00.0/cc_params/np_cnp_dscp, rp_ai_rate, ...).
#  1. verify reports each parameter's drift with the fixture's values;
#  2. apply writes exactly the differing files in each layout, verify is
#     clean, a second apply has nothing to do;
#  3. a write that fails (a file replaced by a directory) in the middle
#     rolls back the writes before it;
#  4. a parameter this layout lacks is a clear error naming it.
# The netdevs are real veths in a private namespace (rtnetlink is not
# redirected by --root).
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl

NS=dcqcn$$
tmpdir_with_cleanup
R=$TMP/root
cleanup_hook() { ip netns del "$NS" 2>/dev/null; }

run ip netns add "$NS"
run ip -n "$NS" link add eth0 type veth peer name eth1

# --- the layout fixtures ---
V=$R/sys/class/net/eth0/ecn
mkdir -p "$V/roce_np" "$V/roce_rp"
echo 48 >"$V/roce_np/cnp_dscp"; echo 6 >"$V/roce_np/cnp_802p_prio"
echo 0 >"$V/roce_np/min_time_between_cnps"
for f in rpg_ai_rate:5 rpg_hai_rate:50 rpg_time_reset:300 rpg_byte_reset:32767 rpg_gd:11 \
	rpg_min_rate:1 rpg_max_rate:0 dce_tcp_g:1019 initial_alpha_value:1023; do
	echo "${f#*:}" >"$V/roce_rp/${f%:*}"
done
BDF=0000:03:00.0
mkdir -p "$R/sys/devices/pci0000:00/0000:00:02.0/$BDF" "$R/sys/class/net/eth1"
ln -s "../../../devices/pci0000:00/0000:00:02.0/$BDF" "$R/sys/class/net/eth1/device"
D=$R/sys/kernel/debug/mlx5/$BDF/cc_params
mkdir -p "$D"
for f in np_cnp_dscp:48 np_cnp_prio:6 np_cnp_prio_mode:1 np_min_time_between_cnps:0 \
	rp_ai_rate:5 rp_hai_rate:50 rp_time_reset:300 rp_byte_reset:32767 rp_gd:11; do
	echo "${f#*:}" >"$D/${f%:*}"
done

fab() { fab_ns "$NS" --root "$R" "$@"; }

cat >"$TMP/p.yaml" <<'Y'
interfaces:
  - match: "eth*"
    dcqcn:
      cnp_dscp: 46
      cnp_prio: 5
      np: {min_time_between_cnps: 4}
      rp: {ai_rate: 10, time_reset: 300}
Y

# 1. Drift with the values of each layout.
fab -j verify "$TMP/p.yaml"
assert_eq "verify rc" 1 "$rc"
assert_eq "drift" "eth0 dcqcn.cnp_dscp 46 48|eth0 dcqcn.cnp_prio 5 6|eth0 dcqcn.np.min_time_between_cnps 4 0|eth0 dcqcn.rp.ai_rate 10 5|eth1 dcqcn.cnp_dscp 46 48|eth1 dcqcn.cnp_prio 5 6|eth1 dcqcn.np.min_time_between_cnps 4 0|eth1 dcqcn.rp.ai_rate 10 5" \
	"$(jq -r '[.drift[] | "\(.interface) \(.field) \(.wanted) \(.found)"] | sort | join("|")' "$TMP/out")"

# 2. Apply writes the differing files of each layout; then no drift.
fab -j apply "$TMP/p.yaml"
assert_eq "apply rc" 0 "$rc"
assert_eq "apply steps" 8 "$(jq -r '.steps | length' "$TMP/out")"
assert_eq "vendor cnp_dscp" 46 "$(cat "$V/roce_np/cnp_dscp")"
assert_eq "vendor cnp_802p_prio" 5 "$(cat "$V/roce_np/cnp_802p_prio")"
assert_eq "vendor rpg_ai_rate" 10 "$(cat "$V/roce_rp/rpg_ai_rate")"
assert_eq "vendor rpg_time_reset untouched" 300 "$(cat "$V/roce_rp/rpg_time_reset")"
assert_eq "debugfs np_cnp_dscp" 46 "$(cat "$D/np_cnp_dscp")"
assert_eq "debugfs np_cnp_prio" 5 "$(cat "$D/np_cnp_prio")"
assert_eq "debugfs np_min_time_between_cnps" 4 "$(cat "$D/np_min_time_between_cnps")"
assert_eq "debugfs rp_ai_rate" 10 "$(cat "$D/rp_ai_rate")"
fab verify "$TMP/p.yaml"
assert_eq "verify after apply rc" 0 "$rc"
fab -j apply "$TMP/p.yaml"
assert_eq "second apply changes" 0 "$(jq -r .changes "$TMP/out")"

# 3. A failing write in the middle: eth0's rpg_ai_rate becomes a directory
#    (links go in ifindex order, so eth1's steps may come first or not).
rm "$V/roce_rp/rpg_ai_rate"
mkdir "$V/roce_rp/rpg_ai_rate"
cat >"$TMP/p2.yaml" <<'Y'
interfaces:
  - match: "eth*"
    dcqcn: {cnp_dscp: 26, rp: {ai_rate: 20}}
Y
fab -j apply "$TMP/p2.yaml"
assert_eq "rollback rc" 3 "$rc"
assert_eq "the failed step" "eth0/dcqcn.rp.ai_rate" \
	"$(jq -r '[.steps[] | select(.status == "failed") | "\(.object)/\(.field)"] | join(" ")' "$TMP/out")"
assert_eq "every step before it undone, none after it run" "" \
	"$(jq -r '.steps as $s | ([$s[] | .status] | index("failed")) as $f |
		[range(0; $s | length) | select((. < $f and $s[.].status != "undone") or
		(. > $f and $s[.].status != "planned"))] | join(" ")' "$TMP/out")"
assert_eq "steps before the failure" 3 \
	"$(jq -r '[.steps[] | select(.status == "undone")] | length' "$TMP/out")"
assert_eq "rolled back" true "$(jq -r .rolled_back "$TMP/out")"
assert_eq "vendor cnp_dscp restored" 46 "$(cat "$V/roce_np/cnp_dscp")"
assert_eq "debugfs np_cnp_dscp restored" 46 "$(cat "$D/np_cnp_dscp")"
assert_eq "debugfs rp_ai_rate restored" 10 "$(cat "$D/rp_ai_rate")"

# 4. A parameter the debugfs layout lacks here (rp_min_rate): named.
printf 'interfaces:\n  - match: eth1\n    dcqcn: {rp: {min_rate: 2}}\n' >"$TMP/p3.yaml"
fab -j verify "$TMP/p3.yaml"
assert_eq "verify missing parameter rc" 1 "$rc"
assert_eq "missing parameter found" "unknown (not in debugfs)" "$(jq -r '.drift[0].found' "$TMP/out")"
fab apply "$TMP/p3.yaml"
assert_eq "apply missing parameter rc" 3 "$rc"
echo "dcqcn-fixture: all checks passed"
