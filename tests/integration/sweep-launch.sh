#!/bin/bash
# A sweep whose launcher started no worker is a launch failure, not a
# fabric fault (netns lab, 4 hosts on one leaf, no lldpd).
#  1. The default launcher, ssh, with no way to reach any node (an ssh
#     config whose ProxyCommand is /bin/false: nothing leaves the machine):
#     exit 3, one error naming the launcher and the first worker's error,
#     nothing on stdout (no pair judged, no suspect), text and -j alike.
#  2. A launcher that starts only one worker: exit 3 the same way (one
#     worker measures nothing).
#  3. A launcher that fails on one node of four: the sweep goes on (exit
#     1), that node's pairs fail as "worker NODE did not start" naming the
#     launcher's error, the text lists it under "workers that did not
#     start", and it is named as such: no suspect says its pairs "failed"
#     (without a topology), no link suspect comes from them (with a plan).
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq ssh
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=sl$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P"; }

run lab_up --name "$P" --hosts 4 --leaves 1 --spines 0 --no-lldp
lab_hostsfile >"$TMP/hosts"
lab_planfile >"$TMP/plan.yaml"
H1=$(lab_ns h1)
cat "$TMP/hosts" >&2

ARGS=(--hosts "$TMP/hosts" --transport tcp --duration 0.3 --lat-iters 50)

# --- 1. ssh reaches nothing ----------------------------------------------------------
printf 'Host *\n  ProxyCommand /bin/false\n' >"$TMP/ssh_config"
for j in "" -j; do
	# shellcheck disable=SC2086
	fab $j sweep "${ARGS[@]}" --ssh-config "$TMP/ssh_config"
	assert_eq "ssh, no node reachable ($j): exit" 3 "$rc"
	assert_eq "ssh, no node reachable ($j): stdout" "" "$(cat "$TMP/out")"
	grep -q "^fabricctl sweep: launch failed: 0 of 4 workers started with launcher 'ssh' (first error: worker $P-h[1-4]: launcher ssh: exited with status 255: .*); nothing was measured\$" "$TMP/err" ||
		fail "ssh ($j): no launch failure naming the launcher and the first error"
	[ "$(grep -c 'launch failed' "$TMP/err")" = 1 ] || fail "ssh ($j): said more than once"
	! grep -q "suspect\|failed worker" "$TMP/err" || fail "ssh ($j): pairs judged"
done

# --- 2. one worker of four ---------------------------------------------------------
# launch ONLY_NS...: the netns launcher for those namespaces, an ssh-like
# refusal (exit 255, one stderr line) for every other.
mklauncher() {
	local f=$TMP/launch.$1
	shift
	{
		echo '#!/bin/sh'
		echo 'ns=$1; shift'
		echo 'case " '"$*"' " in *" $ns "*) exec ip netns exec "$ns" env FABRICCTL_RUNDIR=/run/fabricctl-netns-$ns "$@";; esac'
		echo 'echo "ssh: connect to host $ns port 22: Connection refused" >&2'
		echo 'exit 255'
	} >"$f"
	chmod +x "$f"
	echo "$f"
}
L1=$(mklauncher one "$(lab_ns h2)")
fab sweep "${ARGS[@]}" --launcher "$L1 {host}"
assert_eq "one worker started: exit" 3 "$rc"
assert_eq "one worker started: stdout" "" "$(cat "$TMP/out")"
grep -q "^fabricctl sweep: launch failed: 1 of 4 workers started with launcher '$L1 {host}' (first error: worker $H1: launcher $L1 {host}: exited with status 255: ssh: connect to host $H1 port 22: Connection refused); nothing was measured\$" "$TMP/err" ||
	fail "one worker: no launch failure naming the first error"

# --- 3. three of four ----------------------------------------------------------------
L3=$(mklauncher three "$(lab_ns h2)" "$(lab_ns h3)" "$(lab_ns h4)")
fab -j sweep "${ARGS[@]}" --launcher "$L3 {host}"
assert_eq "three of four: exit" 1 "$rc"
jq -e . "$TMP/out" >/dev/null || fail "three of four: no JSON document"
assert_eq "three of four: failed pairs" 3 "$(jq '.summary.failed' "$TMP/out")"
assert_eq "three of four: failed pairs are h1's" 3 \
	"$(jq --arg h "$H1" '[.pairs[] | select(.status == "failed") | select(.a == $h or .b == $h)] | length' "$TMP/out")"
assert_eq "three of four: each says did not start" 3 \
	"$(jq --arg h "$H1" '[.pairs[] | select(.status == "failed") | select(.reason | startswith("worker \($h) did not start: launcher ")) | select(.reason | endswith("Connection refused"))] | length' "$TMP/out")"
assert_eq "three of four: the node suspect says why" \
	"$H1 worker did not start (launcher $L3 {host}): 3 pairs not measured" \
	"$(jq -r '.suspects[] | "\(.node) \(.evidence.text)"' "$TMP/out")"
grep -q "warning: sweep: 1 of 4 workers did not start" "$TMP/err" || fail "three of four: no warning"

fab sweep "${ARGS[@]}" --launcher "$L3 {host}" --topology "$TMP/plan.yaml"
assert_eq "three of four, plan: exit" 1 "$rc"
grep -q "^workers that did not start (launcher $L3 {host}; their pairs failed unmeasured, not a fabric fault): $H1\$" "$TMP/out" ||
	fail "three of four, plan: no 'workers that did not start' line"
grep -A3 '^suspects' "$TMP/out" >&2
! grep -q "^  [0-9]*\. .*$H1" "$TMP/out" || fail "three of four, plan: a suspect blames $H1's link"
grep -q "^suspects: none\$" "$TMP/out" || fail "three of four, plan: suspects from pairs never measured"
echo "sweep-launch: ok" >&2
