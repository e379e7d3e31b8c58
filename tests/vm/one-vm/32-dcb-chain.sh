#!/bin/bash
# Receive buffers, PFC delay, per-TC max rate and the lossless chain,
# through fabricctl against the kernel's DCB netlink code on dcbt0 of
# tests/vm/dcbtest, cross-checked with iproute2's dcb(8), and a Soft-RoCE
# device on the same netdev for the GID:
#  1. apply sets pfc.delay, buffer and maxrate_kbps and the PFC storm
#     prevention timeout (an ethtool tunable dcbtest implements); `dcb -j
#     pfc|buffer|maxrate show` and `ethtool --get-tunable` read back
#     exactly those values; verify is clean; a second apply changes nothing;
#  2. dcb(8) changes each behind fabricctl's back: verify reports each drift;
#  3. a failed step in the middle (the driver refuses buffers larger than
#     its memory) rolls back the PFC step before it, and the max-rate step
#     after it never runs;
#  4. the lossless chain: a RoCE profile applied, verify shows the chain
#     whole (DSCP 26 → prio 3 → TC 3 → buffer 1, the GID index sysfs
#     shows); PFC switched off behind fabricctl's back, then a buffer cut
#     under the headroom: verify names exactly that break, and only it;
#  5. GID: the index verify reports is sysfs's (gid_attrs); a profile
#     pinning another index is drift; status shows the chain in one line.
# Runs inside the VM (tests/vm/run-tests tests/vm/one-vm/32-dcb-chain.sh).
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need
need_cmd dcb jq ip rdma ethtool
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make)"

TMP=$(mktemp -d)
trap dcbtest_cleanup EXIT

dcbtest_insmod pairs=1
run ip link set dcbt0 up
run ip link set dcbt1 up
IF=dcbt0
ADDR=192.168.79.1

fab() { # fab ARGS...: sets rc; stdout in $TMP/out, stderr in $TMP/err
	pretty "$FABRICCTL $*"
	rc=0
	"$FABRICCTL" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/out" "$TMP/err" >&2
}
# iproute2 6.1's dcb may read a stale ack as its SET's answer (see 31-dcb.sh): retry EPROTO.
dcb_set() {
	local i out
	for i in 1 2 3 4 5; do
		pretty "dcb $*"
		if out=$(dcb "$@" 2>&1); then return 0; fi
		printf '%s\n' "$out" >&2
		case $out in *"Protocol error"*) ;; *) fail "dcb $*: $out" ;; esac
	done
	fail "dcb $*: kept failing with EPROTO"
}
drift_found() { jq -r --arg f "$1" '.drift[] | select(.interface == "dcbt0" and .field == $f) | .found' "$TMP/out"; }
pfc_json() { dcb -j pfc show dev "$IF" | jq -c '{pfc: [.prio_pfc[] | if . then 1 else 0 end], delay}'; }
buf_json() { dcb -j buffer show dev "$IF" | jq -c '{prio_buffer, buffer_size}'; }
# struct ieee_maxrate is in kbit/s.  iproute2 6.1's dcb moves get_rate64()'s
# bytes per second in and out of it unconverted (its -j shows the struct's
# number; "1Gbit" sets 125000000); later iproute2 converts (x/÷ 125).
case $(dcb -V 2>&1) in *iproute2-6.1.*) MR_SCALE=1 ;; *) MR_SCALE=125 ;; esac
storm() { ethtool --get-tunable "$IF" pfc-prevention-tout | sed -n 's/^pfc-prevention-tout: *//p'; }
maxrate_kbps() { dcb -j maxrate show dev "$IF" | jq -c --argjson s "$MR_SCALE" '[.tc_maxrate[] | ./$s | floor]'; }

cat >"$TMP/pb.yaml" <<YAML
interfaces:
  - match: "$IF"
    pfc: {enable: [3], delay: 10, storm_timeout_ms: 500}
    buffer:
      prio_buffer: [0, 0, 0, 1, 0, 0, 0, 0]
      size: [262144, 131072, 0, 0, 0, 0, 0, 0]
    maxrate_kbps: [0, 0, 0, 0, 0, 0, 0, 25000000]
YAML

# --- 1. fabricctl sets, dcb(8) reads ---------------------------------------
fab apply "$TMP/pb.yaml"
assert_eq "apply pb: exit status" 0 "$rc"
assert_eq "dcb pfc after apply" '{"pfc":[0,0,0,1,0,0,0,0],"delay":10}' "$(pfc_json)"
assert_eq "dcb buffer after apply" \
	'{"prio_buffer":[0,0,0,1,0,0,0,0],"buffer_size":[262144,131072,0,0,0,0,0,0]}' "$(buf_json)"
assert_eq "dcb maxrate after apply (kbit/s)" "[0,0,0,0,0,0,0,25000000]" "$(maxrate_kbps)"
assert_eq "ethtool pfc-prevention-tout after apply" 500 "$(storm)"
fab -j verify "$TMP/pb.yaml"
assert_eq "verify after apply: exit status" 0 "$rc"
fab -j apply "$TMP/pb.yaml"
assert_eq "second apply: no steps" 0 "$(jq -r '.steps | length' "$TMP/out")"

# --- 2. dcb(8) changes each behind fabricctl's back -------------------------
dcb_set buffer set dev "$IF" prio-buffer 3:0
dcb_set maxrate set dev "$IF" tc-maxrate 7:1Gbit
dcb_set pfc set dev "$IF" delay 20
run ethtool --set-tunable "$IF" pfc-prevention-tout 1000
fab -j verify "$TMP/pb.yaml"
assert_eq "verify after dcb changes: exit status" 1 "$rc"
assert_eq "drift buffer.prio_buffer" "0,0,0,0,0,0,0,0" "$(drift_found buffer.prio_buffer)"
assert_eq "drift maxrate_kbps (as dcb -j reads it)" \
	"$(maxrate_kbps | tr -d '[]')" "$(drift_found maxrate_kbps)"
[ "$(drift_found maxrate_kbps)" != "0,0,0,0,0,0,0,25000000" ] || fail "maxrate_kbps: no change seen"
assert_eq "drift pfc.delay" "20" "$(drift_found pfc.delay)"
assert_eq "drift pfc.storm_timeout_ms" "1000" "$(drift_found pfc.storm_timeout_ms)"
assert_eq "drift count" 4 "$(jq -r .n_drift "$TMP/out")"
fab apply "$TMP/pb.yaml"
assert_eq "apply pb again: exit status" 0 "$rc"
assert_eq "dcb buffer restored" \
	'{"prio_buffer":[0,0,0,1,0,0,0,0],"buffer_size":[262144,131072,0,0,0,0,0,0]}' "$(buf_json)"

# --- 3. a failed step in the middle rolls back the one before --------------
cat >"$TMP/pr.yaml" <<YAML
interfaces:
  - match: "$IF"
    pfc: {enable: [3, 5], delay: 30, storm_timeout_ms: auto}
    buffer:
      prio_buffer: [0, 0, 0, 1, 0, 1, 0, 0]
      size: [400000, 200000, 0, 0, 0, 0, 0, 0]
    maxrate_kbps: [0, 0, 0, 0, 0, 0, 0, 0]
YAML
fab -j apply "$TMP/pr.yaml"
assert_eq "apply pr (buffers over the device's 512 KiB): exit status" 3 "$rc"
assert_eq "steps" "pfc:undone pfc.storm_timeout_ms:undone buffer:failed maxrate_kbps:planned" \
	"$(jq -r '[.steps[] | "\(.field):\(.status)"] | join(" ")' "$TMP/out")"
jq -r .error "$TMP/out" | grep -qF "dcb: $IF: set buffer: Invalid argument (rejected by driver)" ||
	fail "apply pr: the driver's refusal is not in the error: $(jq -r .error "$TMP/out")"
assert_eq "rolled_back" true "$(jq -r .rolled_back "$TMP/out")"
assert_eq "dcb pfc after the rollback (pb's)" '{"pfc":[0,0,0,1,0,0,0,0],"delay":10}' "$(pfc_json)"
assert_eq "dcb buffer after the rollback" \
	'{"prio_buffer":[0,0,0,1,0,0,0,0],"buffer_size":[262144,131072,0,0,0,0,0,0]}' "$(buf_json)"
assert_eq "dcb maxrate untouched" "[0,0,0,0,0,0,0,25000000]" "$(maxrate_kbps)"
assert_eq "ethtool pfc-prevention-tout after the rollback" 500 "$(storm)"

# --- 4. the lossless chain ---------------------------------------------------
run ip addr add "$ADDR/24" dev "$IF"
vm_modprobe rdma_rxe
run rdma link add rxe_dcbt0 type rxe netdev "$IF"
vm_wait_for "rxe_dcbt0 IPv4 GID" 10 vm_gid_index rxe_dcbt0 1 "$ADDR"
GID=$(vm_gid_index rxe_dcbt0 1 "$ADDR")
grep -q '^rdma_cm ' /proc/modules || vm_modprobe rdma_cm
mountpoint -q /sys/kernel/config || run mount -t configfs none /sys/kernel/config
cat >"$TMP/pc.yaml" <<YAML
interfaces:
  - match: "$IF"
    pfc: {enable: [3], delay: 10}
    ets:
      prio_tc: [0, 1, 2, 3, 4, 5, 6, 7]
      tc_bw:   [10, 5, 5, 50, 10, 10, 0, 10]
      tsa:     [ets, ets, ets, ets, ets, ets, strict, ets]
    dscp_map: {26: 3, 48: 6}
    buffer:
      prio_buffer: [0, 0, 0, 1, 0, 0, 0, 0]
      size: [262144, 131072, 0, 0, 0, 0, 0, 0]
    roce: {tos: 106}
YAML
fab apply "$TMP/pc.yaml"
assert_eq "apply pc: exit status" 0 "$rc"
fab -j verify "$TMP/pc.yaml"
assert_eq "verify pc: exit status" 0 "$rc"
chain() { jq -r ".chains[0].$1" "$TMP/out"; }
assert_eq "chain verdict" ok "$(chain verdict)"
assert_eq "chain path" "DSCP 26 → prio 3 → TC 3 → buffer 1" "$(chain path)"
assert_eq "chain rdma port" rxe_dcbt0/1 "$(chain rdma)"
assert_eq "chain buffer bytes" 131072 "$(chain buffer_bytes)"
# 10 m at 40 Gb/s (the driver's minimum; dcbt0 has no speed), MTU 1500:
# (301 + 21) * 40 + 4080 = 16960 xoff, + 1500 + 128.
assert_eq "chain headroom need" 18588 "$(chain buffer_need)"
# 5. the GID index is what sysfs's gid_attrs say for the address
assert_eq "chain gid index = sysfs" "$GID" "$(chain gid.index)"
assert_eq "chain gid address" "$ADDR" "$(chain gid.address)"
fab verify "$TMP/pc.yaml"
grep -qF "chain dcbt0 (rxe_dcbt0/1) ok: DSCP 26 → prio 3 → TC 3 → buffer 1, PFC on; GID $GID ($ADDR)" "$TMP/out" ||
	fail "verify text: no chain line"

# Only the chain: a profile that expects a lossless RoCE chain and names no field.
printf 'interfaces:\n  - match: %s\n    roce: {tos: 106, lossless: true}\n' "$IF" >"$TMP/pv.yaml"
fab -j verify "$TMP/pv.yaml"
assert_eq "verify pv (all well): exit status" 0 "$rc"
dcb_set pfc set dev "$IF" prio-pfc 3:off
fab -j verify "$TMP/pv.yaml"
assert_eq "verify pv, PFC off: exit status" 1 "$rc"
assert_eq "verify pv, PFC off: the one drift" \
	"dcbt0 chain DSCP 26 → prio 3 → TC 3 → buffer 1, but PFC is off on priority 3" \
	"$(jq -r '[.drift[] | "\(.interface) \(.field) \(.found)"] | join("|")' "$TMP/out")"
assert_eq "chain break" pfc_off "$(chain break)"
dcb_set pfc set dev "$IF" prio-pfc 3:on
dcb_set buffer set dev "$IF" buffer-size 1:10000
fab -j verify "$TMP/pv.yaml"
assert_eq "verify pv, small buffer: exit status" 1 "$rc"
assert_eq "verify pv, small buffer: the one drift" \
	"dcbt0 chain DSCP 26 → prio 3 → TC 3 → buffer 1, but buffer 1 is 10000 bytes, under the 18588 a lossless buffer needs for 10 m at 40000 Mb/s, MTU 1500" \
	"$(jq -r '[.drift[] | "\(.interface) \(.field) \(.found)"] | join("|")' "$TMP/out")"
assert_eq "chain break" buffer_small "$(chain break)"
dcb_set buffer set dev "$IF" buffer-size 1:131072

# --- 5. a pinned GID index --------------------------------------------------
printf 'interfaces:\n  - match: %s\n    roce: {tos: 106, gid_index: %s}\n' "$IF" "$GID" >"$TMP/pg.yaml"
fab -j verify "$TMP/pg.yaml"
assert_eq "verify gid pinned to sysfs's index: exit status" 0 "$rc"
printf 'interfaces:\n  - match: %s\n    roce: {tos: 106, gid_index: %s}\n' "$IF" "$((GID + 1))" >"$TMP/pg.yaml"
fab -j verify "$TMP/pg.yaml"
assert_eq "verify gid pinned elsewhere: exit status" 1 "$rc"
assert_eq "gid pin drift" "the RoCE v2 GID of $ADDR is index $GID on rxe_dcbt0/1, not $((GID + 1))" \
	"$(drift_found chain)"
fab status
grep -qF "    chain dcbt0 (rxe_dcbt0/1) ok: DSCP 26 → prio 3 → TC 3 → buffer 1, PFC on; GID $GID ($ADDR)" "$TMP/out" ||
	fail "status: no chain line for rxe_dcbt0/1"
echo "32-dcb-chain: all checks passed"
