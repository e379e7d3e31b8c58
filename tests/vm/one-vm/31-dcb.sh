#!/bin/bash
# DCB through fabricctl against the kernel's real DCB netlink code
# (net/dcb/dcbnl.c), on dcbt0 of tests/vm/dcbtest (a netdev with IEEE DCB
# ops), cross-checked both ways with iproute2's dcb(8):
#  1. fabricctl apply sets PFC, ETS and the DSCP->priority APP table;
#     `dcb -j pfc|ets|app show` reads back exactly those values; verify
#     passes; a second apply changes nothing;
#  2. dcb(8) changes PFC, ETS and the APP table; fabricctl verify reports
#     each drift (exit 1), and passes against a profile of dcb's values;
#  3. a failing step rolls back: the driver refuses an ETS map (prio on a
#     TC the "4-TC NIC" lacks), the PFC change made by the step before is
#     undone (dcb -j shows the old PFC), exit 3 with the driver's refusal;
#  4. the driver refuses ETS bandwidths that do not sum to 100 (through
#     nl_dcb directly: fabricctl's profile loader and dcb(8) both refuse
#     that before the kernel sees it), and nothing changes;
#  5. the app-trust table: Linux 6.1 has no DCB_ATTR_DCB_APP_TRUST_TABLE,
#     apply says so clearly (exit 3), verify reports it unknown.
# Runs inside the VM (tests/vm/run-tests tests/vm/one-vm/31-dcb.sh).
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need
need_cmd dcb jq ip
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make)"

TMP=$(mktemp -d)
cleanup() {
	set +e
	grep -q '^dcbtest ' /proc/modules && rmmod dcbtest
	rm -rf "$TMP"
}
trap cleanup EXIT

# The module and the tests-only driver are built on the host by
# tests/vm/dcbtest/build (the VM has no network to fetch headers); with
# the headers cached it can also build here, slowly.
KO=$TOP/tests/vm/dcbtest/out/$(uname -r)/dcbtest.ko
FABNL=$TOP/build/rel/fabnl
if [ ! -f "$KO" ] || [ ! -x "$FABNL" ]; then
	[ -f "$TOP/tests/vm/dcbtest/cache/$(uname -r)/stamp" ] ||
		fail "dcbtest.ko for $(uname -r) not built: run tests/vm/dcbtest/build on the host first"
	eval "$(VM_KVER=$(uname -r) run "$TOP/tests/vm/dcbtest/build" | grep -E '^(DCBTEST_KO|FABNL)=')"
	KO=$DCBTEST_KO
fi
grep -q '^dcbtest ' /proc/modules && run rmmod dcbtest
run insmod "$KO" pairs=1
run ip link set dcbt0 up
run ip link set dcbt1 up
IF=dcbt0

fab() { # fab ARGS...: sets rc; stdout in $TMP/out, stderr in $TMP/err
	pretty "$FABRICCTL $*"
	rc=0
	"$FABRICCTL" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/out" "$TMP/err" >&2
}
# iproute2 6.1's dcb takes seq = time(NULL) and leaves its GET's ack unread:
# when a second boundary falls between its GET and its SET it reads that
# stale ack as the answer and fails with EPROTO ("Protocol error").  Its
# set commands are idempotent, so retry exactly that failure.
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
pfc_json() { dcb -j pfc show dev "$IF" | jq -c '[.prio_pfc[] | if . then 1 else 0 end]'; }
ets_json() { dcb -j ets show dev "$IF" | jq -c '{tc_bw, tc_tsa, prio_tc}'; }
app_json() { dcb -j app show dev "$IF" | jq -c '.dscp_prio // [] | sort'; }
drift_found() { jq -r --arg i "$IF" --arg f "$1" '.drift[] | select(.interface == $i and .field == $f) | .found' "$TMP/out"; }

cat >"$TMP/p1.yaml" <<YAML
interfaces:
  - match: "$IF"
    pfc:
      enable: [3, 5]
    ets:
      prio_tc: [0, 0, 0, 1, 0, 1, 0, 0]
      tc_bw:   [60, 40, 0, 0, 0, 0, 0, 0]
      tsa:     [ets, ets, strict, strict, strict, strict, strict, strict]
    dscp_map: {26: 3, 46: 5}
YAML

# --- 1. fabricctl sets, dcb(8) reads ---------------------------------------
assert_eq "pfc before" "[0,0,0,0,0,0,0,0]" "$(pfc_json)"
fab verify "$TMP/p1.yaml"
assert_eq "verify before apply: exit status" 1 "$rc"
fab apply "$TMP/p1.yaml"
assert_eq "apply p1: exit status" 0 "$rc"
assert_eq "dcb pfc after apply" "[0,0,0,1,0,1,0,0]" "$(pfc_json)"
assert_eq "dcb ets after apply" \
	'{"tc_bw":[60,40,0,0,0,0,0,0],"tc_tsa":["ets","ets","strict","strict","strict","strict","strict","strict"],"prio_tc":[0,0,0,1,0,1,0,0]}' \
	"$(ets_json)"
assert_eq "dcb app after apply" "[[26,3],[46,5]]" "$(app_json)"
fab -j verify "$TMP/p1.yaml"
assert_eq "verify after apply: exit status" 0 "$rc"
assert_eq "verify after apply: n_drift" 0 "$(jq -r .n_drift "$TMP/out")"
fab -j apply "$TMP/p1.yaml"
assert_eq "second apply: exit status" 0 "$rc"
assert_eq "second apply: no steps" 0 "$(jq -r '.steps | length' "$TMP/out")"

# --- 2. dcb(8) sets, fabricctl verifies ------------------------------------
dcb_set pfc set dev "$IF" prio-pfc 3:off 4:on
dcb_set ets set dev "$IF" tc-bw 0:70 1:30
dcb_set app del dev "$IF" dscp-prio 26:3
dcb_set app add dev "$IF" dscp-prio 26:2
assert_eq "dcb pfc after dcb set" "[0,0,0,0,1,1,0,0]" "$(pfc_json)"
fab -j verify "$TMP/p1.yaml"
assert_eq "verify after dcb changes: exit status" 1 "$rc"
assert_eq "verify: pfc.enable found" "4,5" "$(drift_found pfc.enable)"
assert_eq "verify: dscp_map.26 found" "2" "$(drift_found dscp_map.26)"
[ -n "$(jq -r --arg i "$IF" '.drift[] | select(.interface == $i and (.field | startswith("ets"))) | .field' "$TMP/out")" ] ||
	fail "verify: no ets drift after dcb set tc-bw 0:70 1:30"
assert_eq "verify: drift count (pfc, ets tc_bw, dscp 26)" 3 "$(jq -r .n_drift "$TMP/out")"
cat >"$TMP/p2.yaml" <<YAML
interfaces:
  - match: "$IF"
    pfc: {enable: [4, 5]}
    ets:
      prio_tc: [0, 0, 0, 1, 0, 1, 0, 0]
      tc_bw:   [70, 30, 0, 0, 0, 0, 0, 0]
      tsa:     [ets, ets, strict, strict, strict, strict, strict, strict]
    dscp_map: {26: 2, 46: 5}
YAML
fab verify "$TMP/p2.yaml"
assert_eq "verify against dcb's values: exit status" 0 "$rc"

# --- 3. a refused step rolls back the steps before it ----------------------
fab apply "$TMP/p1.yaml"
assert_eq "apply p1 again: exit status" 0 "$rc"
assert_eq "dcb pfc back to p1" "[0,0,0,1,0,1,0,0]" "$(pfc_json)"
run sh -c 'echo 4 >/sys/module/dcbtest/parameters/tcs'	# now a 4-TC NIC
cat >"$TMP/p3.yaml" <<YAML
interfaces:
  - match: "$IF"
    pfc: {enable: [1]}
    ets:
      prio_tc: [0, 0, 0, 1, 0, 5, 0, 0]
      tc_bw:   [60, 40, 0, 0, 0, 0, 0, 0]
      tsa:     [ets, ets, strict, strict, strict, strict, strict, strict]
YAML
fab apply "$TMP/p3.yaml"
assert_eq "apply p3 (ets refused): exit status" 3 "$rc"
grep -qF "dcb: $IF: set ets: Invalid argument (rejected by driver): priority 5 maps to tc 5, the device has 4 tcs" "$TMP/err" ||
	fail "apply p3: the driver's refusal is not in the message"
assert_eq "dcb pfc after the rollback (p1's, not p3's)" "[0,0,0,1,0,1,0,0]" "$(pfc_json)"
assert_eq "dcb ets after the rollback" \
	'{"tc_bw":[60,40,0,0,0,0,0,0],"tc_tsa":["ets","ets","strict","strict","strict","strict","strict","strict"],"prio_tc":[0,0,0,1,0,1,0,0]}' \
	"$(ets_json)"
run sh -c 'echo 8 >/sys/module/dcbtest/parameters/tcs'

# --- 4. the driver refuses ETS bandwidths that do not sum to 100 -----------
rc=0
run "$FABNL" ets-set "$IF" 50,40,0,0,0,0,0,0 e,e,s,s,s,s,s,s 0,0,0,1,0,1,0,0 2>"$TMP/err" || rc=$?
cat "$TMP/err" >&2
assert_eq "ets 50+40 via nl_dcb: exit status" 3 "$rc"
grep -qF "dcb: $IF: set ets: Invalid argument (rejected by driver): ets bandwidths sum to 90%, not 100%" "$TMP/err" ||
	fail "ets 50+40: message"
assert_eq "dcb ets unchanged after the refusal" \
	'{"tc_bw":[60,40,0,0,0,0,0,0],"tc_tsa":["ets","ets","strict","strict","strict","strict","strict","strict"],"prio_tc":[0,0,0,1,0,1,0,0]}' \
	"$(ets_json)"

# --- 5. app-trust table: absent in Linux 6.1 -------------------------------
cat >"$TMP/p4.yaml" <<YAML
interfaces:
  - match: "$IF"
    trust: [dscp]
YAML
fab apply "$TMP/p4.yaml"
case $(uname -r) in
6.[0-2].*|[1-5].*)
	assert_eq "apply trust on $(uname -r): exit status" 3 "$rc"
	grep -qF "dcb: $IF: app-trust table not supported by kernel $(uname -r) (DCB_ATTR_DCB_APP_TRUST_TABLE needs linux >= 6.3)" "$TMP/err" ||
		fail "apply trust: message does not say the kernel lacks the trust table"
	;;
*)
	# dcbtest has no dcbnl_setapptrust op, so a newer kernel says driver.
	assert_eq "apply trust on $(uname -r): exit status" 3 "$rc"
	grep -qF "dcb: $IF: app-trust table not supported by driver" "$TMP/err" || fail "apply trust: message"
	;;
esac
fab -j verify "$TMP/p4.yaml"
assert_eq "verify trust: exit status" 1 "$rc"
pretty "trust drift: $(drift_found trust)"
case $(drift_found trust) in unknown*) ;; *) fail "verify trust: found is not unknown: $(drift_found trust)" ;; esac

# --- 6. the module's other DCB ops, through dcb(8) --------------------------
dcb_set maxrate set dev "$IF" tc-maxrate 1:10Gbit
assert_eq "dcb maxrate tc 1 (bytes/s in dcb -j)" 1250000000 "$(dcb -j maxrate show dev "$IF" | jq -r '.tc_maxrate[1]')"
dcb_set buffer set dev "$IF" prio-buffer 3:1 5:1 buffer-size 1:256K
assert_eq "dcb buffer prio 3" 1 "$(dcb -j buffer show dev "$IF" | jq -r '.prio_buffer[3]')"
assert_eq "dcb buffer size 1" 262144 "$(dcb -j buffer show dev "$IF" | jq -r '.buffer_size[1]')"
assert_eq "dcb dcbx" '["host","ieee"]' "$(dcb -j dcbx show dev "$IF" | jq -c '[to_entries[] | select(.value) | .key] | sort')"
echo "31-dcb: all checks passed"
