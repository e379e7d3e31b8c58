#!/bin/bash
# DCQCN parameters and the per-priority ECN enables through fabricctl
# against tests/vm/dcbtest loaded with dcqcn=1, whose netdevs expose them
# as the two mlx5 drivers do, through the kernel's sysfs and debugfs:
# dcbt0 the vendor driver's (MLNX_OFED) sysfs ecn/roce_np|roce_rp/
# (cnp_dscp, rpg_ai_rate, enable/PRIO, ...: kobject attributes with the
# driver's value limits), dcbt1 the inbox mlx5_ib debugfs
# mlx5/<device>/cc_params/ (<device>: the basename of dcbt1's device link,
# the module's platform device dcbtest.1).
#  1. apply a profile with `dcqcn:` and `ecn:`: every file reads back the
#     profile's value in both layouts; verify is clean;
#  2. a sysfs and a debugfs file written behind fabricctl's back: verify
#     reports exactly those two drifts;
#  3. a write the module fails (its fail= parameter) in the middle of an
#     apply: the writes before it are undone (the files read back as
#     before), the steps after it never run;
#  4. a value the driver refuses (rpg_threshold 32; it takes 1..31, the
#     profile any u32): apply fails with an error naming the field, and
#     nothing changed;
#  5. the lossless chain with the module's CNP marking and ECN enables
#     (a Soft-RoCE device on dcbt0 for roce.tos): the CNPs' DSCP moved
#     behind fabricctl's back to one without PFC: verify names exactly
#     that break (cnp_lossy); ECN switched off on the RoCE priority: the
#     chain's break is ecn_off.
# Runs inside the VM (tests/vm/run-tests tests/vm/one-vm/35-dcqcn.sh).
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need
need_cmd jq ip rdma
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make)"

TMP=$(mktemp -d)
trap dcbtest_cleanup EXIT

mountpoint -q /sys/kernel/debug || run mount -t debugfs none /sys/kernel/debug
dcbtest_insmod pairs=1 dcqcn=1
run ip link set dcbt0 up
run ip link set dcbt1 up
V=/sys/class/net/dcbt0/ecn
BDF=$(basename "$(readlink /sys/class/net/dcbt1/device)")
assert_eq "dcbt1's device" dcbtest.1 "$BDF"
D=/sys/kernel/debug/mlx5/$BDF/cc_params
FAIL=/sys/module/dcbtest/parameters/fail
if [ ! -f "$V/roce_rp/rpg_ai_rate" ] || [ ! -f "$D/rp_ai_rate" ]; then fail "dcbtest has no DCQCN files"; fi

fab() { # fab ARGS...: sets rc; stdout in $TMP/out, stderr in $TMP/err
	pretty "$FABRICCTL $*"
	rc=0
	"$FABRICCTL" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/out" "$TMP/err" >&2
}
# The VM is TCG-emulated: a fork is slow, a jq start slower; files are read
# with the shell's read, and each fabricctl output goes through one jq (its
# lines into L; the VM has no /dev/fd for <(...)).
files() { # files DIR NAME...: "NAME=VALUE ..." as the files read
	local d=$1 f v out=
	shift
	for f in "$@"; do read -r v <"$d/$f"; out="$out $f=$v"; done
	echo "${out# }"
}
ecn() { # ecn roce_np|roce_rp: enable/0..7 as one string of 0s and 1s
	local p v out=
	for p in 0 1 2 3 4 5 6 7; do read -r v <"$V/$1/enable/$p"; out=$out$v; done
	echo "$out"
}
put() { pretty "echo $1 >$2"; echo "$1" >"$2"; }
DRIFTS='[.drift[] | "\(.interface) \(.field) \(.wanted) \(.found)"] | sort | join("|")'
STEPS='[.steps[] | "\(.field):\(.status)"] | join(" ")'
VNP=(cnp_dscp cnp_802p_prio min_time_between_cnps)
VRP=(rpg_ai_rate rpg_hai_rate rpg_threshold rpg_time_reset)
DF=(np_cnp_dscp np_cnp_prio np_min_time_between_cnps rp_ai_rate rp_hai_rate rp_threshold rp_time_reset)

cat >"$TMP/p.yaml" <<'YAML'
interfaces:
  - match: "dcbt*"
    dcqcn:
      cnp_dscp: 46
      cnp_prio: 5
      np: {min_time_between_cnps: 8}
      rp: {ai_rate: 10, hai_rate: 100, threshold: 5}
  - match: dcbt0
    ecn: {np: [3], rp: [3]}
YAML

# --- 1. fabricctl writes, the files read back --------------------------------
assert_eq "vendor defaults" "cnp_dscp=48 cnp_802p_prio=6 min_time_between_cnps=4" "$(files "$V/roce_np" "${VNP[@]}")"
fab apply "$TMP/p.yaml"
assert_eq "apply p: exit status" 0 "$rc"
assert_eq "sysfs roce_np after apply" "cnp_dscp=46 cnp_802p_prio=5 min_time_between_cnps=8" \
	"$(files "$V/roce_np" "${VNP[@]}")"
assert_eq "sysfs roce_rp after apply (rpg_time_reset untouched)" \
	"rpg_ai_rate=10 rpg_hai_rate=100 rpg_threshold=5 rpg_time_reset=300" "$(files "$V/roce_rp" "${VRP[@]}")"
assert_eq "sysfs roce_np/enable after apply" 00010000 "$(ecn roce_np)"
assert_eq "sysfs roce_rp/enable after apply" 00010000 "$(ecn roce_rp)"
assert_eq "debugfs cc_params after apply" \
	"np_cnp_dscp=46 np_cnp_prio=5 np_min_time_between_cnps=8 rp_ai_rate=10 rp_hai_rate=100 rp_threshold=5 rp_time_reset=300" \
	"$(files "$D" "${DF[@]}")"
fab verify "$TMP/p.yaml"
assert_eq "verify after apply: exit status" 0 "$rc"

# --- 2. changed behind fabricctl's back --------------------------------------
put 20 "$V/roce_rp/rpg_ai_rate"
put 24 "$D/np_cnp_dscp"
fab -j verify "$TMP/p.yaml"
assert_eq "verify after the echos: exit status" 1 "$rc"
assert_eq "verify after the echos: exactly those drifts" \
	"dcbt0 dcqcn.rp.ai_rate 10 20|dcbt1 dcqcn.cnp_dscp 46 24" "$(jq -r "$DRIFTS" "$TMP/out")"
fab apply "$TMP/p.yaml"
assert_eq "apply p again: exit status" 0 "$rc"
assert_eq "sysfs rpg_ai_rate, debugfs np_cnp_dscp restored" "rpg_ai_rate=10 np_cnp_dscp=46" \
	"$(files "$V/roce_rp" rpg_ai_rate) $(files "$D" np_cnp_dscp)"

# --- 3. a write that fails in the middle rolls back the ones before ---------
cat >"$TMP/p2.yaml" <<'YAML'
interfaces:
  - match: dcbt0
    ecn: {np: [3], rp: [3, 4]}
    dcqcn: {cnp_dscp: 26, rp: {ai_rate: 20, hai_rate: 200, gd: 7}}
YAML
put roce_rp/rpg_hai_rate "$FAIL"
fab -j apply "$TMP/p2.yaml"
put "" "$FAIL"
assert_eq "apply p2 (rpg_hai_rate fails): exit status" 3 "$rc"
mapfile -t L <<<"$(jq -r "($STEPS), .rolled_back, .error" "$TMP/out")"
steps=${L[0]} rolled=${L[1]} error=${L[2]}
assert_eq "steps" \
	"ecn.rp.4:undone dcqcn.cnp_dscp:undone dcqcn.rp.ai_rate:undone dcqcn.rp.hai_rate:failed dcqcn.rp.gd:planned" \
	"$steps"
assert_eq "rolled_back" true "$rolled"
case $error in
*"dcqcn: dcbt0: rp.hai_rate: write 200 to $V/roce_rp/rpg_hai_rate: Input/output error"*) ;;
*) fail "apply p2: the failed write is not in the error: $error" ;;
esac
assert_eq "sysfs roce_np after the rollback" "cnp_dscp=46 cnp_802p_prio=5 min_time_between_cnps=8" \
	"$(files "$V/roce_np" "${VNP[@]}")"
assert_eq "sysfs roce_rp after the rollback" \
	"rpg_ai_rate=10 rpg_hai_rate=100 rpg_threshold=5 rpg_time_reset=300" "$(files "$V/roce_rp" "${VRP[@]}")"
assert_eq "sysfs rpg_gd never written" "rpg_gd=11" "$(files "$V/roce_rp" rpg_gd)"
assert_eq "sysfs roce_rp/enable after the rollback" 00010000 "$(ecn roce_rp)"

# --- 4. a value the driver refuses -------------------------------------------
printf 'interfaces:\n  - match: dcbt0\n    dcqcn: {cnp_dscp: 30, rp: {threshold: 32}}\n' >"$TMP/p3.yaml"
fab -j apply "$TMP/p3.yaml"
assert_eq "apply p3 (rpg_threshold 32): exit status" 3 "$rc"
mapfile -t L <<<"$(jq -r "($STEPS), .error" "$TMP/out")"
steps=${L[0]} error=${L[1]}
assert_eq "steps" "dcqcn.cnp_dscp:undone dcqcn.rp.threshold:failed" "$steps"
case $error in
*"dcqcn: dcbt0: rp.threshold: write 32 to $V/roce_rp/rpg_threshold: Invalid argument"*) ;;
*) fail "apply p3: the refused field is not named: $error" ;;
esac
assert_eq "sysfs after the refusal" "cnp_dscp=46 rpg_threshold=5" \
	"$(files "$V/roce_np" cnp_dscp) $(files "$V/roce_rp" rpg_threshold)"

# --- 5. the lossless chain, with the module's CNP marking and ECN ------------
vm_modprobe rdma_rxe
run rdma link add rxe_dcbt0 type rxe netdev dcbt0
grep -q '^rdma_cm ' /proc/modules || vm_modprobe rdma_cm
mountpoint -q /sys/kernel/config || run mount -t configfs none /sys/kernel/config
cat >"$TMP/pc.yaml" <<'YAML'
interfaces:
  - match: dcbt0
    pfc: {enable: [3], delay: 10}
    ets:
      prio_tc: [0, 1, 2, 3, 4, 5, 6, 7]
      tc_bw:   [10, 5, 5, 50, 10, 10, 0, 10]
      tsa:     [ets, ets, ets, ets, ets, ets, strict, ets]
    dscp_map: {26: 3, 48: 6}
    buffer:
      prio_buffer: [0, 0, 0, 1, 0, 0, 0, 0]
      size: [262144, 131072, 0, 0, 0, 0, 0, 0]
    ecn: {np: [3], rp: [3]}
    dcqcn: {cnp_dscp: 48, cnp_prio: 6}
    roce: {tos: 106}
YAML
fab apply "$TMP/pc.yaml"
assert_eq "apply pc: exit status" 0 "$rc"
# The chain alone: a profile that expects lossless RoCE with DCQCN and names no DCQCN value.
printf 'interfaces:\n  - match: dcbt0\n    ecn: {rp: [3]}\n    roce: {tos: 106, lossless: true}\n' >"$TMP/pv.yaml"
fab -j verify "$TMP/pv.yaml"
assert_eq "verify pv: exit status" 0 "$rc"
CHAIN='.chains[0] | "\(.verdict) \(.break) cnp \(.cnp.dscp)"'
assert_eq "chain: ok, the CNPs' DSCP the module's" "ok null cnp 48" "$(jq -r "$CHAIN" "$TMP/out")"
put 8 "$V/roce_np/cnp_dscp"
fab -j verify "$TMP/pv.yaml"
assert_eq "verify pv, CNP on DSCP 8: exit status" 1 "$rc"
mapfile -t L <<<"$(jq -r "($CHAIN), ($DRIFTS)" "$TMP/out")"
chain=${L[0]} drifts=${L[1]}
assert_eq "verify pv, CNP on DSCP 8: the chain" "broken cnp_lossy cnp 8" "$chain"
assert_eq "verify pv, CNP on DSCP 8: the one drift" \
	"dcbt0 chain unbroken DSCP 26 → prio 3 → TC 3 → buffer 1, but CNPs (DSCP 8, prio 0) ride TC 0, a lossy class: no PFC on priority 0 and not strict" \
	"$drifts"
put 48 "$V/roce_np/cnp_dscp"
put 0 "$V/roce_rp/enable/3"
fab -j verify "$TMP/pv.yaml"
assert_eq "verify pv, ECN off on 3: exit status" 1 "$rc"
mapfile -t L <<<"$(jq -r "($CHAIN), ($DRIFTS)" "$TMP/out")"
chain=${L[0]} drifts=${L[1]}
assert_eq "verify pv, ECN off on 3: the chain" "broken ecn_off cnp 48" "$chain"
assert_eq "verify pv, ECN off on 3: the field and the chain" \
	"dcbt0 chain unbroken DSCP 26 → prio 3 → TC 3 → buffer 1, but ECN is off on priority 3 (reaction point)|dcbt0 ecn.rp 3 none" \
	"$drifts"
echo "35-dcqcn: all checks passed"
