#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# fabricctl apply / verify / confirm against real veth links in a lab
# namespace (tests/lab/netns): drift found and fixed, idempotence, a real
# rollback (PFC on a veth fails in the kernel: the MTU changed by step 1
# must be restored), --dry-run changes nothing, --try reverts without
# confirm and stays with it, malformed profiles touch nothing.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=ap$$
tmpdir_with_cleanup
export FABRICCTL_RUNDIR=$TMP/run	# pending state of --try, private to this run
cleanup_hook() {
	# A reverter still sleeping belongs to this run: stop it by its pid.
	if [ -s "$TMP/reverter.pid" ]; then kill "$(cat "$TMP/reverter.pid")" 2>/dev/null || true; fi
	lab_down --name "$P"
}

run lab_up --name "$P" --hosts 1 --leaves 1 --spines 0 --mtu 1500 --no-lldp
H1=$(lab_ns h1)

fab() { fab_ns "$H1" "$@"; }
mtu_of() { ip -n "$H1" -j link show "$1" | jq -r '.[0].mtu'; }
# wait_gone PID SECONDS: explicit readiness, the process has exited.
wait_gone() {
	local i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -le $(( $2 * 20 )) ] || fail "process $1 still running after $2 s"
		sleep 0.05
	done
}

cat >"$TMP/mtu.yaml" <<'Y'
interfaces:
  - match: "eth*"
    mtu: 9000
Y
cat >"$TMP/pfc.yaml" <<'Y'
interfaces:
  - match: eth0
    mtu: 9000          # step 1: works on a veth
    pfc: {enable: [3]} # step 2: a veth has no DCB, the kernel says EOPNOTSUPP
Y
printf 'interfaces:\n  - match: eth0\n    mtu: 9000\n    pfc: {enable: [3, 3]}\n' >"$TMP/bad.yaml"

assert_eq "lab mtu" 1500 "$(mtu_of eth0)"

# 1. The shipped profile finds the MTU drift on a 1500 node.
fab -j verify "$TOP/profiles/roce-lossless.yaml"
assert_eq "verify roce-lossless rc" 1 "$rc"
assert_eq "schema" fabricctl.verify/1 "$(jq -r .schema "$TMP/out")"
assert_eq "mtu drift" "eth0 9000 1500" \
	"$(jq -r '.drift[] | select(.field == "mtu") | "\(.interface) \(.wanted) \(.found)"' "$TMP/out")"
fab verify "$TOP/profiles/roce-lossless.yaml"
assert_eq "verify text rc" 1 "$rc"
grep -Eq '^eth0 +mtu +9000 +1500' "$TMP/out" || fail "text verify does not list eth0 mtu 9000 1500"

# 2. --dry-run prints the plan and changes nothing.
fab -j apply --dry-run "$TMP/mtu.yaml"
assert_eq "dry-run rc" 0 "$rc"
assert_eq "dry-run plan" "eth0 mtu 1500 9000 planned" \
	"$(jq -r '.steps[] | "\(.object) \(.field) \(.from) \(.to) \(.status)"' "$TMP/out")"
assert_eq "mtu after dry-run" 1500 "$(mtu_of eth0)"

# 3. Apply the MTU part: the MTU drift is gone, the rest of the drift stays.
fab -j apply "$TMP/mtu.yaml"
assert_eq "apply rc" 0 "$rc"
assert_eq "apply changes" 1 "$(jq -r .changes "$TMP/out")"
assert_eq "mtu after apply" 9000 "$(mtu_of eth0)"
fab -j verify "$TOP/profiles/roce-lossless.yaml"
assert_eq "verify roce-lossless rc after mtu" 1 "$rc"
assert_eq "mtu drift after apply" "" "$(jq -r '.drift[] | select(.field == "mtu") | .interface' "$TMP/out")"
[ "$(jq '.drift | length' "$TMP/out")" -gt 0 ] || fail "non-MTU drift vanished"
fab verify "$TMP/mtu.yaml"
assert_eq "verify mtu rc" 0 "$rc"

# 4. Idempotence: the second plan is empty.
fab -j apply "$TMP/mtu.yaml"
assert_eq "second apply rc" 0 "$rc"
assert_eq "second apply changes" 0 "$(jq -r .changes "$TMP/out")"

# 4b. One apply at a time: while another process holds the node's apply
#     lock, apply refuses (flock(1) runs fabricctl inside the held lock).
mkdir -p "$FABRICCTL_RUNDIR"
run ip -n "$H1" link set eth0 mtu 1500
rc=0
flock "$FABRICCTL_RUNDIR/lock" ip netns exec "$H1" "$FABRICCTL" apply "$TMP/mtu.yaml" \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/err" >&2
assert_eq "apply under a held lock rc" 3 "$rc"
grep -q 'another apply is running' "$TMP/err" || fail "no 'another apply is running' message"
assert_eq "mtu untouched under lock" 1500 "$(mtu_of eth0)"
run ip -n "$H1" link set eth0 mtu 9000

# 5. Drift found, then fixed.
run ip -n "$H1" link set eth0 mtu 1400
fab -j verify "$TMP/mtu.yaml"
assert_eq "drift rc" 1 "$rc"
assert_eq "drift" "eth0 mtu 9000 1400" \
	"$(jq -r '.drift[] | "\(.interface) \(.field) \(.wanted) \(.found)"' "$TMP/out")"
fab apply "$TMP/mtu.yaml"
assert_eq "fix rc" 0 "$rc"
fab verify "$TMP/mtu.yaml"
assert_eq "fixed rc" 0 "$rc"

# 6. Rollback for real: step 2 (PFC) fails in the kernel, step 1 (MTU) is undone.
run ip -n "$H1" link set eth0 mtu 1500
fab -j apply "$TMP/pfc.yaml"
assert_eq "rollback apply rc" 3 "$rc"
assert_eq "mtu restored by rollback" 1500 "$(mtu_of eth0)"
assert_eq "step statuses" "mtu:undone pfc.enable:failed" \
	"$(jq -r '[.steps[] | "\(.field):\(.status)"] | join(" ")' "$TMP/out")"
assert_eq "failed step" 2 "$(jq -r .failed_step "$TMP/out")"
assert_eq "rolled back" true "$(jq -r .rolled_back "$TMP/out")"
jq -r .error "$TMP/out" | grep -q 'eth0.*pfc' || fail "error does not name eth0 and pfc: $(jq -r .error "$TMP/out")"
grep -q 'rolled back' "$TMP/err" || fail "stderr does not say it rolled back"

# 7. Malformed profile: file:line:column, exit 2, nothing touched.
fab apply "$TMP/bad.yaml"
assert_eq "bad profile rc" 2 "$rc"
grep -q "^fabricctl apply: $TMP/bad.yaml:4:[0-9]*: pfc.enable: priority 3 listed twice" "$TMP/err" ||
	fail "no file:line:column message: $(cat "$TMP/err")"
assert_eq "mtu after bad profile" 1500 "$(mtu_of eth0)"

# 8. --try without confirm: reverted at the deadline by the detached reverter.
fab -j apply --try 2 "$TMP/mtu.yaml"
assert_eq "try rc" 0 "$rc"
assert_eq "mtu during try" 9000 "$(mtu_of eth0)"
[ -f "$FABRICCTL_RUNDIR/pending.json" ] || fail "no pending state"
jq -r .pid "$FABRICCTL_RUNDIR/pending.json" >"$TMP/reverter.pid"
fab apply "$TMP/mtu.yaml"
assert_eq "apply while a try is pending rc" 3 "$rc"
grep -q 'a try is pending' "$TMP/err" || fail "apply did not refuse while a try is pending"
# times as local ISO time, not Unix seconds
grep -Eq 'reverts at [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} [A-Z+0-9-]+\)' "$TMP/err" ||
	fail "deadline not shown as a local time: $(cat "$TMP/err")"
# a dry run says a real apply would be refused, and exits as it would (3)
fab apply --dry-run "$TMP/mtu.yaml"
assert_eq "dry run while a try is pending rc" 3 "$rc"
grep -q '^dry run: a real apply would be refused now: a try is pending' "$TMP/out" ||
	fail "dry run did not say a try is pending: $(cat "$TMP/out")"
wait_gone "$(cat "$TMP/reverter.pid")" 30
assert_eq "mtu after unconfirmed try" 1500 "$(mtu_of eth0)"
[ ! -e "$FABRICCTL_RUNDIR/pending.json" ] || fail "pending state left behind"
grep -q ': ok$' "$FABRICCTL_RUNDIR/last-revert.log" || fail "revert log: $(cat "$FABRICCTL_RUNDIR/last-revert.log")"
fab confirm
assert_eq "confirm with nothing pending rc" 1 "$rc"
# ... and it says the reverter ran (from its log), not "may have been"
grep -Eq 'nothing to confirm; the last automatic revert: reverted 1 step\(s\) at deadline [0-9]{4}-[0-9]{2}-[0-9]{2} .*: ok$' "$TMP/err" ||
	fail "confirm after the automatic revert: $(cat "$TMP/err")"
fab -j confirm
assert_eq "confirm -j with nothing pending rc" 1 "$rc"
assert_eq "confirm -j: action" none "$(jq -r .action "$TMP/out")"
jq -e '.last_revert | test(": ok$")' "$TMP/out" >/dev/null || fail "confirm -j: $(cat "$TMP/out")"

# 9. --try with confirm: the change stays.
fab apply --try 60 "$TMP/mtu.yaml"
assert_eq "try 2 rc" 0 "$rc"
jq -r .pid "$FABRICCTL_RUNDIR/pending.json" >"$TMP/reverter.pid"
fab -j confirm
assert_eq "confirm rc" 0 "$rc"
assert_eq "confirm -j: JSON" "fabricctl.confirm/1 confirmed 1" \
	"$(jq -r '"\(.schema) \(.action) \(.changes)"' "$TMP/out")"
wait_gone "$(cat "$TMP/reverter.pid")" 10	# confirm stops the reverter
assert_eq "mtu after confirmed try" 9000 "$(mtu_of eth0)"
[ ! -e "$FABRICCTL_RUNDIR/pending.json" ] || fail "pending state left after confirm"

# 10. confirm --revert undoes a try at once.
run ip -n "$H1" link set eth0 mtu 1500
fab apply --try 60 "$TMP/mtu.yaml"
assert_eq "try 3 rc" 0 "$rc"
jq -r .pid "$FABRICCTL_RUNDIR/pending.json" >"$TMP/reverter.pid"
fab confirm --revert
assert_eq "confirm --revert rc" 0 "$rc"
assert_eq "mtu after confirm --revert" 1500 "$(mtu_of eth0)"
wait_gone "$(cat "$TMP/reverter.pid")" 10
: >"$TMP/reverter.pid"
echo "apply-netns: all checks passed"
