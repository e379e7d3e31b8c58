#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# A pending try whose reverter was killed (issue 22, item 12): `apply
# --try 3`, then `kill -9` of the reverter.  Nobody reverts it at the
# deadline any more; apply, confirm and status must see that.  Real
# binary, veths in a private network namespace, a private run directory.
#   1. Past the deadline: status says it was NOT reverted and what to run
#      (and changes nothing); the next apply (of another profile) reverts
#      the try first, says so, logs it, then applies.
#   2. Past the deadline: confirm is too late: it reverts (as the reverter
#      would have), exit 1, says so, logs it.  confirm --revert: exit 0.
#   3. Before the deadline: status says nothing will revert it; apply
#      refuses naming both confirm commands (logged); confirm keeps it
#      (logged).
# On 8419e42: status silent, apply refuses with the dead pid and a past
# time, confirm "confirmed" a try past its deadline, nothing logged.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl

NS=lrev$$
tmpdir_with_cleanup
export FABRICCTL_RUNDIR=$TMP/run
PENDING=$FABRICCTL_RUNDIR/pending.json
LOG=$FABRICCTL_RUNDIR/last-revert.log
cleanup_hook() {
	local p
	for p in $(cat "$TMP/pids" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
	ip netns del "$NS" 2>/dev/null || true
}
run ip netns add "$NS"
run ip -n "$NS" link add eth0 type veth peer name p0
run ip -n "$NS" link add eth1 type veth peer name p1
fab() { fab_ns "$NS" "$@"; }
mtu_of() { ip -n "$NS" -j link show "$1" | jq -r '.[0].mtu'; }
printf 'interfaces:\n  - match: eth0\n    mtu: 9000\n' >"$TMP/mtu0.yaml"
printf 'interfaces:\n  - match: eth1\n    mtu: 9000\n' >"$TMP/mtu1.yaml"

# killed_try: apply --try 3 of mtu0, then kill -9 its reverter (gone for sure).
killed_try() {
	local i=0
	fab apply --try 3 "$TMP/mtu0.yaml"
	assert_eq "apply --try rc" 0 "$rc"
	assert_eq "eth0 during the try" 9000 "$(mtu_of eth0)"
	RPID=$(jq -r .pid "$PENDING")
	DEADLINE=$(jq -r .deadline "$PENDING")
	echo "$RPID" >>"$TMP/pids"
	run kill -9 "$RPID"
	while kill -0 "$RPID" 2>/dev/null; do
		i=$((i + 1)); [ "$i" -le 200 ] || fail "reverter $RPID still there"; sleep 0.05
	done
}
# past_deadline: the wall clock is past the try's deadline (and a second more).
past_deadline() {
	while [ "$(date +%s)" -le "$DEADLINE" ]; do sleep 0.2; done
	assert_eq "eth0 after the deadline, reverter killed" 9000 "$(mtu_of eth0)"
}
log_has() { grep -q -- "$1" "$LOG" 2>/dev/null || fail "not logged: '$1'; log: $(cat "$LOG" 2>/dev/null)"; }

# 1. Past the deadline: status, then apply.
killed_try
past_deadline
fab status
assert_eq "status rc" 0 "$rc"
grep -q "lost its reverter (pid $RPID, not running): its deadline .* has passed and it was NOT reverted; run 'fabricctl confirm --revert'" "$TMP/err" ||
	fail "status does not say the try was not reverted"
assert_eq "eth0 after status" 9000 "$(mtu_of eth0)"
fab apply "$TMP/mtu1.yaml"
assert_eq "apply after a killed reverter's deadline rc" 0 "$rc"
grep -q "had lost its reverter (pid $RPID): reverted its 1 step(s) first" "$TMP/err" ||
	fail "apply does not say it reverted the try first"
assert_eq "eth0 reverted by apply" 1500 "$(mtu_of eth0)"
assert_eq "eth1 applied" 9000 "$(mtu_of eth1)"
[ ! -e "$PENDING" ] || fail "pending state left"
log_has "the reverter (pid $RPID) was dead; apply (pid [0-9]*) reverted 1 step(s) in its place: ok"
run ip -n "$NS" link set eth1 mtu 1500

# 2. Past the deadline: confirm is too late; confirm --revert.
killed_try
past_deadline
fab confirm
assert_eq "confirm past the deadline rc" 1 "$rc"
grep -q "^reverted 1 change(s) (the automatic revert due at .*: its reverter, pid $RPID, had died)" "$TMP/out" ||
	fail "confirm does not say it reverted"
grep -q "too late to confirm" "$TMP/err" || fail "confirm does not say it came too late"
assert_eq "eth0 reverted by confirm" 1500 "$(mtu_of eth0)"
[ ! -e "$PENDING" ] || fail "pending state left"
log_has "the reverter (pid $RPID) was dead; confirm (pid [0-9]*) reverted 1 step(s) in its place: ok"
killed_try
past_deadline
fab confirm --revert
assert_eq "confirm --revert past the deadline rc" 0 "$rc"
assert_eq "eth0 reverted by confirm --revert" 1500 "$(mtu_of eth0)"
log_has "the reverter (pid $RPID) was dead; confirm --revert (pid [0-9]*) reverted 1 step(s) in its place: ok"

# 3. Before the deadline (a long try): status, apply, confirm.
fab apply --try 600 "$TMP/mtu0.yaml"
assert_eq "apply --try 600 rc" 0 "$rc"
RPID=$(jq -r .pid "$PENDING")
echo "$RPID" >>"$TMP/pids"
run kill -9 "$RPID"
while kill -0 "$RPID" 2>/dev/null; do sleep 0.05; done
fab status
grep -q "lost its reverter (pid $RPID, not running): nothing will revert it at .*; run 'fabricctl confirm' to keep it or 'fabricctl confirm --revert' to undo it" "$TMP/err" ||
	fail "status does not say nothing will revert the try"
fab apply "$TMP/mtu1.yaml"
assert_eq "apply before a killed reverter's deadline rc" 3 "$rc"
grep -q "lost its reverter (pid $RPID, not running): nothing will revert it" "$TMP/err" ||
	fail "apply does not say the reverter is dead"
assert_eq "eth1 untouched" 1500 "$(mtu_of eth1)"
log_has "the reverter (pid $RPID) was found dead by apply"
fab confirm
assert_eq "confirm before the deadline rc" 0 "$rc"
assert_eq "eth0 kept by confirm" 9000 "$(mtu_of eth0)"
log_has "the reverter (pid $RPID) was found dead by confirm (pid [0-9]*): kept by confirm"
echo "apply-reverter-killed: all checks passed"
