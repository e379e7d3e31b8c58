#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# The pending state of `apply --try` against faults (issue 9): a damaged
# pending file must not cancel the automatic revert (item 5).  Real
# binary, a veth pair in a private namespace.  A signal in the middle of
# a plan rolls it back; SIGKILL leaves a journal that confirm --revert
# undoes (item 12; every step boundary: apply-faults.sh).
# Usage: apply-pending.sh [ITEM...]  (default: every item)
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl

NS=pend$$
tmpdir_with_cleanup
export FABRICCTL_RUNDIR=$TMP/run	# pending state of --try, private to this run
PENDING=$FABRICCTL_RUNDIR/pending.json
cleanup_hook() {
	# Reverters still sleeping belong to this run: stop them by their pids.
	local p
	for p in $(cat "$TMP/pids" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
	ip netns del "$NS" 2>/dev/null || true
}

run ip netns add "$NS"
run ip -n "$NS" link add eth0 type veth peer name p0
run ip -n "$NS" link set eth0 up
run ip -n "$NS" link set p0 up
run ip -n "$NS" link add eth1 type veth peer name p1
run ip -n "$NS" link add eth2 type veth peer name p2

fab() { fab_ns "$NS" "$@"; }
mtu_of() { ip -n "$NS" -j link show "$1" | jq -r '.[0].mtu'; }
# wait_gone PID SECONDS: explicit readiness, the process has exited.
wait_gone() {
	local i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -le $(( $2 * 20 )) ] || fail "process $1 still running after $2 s"
		sleep 0.05
	done
}
# try SECS: apply --try SECS of the MTU profile; the reverter's pid in $RPID.
try() {
	fab apply --try "$1" "$TMP/mtu.yaml"
	assert_eq "apply --try $1 rc" 0 "$rc"
	assert_eq "mtu during try" 9000 "$(mtu_of eth0)"
	RPID=$(jq -r .pid "$PENDING")
	echo "$RPID" >>"$TMP/pids"
}

printf 'interfaces:\n  - match: eth0\n    mtu: 9000\n' >"$TMP/mtu.yaml"
printf 'interfaces:\n  - match: [eth0, eth1, eth2]\n    mtu: 9000\n' >"$TMP/mtu3.yaml"
assert_eq "start mtu" 1500 "$(mtu_of eth0)"

# --- item 5: confirm --revert on a damaged pending file ------------------
item5() {
try 60
cp "$PENDING" "$TMP/good.json"
head -c 40 "$TMP/good.json" >"$PENDING"	# cut short: not JSON any more
fab confirm --revert
assert_eq "confirm --revert on a damaged file rc" 3 "$rc"
grep -q 'pending state is damaged' "$TMP/err" || fail "confirm does not say the file is damaged"
grep -q 'automatic revert stays armed' "$TMP/err" || fail "confirm does not say the revert stays armed"
[ -f "$PENDING" ] || fail "the damaged pending file was moved away (the revert is cancelled)"
cmp -s "$PENDING" <(head -c 40 "$TMP/good.json") || fail "the damaged pending file was changed"
kill -0 "$RPID" 2>/dev/null || fail "the reverter was stopped"
assert_eq "mtu kept while damaged" 9000 "$(mtu_of eth0)"
fab confirm
assert_eq "confirm on a damaged file rc" 3 "$rc"
[ -f "$PENDING" ] || fail "confirm moved the damaged pending file away"
fab apply "$TMP/mtu.yaml"
assert_eq "apply while a damaged try is pending rc" 3 "$rc"
grep -q 'a try is pending' "$TMP/err" || fail "apply did not refuse while a damaged try is pending"
# Repaired, the same try is still there to revert.
cp "$TMP/good.json" "$PENDING"
fab confirm --revert
assert_eq "confirm --revert after repair rc" 0 "$rc"
assert_eq "mtu after revert" 1500 "$(mtu_of eth0)"
wait_gone "$RPID" 10

# The reverter itself at its deadline leaves a damaged file in place (and
# says so in its log) rather than dropping it unreverted.
try 3
printf '{"schema": ' >"$PENDING"
wait_gone "$RPID" 15
[ -f "$PENDING" ] || fail "the reverter dropped a damaged pending file"
grep -q 'NOT reverted, left in place' "$FABRICCTL_RUNDIR/last-revert.log" ||
	fail "revert log: $(cat "$FABRICCTL_RUNDIR/last-revert.log" 2>/dev/null)"
fab apply "$TMP/mtu.yaml"
assert_eq "apply after the reverter met a damaged file rc" 3 "$rc"
rm -f "$PENDING"
run ip -n "$NS" link set eth0 mtu 1500
}

# --- item 6: confirm must not SIGTERM a process that reuses the pid ------
# The reverter dies; its pid now names another process running the same
# binary (a worker, as a sweep or fleet job would run).  Simulated by
# pointing the pending file's pid at such a process.
item6() {
try 60
kill "$RPID"
wait_gone "$RPID" 10
"$FABRICCTL" worker < <(sleep 60) >/dev/null 2>&1 &
W=$!
echo "$W" >>"$TMP/pids"
i=0
until [ "$(readlink "/proc/$W/exe" 2>/dev/null)" = "$(readlink -f "$FABRICCTL")" ]; do
	i=$((i + 1)); [ "$i" -le 100 ] || fail "the stand-in worker did not start"; sleep 0.05
done
jq --argjson w "$W" '.pid = $w' "$PENDING" >"$TMP/p.json" && cat "$TMP/p.json" >"$PENDING"
fab confirm
assert_eq "confirm rc" 0 "$rc"
sleep 0.3
kill -0 "$W" 2>/dev/null || fail "confirm killed an unrelated fabricctl process (pid $W) that reused the reverter's pid"
kill "$W"
# The real reverter, still alive, is stopped by confirm as before.
run ip -n "$NS" link set eth0 mtu 1500
try 60
fab confirm
assert_eq "confirm rc" 0 "$rc"
wait_gone "$RPID" 10
assert_eq "mtu after confirm" 9000 "$(mtu_of eth0)"
run ip -n "$NS" link set eth0 mtu 1500
}

# --- item 14: undo under the apply lock; --try 1 against a slow write ----
# hold_lock SECONDS: another process holds the node's apply lock (flock(1)
# on the same file, as an apply in progress would); its pid in $HOLDER.
hold_lock() {
	mkdir -p "$FABRICCTL_RUNDIR"
	flock "$FABRICCTL_RUNDIR/lock" sleep "$1" &
	HOLDER=$!
	echo "$HOLDER" >>"$TMP/pids"
	local i=0
	until ! flock -n "$FABRICCTL_RUNDIR/lock" true; do
		i=$((i + 1)); [ "$i" -le 100 ] || fail "lock holder did not start"; sleep 0.05
	done
}
item14() {
# The reverter's deadline passes while the lock is held: it waits.
try 2
hold_lock 5
sleep 3.5
assert_eq "mtu while the lock is held past the deadline" 9000 "$(mtu_of eth0)"
[ -f "$PENDING" ] || fail "the reverter acted while the apply lock was held"
wait_gone "$HOLDER" 10
wait_gone "$RPID" 10
assert_eq "mtu after the lock is released" 1500 "$(mtu_of eth0)"
[ ! -e "$PENDING" ] || fail "pending state left behind"

# confirm --revert while the lock is held (longer than confirm waits): refused, nothing undone.
try 60
hold_lock 6
fab confirm --revert
assert_eq "confirm --revert under a held lock rc" 3 "$rc"
grep -q 'another apply is running' "$TMP/err" || fail "confirm --revert does not say the lock is held"
assert_eq "mtu untouched under the lock" 9000 "$(mtu_of eth0)"
[ -f "$PENDING" ] || fail "pending state gone under a held lock"
kill -0 "$RPID" 2>/dev/null || fail "the reverter was stopped under a held lock"
wait_gone "$HOLDER" 10
fab confirm --revert
assert_eq "confirm --revert after the lock is released rc" 0 "$rc"
assert_eq "mtu after confirm --revert" 1500 "$(mtu_of eth0)"
wait_gone "$RPID" 10

# --try 1 with the pending file's write slowed down (strace delays every
# rename(2) of the apply by 1.5 s): the reverter's deadline passes before
# the pending state is in place; it must still revert, not leave changes
# and a pending state with no reverter.
if command -v strace >/dev/null; then
	rc=0
	ip netns exec "$NS" strace -o /dev/null -e trace=rename,renameat,renameat2 \
		-e inject=rename,renameat,renameat2:delay_enter=1500000 \
		"$FABRICCTL" apply --try 1 "$TMP/mtu.yaml" >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/out" "$TMP/err" >&2
	assert_eq "slow --try 1 rc" 0 "$rc"
	RPID=$(jq -r .pid "$PENDING" 2>/dev/null || echo 0)
	[ "$RPID" = 0 ] || { echo "$RPID" >>"$TMP/pids"; wait_gone "$RPID" 15; }
	assert_eq "mtu after a slow --try 1" 1500 "$(mtu_of eth0)"
	[ ! -e "$PENDING" ] || fail "--try 1: pending state left with no reverter: $(cat "$PENDING")"
else
	echo "strace not installed: --try 1 race not exercised" >&2
fi
}

# --- item 12: a signal in the middle of a plan -------------------------------
# Three MTU steps, each netlink request slowed by 400 ms (strace delay
# injection, no test hook): once step 1 shows, SIG arrives during step 2.
mtus() { ip -n "$NS" -j link show | jq -r '[.[] | select(.ifname | test("^eth")) | "\(.ifname)=\(.mtu)"] | sort | join(" ")'; }
signal_mid_plan() {
	local sig=$1 s f i=0
	# A script's background job starts with SIGINT ignored: give it the default back.
	env --default-signal=INT,TERM,HUP ip netns exec "$NS" strace -o /dev/null -e trace=sendto,sendmsg \
		-e inject=sendto,sendmsg:delay_enter=400000 \
		"$FABRICCTL" apply "$TMP/mtu3.yaml" >"$TMP/out" 2>"$TMP/err" &
	s=$!
	until [ "$(mtu_of eth0)" = 9000 ]; do
		i=$((i + 1)); [ "$i" -le 1000 ] || fail "step 1 never happened"; sleep 0.02
	done
	# The apply itself (strace's child): its exact command line.
	f=$(pgrep -f -x "$FABRICCTL apply $TMP/mtu3.yaml") || fail "no apply process (step 1 done): $(cat "$TMP/err")"
	[ "$(echo "$f" | wc -l)" = 1 ] || fail "several apply processes: $f"
	pretty "kill -$sig $f (apply, step 1 done)"
	kill "-$sig" "$f"
	rc=0
	wait "$s" || rc=$?
	cat "$TMP/out" "$TMP/err" >&2
}
item12() {
need_cmd strace pgrep
local before sig n
before=$(mtus)
for sig in INT:130 TERM:143 HUP:129; do
	n=${sig#*:}
	sig=${sig%:*}
	signal_mid_plan "$sig"
	assert_eq "apply rc after SIG$sig" "$n" "$rc"
	assert_eq "MTUs after SIG$sig mid-plan" "$before" "$(mtus)"
	grep -q "interrupted by SIG$sig" "$TMP/err" || fail "apply does not say SIG$sig interrupted it"
	[ ! -e "$PENDING" ] || fail "journal left after a rolled-back SIG$sig"
done
signal_mid_plan KILL
assert_eq "apply rc after SIGKILL" 137 "$rc"
fab confirm --revert
assert_eq "confirm --revert after SIGKILL rc" 0 "$rc"
assert_eq "MTUs after SIGKILL and confirm --revert" "$before" "$(mtus)"
[ ! -e "$PENDING" ] || fail "journal left after confirm --revert"
}

# Arguments: the items to run (default all), e.g. "6" against an old binary.
for item in "${@:-5 6 14 12}"; do
	for i in $item; do "item$i"; done
done
echo "apply-pending: all checks passed"
