#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# The run directory of apply --try ($FABRICCTL_RUNDIR) and the files in it
# are never used when someone else could have planted them (issue 9,
# item 4), against a real veth in a lab namespace:
#  1. a run directory that is mode 1777, owned by another user, or a
#     symlink: apply --try and confirm refuse with the rule in words,
#     exit 3, the MTU untouched, nothing created in it;
#  2. <rundir>/lock a symlink to a file that does not exist: apply
#     refuses, the file is not created (the old open(O_CREAT) made it);
#  3. <rundir>/last-revert.log a symlink to a victim file: the reverter
#     still reverts at its deadline, and the victim keeps its bytes (the
#     old fopen("w") emptied it and wrote the log line into it); without
#     the symlink the log gets one line per revert, appended;
#  4. a run directory name of 440 bytes works end to end (item 11), one
#     longer than PATH_MAX - 64 is refused.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=h9frd$$
tmpdir_with_cleanup
cleanup_hook() {
	if [ -s "$TMP/reverter.pid" ]; then kill "$(cat "$TMP/reverter.pid")" 2>/dev/null || true; fi
	lab_down --name "$P"
}

run lab_up --name "$P" --hosts 1 --leaves 1 --spines 0 --mtu 1500 --no-lldp
H1=$(lab_ns h1)
mtu_of() { ip -n "$H1" -j link show eth0 | jq -r '.[0].mtu'; }
# fabr RUNDIR ARGS...: fabricctl in the host's namespace with that run directory.
fabr() { local d=$1; shift; FABRICCTL_RUNDIR=$d fab_ns "$H1" "$@"; }
wait_gone() {
	local i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -le $(( $2 * 20 )) ] || fail "process $1 still running after $2 s"
		sleep 0.05
	done
}
# refused WHAT MESSAGE: exit 3, MESSAGE on stderr, the MTU untouched.
refused() {
	assert_eq "$1: exit" 3 "$rc"
	grep -qF -- "$2" "$TMP/err" || fail "$1: no '$2' in: $(cat "$TMP/err")"
	assert_eq "$1: mtu untouched" 1500 "$(mtu_of)"
}
printf 'interfaces:\n  - match: eth0\n    mtu: 9000\n' >"$TMP/mtu.yaml"

# --- 1. run directories someone else could write to.
mkdir -m 1777 "$TMP/open"
fabr "$TMP/open" apply --try 60 "$TMP/mtu.yaml"
refused "mode 1777" "run directory $TMP/open is writable by group or others (mode 1777): refused"
assert_eq "mode 1777: nothing created" "" "$(ls -A "$TMP/open")"
fabr "$TMP/open" confirm --revert
assert_eq "confirm in a 1777 directory: exit" 3 "$rc"
grep -qF "writable by group or others" "$TMP/err" || fail "confirm in a 1777 directory: $(cat "$TMP/err")"

mkdir -m 0755 "$TMP/theirs"
chown 65534 "$TMP/theirs"
fabr "$TMP/theirs" apply --try 60 "$TMP/mtu.yaml"
refused "owned by 65534" "run directory $TMP/theirs is owned by uid 65534, not by root: refused"
assert_eq "owned by 65534: nothing created" "" "$(ls -A "$TMP/theirs")"

mkdir -m 0700 "$TMP/real"
ln -s "$TMP/real" "$TMP/link"
fabr "$TMP/link" apply --try 60 "$TMP/mtu.yaml"
refused "symlinked run directory" "run directory $TMP/link is a symbolic link: refused"
assert_eq "symlinked run directory: nothing created" "" "$(ls -A "$TMP/real")"

# --- 2. the apply lock: a symlink to a file that is not there.
RD=$TMP/run
mkdir -m 0700 "$RD"
ln -s "$TMP/victim-lock" "$RD/lock"
fabr "$RD" apply --try 60 "$TMP/mtu.yaml"
refused "symlinked lock" "apply: $RD/lock is a symbolic link: refused"
[ ! -e "$TMP/victim-lock" ] || fail "the lock's symlink was followed: $TMP/victim-lock created"
[ ! -e "$RD/pending.json" ] || fail "symlinked lock: a try was armed"
rm "$RD/lock"

# --- 3. the reverter's log: a symlink to a victim file.
printf 'precious\n' >"$TMP/victim"
ln -s "$TMP/victim" "$RD/last-revert.log"
fabr "$RD" -j apply --try 3 "$TMP/mtu.yaml"
assert_eq "try with a symlinked log: exit" 0 "$rc"
assert_eq "mtu during the try" 9000 "$(mtu_of)"
jq -r .pid "$RD/pending.json" >"$TMP/reverter.pid"
wait_gone "$(cat "$TMP/reverter.pid")" 30
assert_eq "mtu reverted at the deadline" 1500 "$(mtu_of)"
[ ! -e "$RD/pending.json" ] || fail "pending state left behind"
assert_eq "victim untouched" precious "$(cat "$TMP/victim")"
[ -L "$RD/last-revert.log" ] || fail "the log's symlink was replaced"

# Without the symlink: one line per revert, appended, readable by root only.
rm "$RD/last-revert.log"
for i in 1 2; do
	fabr "$RD" -j apply --try 1 "$TMP/mtu.yaml"
	assert_eq "try $i: exit" 0 "$rc"
	jq -r .pid "$RD/pending.json" >"$TMP/reverter.pid"
	wait_gone "$(cat "$TMP/reverter.pid")" 30
	assert_eq "try $i: mtu reverted" 1500 "$(mtu_of)"
done
: >"$TMP/reverter.pid"
assert_eq "log lines" 2 "$(grep -c '^reverted 1 step(s) at deadline [0-9-]* [0-9:]* [A-Z+0-9-]*: ok$' "$RD/last-revert.log")"
assert_eq "log mode" 600 "$(stat -c %a "$RD/last-revert.log")"
# --- 4. a long run directory (issue 9, item 11): no name cut short.  With
#     440 bytes the old code reported the pending path cut at 255 bytes,
#     and its reverter claimed pending.json by renaming it to a name cut
#     at 319 bytes (outside the run directory).  Over PATH_MAX - 64
#     bytes: refused, naming the limit.
long=$TMP/$(printf 'd%.0s' $(seq 200))/$(printf 'e%.0s' $(seq 200))/run
mkdir -p "$(dirname "$long")"
fabr "$long" -j apply --try 1 "$TMP/mtu.yaml"
assert_eq "long run dir: exit" 0 "$rc"
assert_eq "long run dir: pending path in the report" "$long/pending.json" "$(jq -r .try.pending "$TMP/out")"
assert_eq "long run dir: mtu during the try" 9000 "$(mtu_of)"
jq -r .pid "$long/pending.json" >"$TMP/reverter.pid"
wait_gone "$(cat "$TMP/reverter.pid")" 30
: >"$TMP/reverter.pid"
assert_eq "long run dir: mtu reverted at the deadline" 1500 "$(mtu_of)"
assert_eq "long run dir: left in it" "last-revert.log lock" "$(find "$long" -mindepth 1 -printf '%f\n' | sort | paste -sd ' ')"
grep -q ': ok$' "$long/last-revert.log" || fail "long run dir: revert log: $(cat "$long/last-revert.log")"

toolong=$TMP$(printf '/x%.0s' $(seq 2100))
fabr "$toolong" apply --try 60 "$TMP/mtu.yaml"
refused "run dir name too long" "run directory name is ${#toolong} bytes long, more than 4032: refused (FABRICCTL_RUNDIR)"
echo "rundir-safety: all checks passed"
