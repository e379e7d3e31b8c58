#!/bin/bash
# One worker a host for hosts of several fabric ports (issue 25: "One
# worker per host serves all its ports"), in the netns rail lab: 4 hosts x
# 2 NICs, eth0 on leaf1 (rail 0), eth1 on leaf2 (rail 1), one spine, host
# cables at 1 Gbit/s; the plan is discover --save-plan's.
#  1. Per-node launcher (netns), the worker command a wrapper that notes
#     each start: 4 workers started, one a host (not one a port), and the
#     sweep as before: 12 rail pairs in 3 rounds, both rails of a round at
#     once (each host's worker in two sessions at once), all ok, exit 0.
#  2. Collective launcher (dial-back), the controller in h1's namespace
#     listening on h1's rail-0 address, the launch script starting one
#     `fabricctl worker --connect` a host of {hostlist} in its namespace:
#     {n} and {hostlist} count hosts (4, each NAME once), 4 of 4 workers
#     joined, nothing refused; the same 12 pairs all ok, exit 0.
#  3. A worker killed mid-sweep takes its host's every port with it: the
#     pairs of both of h3's NICs fail naming the worker, the others ok.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip tc jq lldpd lldpcli
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

L=rw$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$L" || true; }

COMMON=(--transport tcp --duration 0.5 --lat-iters 200 --no-progress)
q() { jq -r "$@" "$TMP/out"; }
# Every rail pair of the 4 hosts, "A B" sorted.
rail_pairs() {
	local r i j
	for r in 0 1; do
		for i in 1 2 3 4; do
			for j in 1 2 3 4; do
				[ "$i" -lt "$j" ] && echo "$L-h$i:eth$r $L-h$j:eth$r"
			done
		done
	done | sort
}
pairs_with() { q --arg s "$1" '[.pairs[] | select(.status == $s) | [.a, .b] | sort | join(" ")] | sort | .[]'; }

run lab_up --name "$L" --hosts 4 --leaves 2 --spines 1 --rails 2 --host-rate 1gbit
lab_hostsfile >"$TMP/hosts"
lab_hostsfile --switches >"$TMP/hosts.sw"
run lab_lldp_wait
run "$FABRICCTL" discover --lldp --hosts "$TMP/hosts.sw" --launcher netns --save-plan "$TMP/plan.yaml" >/dev/null

# --- 1. per-node launcher: a worker a host ----------------------------------------
cat >"$TMP/w.sh" <<EOF
#!/bin/bash
# the worker command: note the start (host, pid), then be the worker
echo "\$1 \$\$" >>"$TMP/starts"
shift
exec "$FABRICCTL" worker "\$@"
EOF
chmod +x "$TMP/w.sh"
pretty "$FABRICCTL -j sweep --hosts $TMP/hosts --launcher netns --worker-cmd '$TMP/w.sh {host}' --topology $TMP/plan.yaml"
rc=0
"$FABRICCTL" -j sweep --hosts "$TMP/hosts" --launcher netns --worker-cmd "$TMP/w.sh {host}" \
	--topology "$TMP/plan.yaml" "${COMMON[@]}" >"$TMP/out" 2>"$TMP/err" || rc=$?
tail -n 3 "$TMP/err" >&2
echo "netns: $(q '.summary | "\(.ok) ok, \(.slow) slow, \(.failed) failed"') in $(q .schedule.rounds) rounds" >&2
assert_eq "netns: workers started, a host each" "$L-h1 1
$L-h2 1
$L-h3 1
$L-h4 1" "$(awk '{ n[$1]++ } END { for (h in n) print h, n[h] }' "$TMP/starts" | sort)"
assert_eq "netns: rc" 0 "$rc"
assert_eq "netns: every rail pair ok" "$(rail_pairs)" "$(pairs_with ok)"
assert_eq "netns: rounds (both rails of a round at once)" 3 "$(q .schedule.rounds)"
assert_eq "netns: every round has 4 pairs, each host in two" "4 4 4" \
	"$(q '[.schedule.round_pairs[] | length] | map(tostring) | join(" ")')"

# --- 2. collective launcher ---------------------------------------------------------
cat >"$TMP/launch.sh" <<'EOF'
#!/bin/bash
# launch.sh N HOSTLIST WORKER-COMMAND...: one worker a host, in its namespace
echo "$1 $2" >"$(dirname "$0")/launched"
n=$1 list=$2
shift 2
for h in ${list//,/ }; do
	FABRICCTL_NODE=$h ip netns exec "$h" "$@" &
done
wait
EOF
chmod +x "$TMP/launch.sh"
h1=$(awk -v h="$L-h1" '$1 == h && / ifname=eth0/ { print $2 }' "$TMP/hosts")
pretty "ip netns exec $L-h1 $FABRICCTL -j sweep --hosts $TMP/hosts --launcher 'collective:$TMP/launch.sh {n} {hostlist}' --listen $h1 ..."
rc=0
ip netns exec "$L-h1" "$FABRICCTL" -j sweep --hosts "$TMP/hosts" \
	--launcher "collective:$TMP/launch.sh {n} {hostlist}" --listen "$h1" \
	--topology "$TMP/plan.yaml" "${COMMON[@]}" >"$TMP/out" 2>"$TMP/err" || rc=$?
grep -v '^launcher: ' "$TMP/err" | tail -n 3 >&2
echo "collective: $(q '.summary | "\(.ok) ok, \(.slow) slow, \(.failed) failed"'), launch $(q -c .launch)" >&2
assert_eq "collective: {n} and {hostlist}: the hosts" "4 $L-h1,$L-h2,$L-h3,$L-h4" "$(cat "$TMP/launched")"
assert_eq "collective: rc" 0 "$rc"
assert_eq "collective: 4 joined, none refused" "4 0" \
	"$(q '.launch.joined') $(q '[.launch.refused[]] | add')"
assert_eq "collective: every rail pair ok" "$(rail_pairs)" "$(pairs_with ok)"
assert_eq "collective: rounds" 3 "$(q .schedule.rounds)"

# --- 3. a host's worker killed: both its ports' pairs fail ----------------------------
cat >"$TMP/w3.sh" <<EOF
#!/bin/bash
# h3's worker dies 1.5 s in (its first round's tests are over by then)
[ "\$1" != "$L-h3" ] || (sleep 1.5 && kill -KILL \$\$) &
shift
exec "$FABRICCTL" worker "\$@"
EOF
chmod +x "$TMP/w3.sh"
rc=0
"$FABRICCTL" -j sweep --hosts "$TMP/hosts" --launcher netns --worker-cmd "$TMP/w3.sh {host}" \
	--topology "$TMP/plan.yaml" --no-retest "${COMMON[@]}" >"$TMP/out" 2>"$TMP/err" || rc=$?
tail -n 3 "$TMP/err" >&2
q '.pairs[] | select(.status != "ok") | "    \(.a) \(.b) \(.status): \(.reason)"' >&2
assert_eq "h3's worker killed: rc" 1 "$rc"
assert_eq "h3's worker killed: no pair without h3 failed" "" \
	"$(q --arg h "$L-h3" '.pairs[] | select(.status == "failed" and .a_host != $h and .b_host != $h) | .a')"
assert_eq "h3's worker killed: failed pairs on both of h3's NICs" "eth0 eth1" \
	"$(q --arg h "$L-h3" '[.pairs[] | select(.status == "failed") | if .a_host == $h then .a_nic else .b_nic end] | unique | join(" ")')"
assert_eq "h3's worker killed: each failed pair names a worker of h3" 0 \
	"$(q --arg h "$L-h3" '[.pairs[] | select(.status == "failed" and (.reason | contains("worker " + $h) | not))] | length')"
echo "sweep-rails-worker: ok" >&2
