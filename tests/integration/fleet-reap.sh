#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# The fleet controller takes down each launcher's whole process group and
# reaps dead workers at once.  Issue 9, item 15.
#  1. A launcher that leaves a child behind (a background process in its
#     group) and whose worker exits first: after `status --hosts` returns,
#     nothing of that group is left.  The old controller reaped the
#     launcher and left the child running.
#  2. A worker killed early (it sent garbage) is reaped while the
#     controller still waits for a slow node, not at the very end: the old
#     controller left it a zombie until then.
# Workers run on this machine (status reads, changes nothing); every
# process the launchers start carries this run's tag in its argv[0].
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd jq pgrep ps
need_fabricctl

TAG=fabreap$$x$RANDOM
tmpdir_with_cleanup
cleanup_hook() {
	local p
	for p in $(pgrep -f "$TAG" || true); do kill "$p" 2>/dev/null || true; done
}
q() { jq -r "$@" "$TMP/out"; }
left() { pgrep -f "$TAG-$1" | wc -l; }

# launch MODE HOST WORKER-ARGV...
cat >"$TMP/launch" <<SCRIPT
#!/bin/bash
mode=\$1 host=\$2
shift 2
case \$mode-\$host in
bg-*)	(exec -a "$TAG-bg-\$host" sleep 300) &
	exec "\$@" ;;
zombie-n1)
	echo 'garbage, not JSON'
	exec -a "$TAG-zombie-n1" sleep 300 ;;
zombie-*)
	sleep 3
	exec "\$@" ;;
esac
SCRIPT
chmod +x "$TMP/launch"
printf 'n1 127.0.0.1\nn2 127.0.0.2\n' >"$TMP/hosts"

# 1. Children left behind by the launchers.
fab -j status --hosts "$TMP/hosts" --launcher "$TMP/launch bg {host}"
assert_eq "bg: rc" 0 "$rc"
assert_eq "bg: both nodes read" "2 2" "$(q '"\(.summary.nodes) \(.summary.ok)"')"
assert_eq "bg: launchers' children left" 0 "$(left bg)"

# 2. n1 sends garbage at once and is killed; n2 answers after 3 s.
pretty "$FABRICCTL -v -j status --hosts $TMP/hosts --launcher '$TMP/launch zombie {host}' &"
"$FABRICCTL" -v -j status --hosts "$TMP/hosts" --launcher "$TMP/launch zombie {host}" \
	>"$TMP/out" 2>"$TMP/err" &
ctl=$!
for _ in $(seq 100); do
	grep -q "worker n1: sent garbage" "$TMP/err" && break
	kill -0 "$ctl" 2>/dev/null || break
	sleep 0.05
done
grep -q "worker n1: sent garbage" "$TMP/err" || fail "n1 was not killed for its garbage"
# n1's launcher must be reaped within a second (n2 keeps the controller busy for 3 s).
zombies=1
for _ in $(seq 20); do
	zombies=$(ps -o stat= --ppid "$ctl" | grep -c '^Z' || true)
	[ "$zombies" = 0 ] && break
	sleep 0.05
done
ps -o pid=,stat=,args= --ppid "$ctl" >&2 || true
kill -0 "$ctl" 2>/dev/null || fail "the controller ended before the check (n2 should keep it waiting)"
assert_eq "zombie: dead workers not reaped while the controller runs" 0 "$zombies"
assert_eq "zombie: n1's process gone" 0 "$(left zombie-n1)"
rc=0
wait "$ctl" || rc=$?
cat "$TMP/err" >&2
assert_eq "zombie: rc (n1 failed)" 3 "$rc"
assert_eq "zombie: n2 read, n1 failed for its garbage" "n2 true;n1 false garbage" \
	"$(q '[.nodes[] | "\(.node) \(.ok)\(if .ok then "" else " " + (.error | capture("(?<g>garbage)").g) end)"] | sort_by(.) | reverse | join(";")')"
echo "fleet-reap: all checks passed" >&2
