#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# Apply fault injection (issue 9): a four-step plan (the MTU of four veths;
# a veth has no DCB, ECN or RoCE, and this kernel may have no bonding) is
# stopped at every step boundary (before step 1..4, and after the last)
# by SIGINT, SIGTERM, SIGHUP and SIGKILL.  Afterwards, with at most one
# `fabricctl confirm --revert` or the next apply's recovery, every link's
# MTU equals the snapshot taken before the apply, and no pending state is
# left.  The same for `apply --try` killed at every boundary, and with
# each signal once the reverter is started but before its pending state
# is written (SIGKILL there: the reverter itself undoes the journal at its
# deadline).  The test-only hook FABRICCTL_TEST_STEP_PAUSE=N makes apply
# wait before step N (N = steps + 2: while arming the try) for a signal
# (fabricctl-apply(8)).
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl

NS=flt$$
tmpdir_with_cleanup
export FABRICCTL_RUNDIR=$TMP/run
PENDING=$FABRICCTL_RUNDIR/pending.json
cleanup_hook() {
	local p
	for p in $(cat "$TMP/pids" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
	ip netns del "$NS" 2>/dev/null || true
}

run ip netns add "$NS"
for i in 0 1 2 3; do
	run ip -n "$NS" link add "eth$i" mtu $((1500 + i)) type veth peer name "p$i"
done
run ip -n "$NS" link set eth0 up
run ip -n "$NS" link set p0 up

cat >"$TMP/plan.yaml" <<'Y'
interfaces:
  - match: [eth0, eth1, eth2, eth3]
    mtu: 9000
Y
# A profile with nothing to change: an apply of it only recovers.
printf 'interfaces:\n  - match: p0\n    mtu: 1500\n' >"$TMP/noop.yaml"
STEPS=4

# Every link and its MTU, one line.
state() { ip -n "$NS" -j link show | jq -r '[.[] | "\(.ifname)=\(.mtu)"] | sort | join(" ")'; }

# paused_apply N [ARGS...]: apply stopped before step N; its pid in $APID.
paused_apply() {
	local n=$1 i=0
	shift
	: >"$TMP/err"
	# A script's background job starts with SIGINT ignored: give it the default back.
	FABRICCTL_TEST_STEP_PAUSE=$n env --default-signal=INT,TERM,HUP \
		ip netns exec "$NS" "$FABRICCTL" apply "$@" "$TMP/plan.yaml" >"$TMP/out" 2>"$TMP/err" &
	APID=$!
	until grep -q "paused before step $n " "$TMP/err"; do
		i=$((i + 1))
		[ "$i" -le 500 ] || fail "apply did not pause before step $n: $(cat "$TMP/err")"
		kill -0 "$APID" 2>/dev/null || fail "apply ended before step $n: $(cat "$TMP/err")"
		sleep 0.01
	done
}

# One fault: SIG at boundary N; RECOVER (for SIGKILL) is "confirm",
# "apply" or "reverter" (wait for the reverter's deadline, --try 2).
fault() {
	local sig=$1 n=$2 recover=$3 mode=$4 before want rc_want i=0
	before=$(state)
	if [ "$mode" = try ]; then
		paused_apply "$n" --try "$([ "$recover" = reverter ] && echo 2 || echo 30)"
	else
		paused_apply "$n"
	fi
	[ "$n" -gt 1 ] && [ "$(state)" = "$before" ] && fail "boundary $n: no step done before the pause"
	kill "-$sig" "$APID"
	rc=0
	{ wait "$APID"; } 2>/dev/null || rc=$?	# no "Killed" job notice
	case $sig in INT) rc_want=130 ;; TERM) rc_want=143 ;; HUP) rc_want=129 ;; KILL) rc_want=137 ;; esac
	[ "$rc" = "$rc_want" ] || { cat "$TMP/out" "$TMP/err" >&2; fail "$mode SIG$sig before step $n: rc $rc, want $rc_want"; }
	if [ "$sig" = KILL ]; then
		[ -s "$PENDING" ] || fail "$mode SIGKILL before step $n: no journal left"
		if [ "$recover" = confirm ]; then
			fab_ns "$NS" confirm --revert
			assert_eq "$mode SIGKILL before step $n: confirm --revert rc" 0 "$rc"
		elif [ "$recover" = reverter ]; then
			while [ -e "$PENDING" ]; do
				i=$((i + 1))
				[ "$i" -le 200 ] || fail "SIGKILL while arming: the reverter did not undo the journal"
				sleep 0.05
			done
			grep -q '^reverted 4 step(s) at deadline' "$FABRICCTL_RUNDIR/last-revert.log" ||
				fail "revert log: $(cat "$FABRICCTL_RUNDIR/last-revert.log")"
		else
			fab_ns "$NS" apply "$TMP/noop.yaml"
			assert_eq "$mode SIGKILL before step $n: next apply rc" 0 "$rc"
			grep -q 'interrupted apply had left its journal' "$TMP/err" ||
				fail "$mode SIGKILL before step $n: the next apply did not say it recovered"
		fi
	elif [ "$n" -le $((STEPS + 1)) ]; then
		grep -q "interrupted by SIG$sig before step $n of $STEPS" "$TMP/err" ||
			fail "$mode SIG$sig before step $n: $(cat "$TMP/err")"
	else
		grep -q "interrupted by SIG$sig while arming the try; rolled back" "$TMP/err" ||
			fail "$mode SIG$sig while arming: $(cat "$TMP/err")"
	fi
	assert_eq "$mode SIG$sig before step $n: state" "$before" "$(state)"
	[ ! -e "$PENDING" ] || fail "$mode SIG$sig before step $n: pending state left: $(cat "$PENDING")"
	# Nothing left running in the namespace either (a reverter with nothing to do is stopped).
	i=0
	while [ -n "$(ip netns pids "$NS")" ]; do
		i=$((i + 1))
		[ "$i" -le 100 ] || fail "$mode SIG$sig before step $n: left running: $(ip netns pids "$NS" | xargs ps -o pid=,args= -p)"
		sleep 0.02
	done
}

t0=$(date +%s)
snapshot=$(state)
for n in $(seq 1 $((STEPS + 1))); do
	for sig in INT TERM HUP; do fault "$sig" "$n" - apply; done
	fault KILL "$n" "$([ $((n % 2)) = 1 ] && echo confirm || echo apply)" apply
	fault KILL "$n" confirm try
done
for sig in INT TERM HUP; do fault "$sig" $((STEPS + 2)) - try; done
fault KILL $((STEPS + 2)) reverter try
assert_eq "state after every fault" "$snapshot" "$(state)"

# The hook off, the same plan applies whole (the faults left nothing behind).
fab_ns "$NS" apply "$TMP/plan.yaml"
assert_eq "clean apply rc" 0 "$rc"
assert_eq "clean apply" "eth0=9000 eth1=9000 eth2=9000 eth3=9000" \
	"$(state | tr ' ' '\n' | grep '^eth' | tr '\n' ' ' | sed 's/ $//')"
echo "apply-faults: $(( (STEPS + 1) * 5 + 4 )) faults, node as before each time, $(( $(date +%s) - t0 )) s"
