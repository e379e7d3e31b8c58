#!/bin/bash
# What a sweep can check before its first round, it checks first and says
# once (netns lab, 4 hosts).  Every launch goes through a wrapper that
# logs it, so "before any worker starts" is measured, not assumed; each
# error comes within a second.
#  1. --prom into a missing directory, or into a directory that is a file:
#     exit 2 naming the directory, no launch, stdout empty.
#  2. A launcher whose program does not exist: exit 2, one error naming
#     the launcher and the program, no "exited with status 127" per pair;
#     the same for status --hosts.
#  3. Duplicate addresses in the hosts file: exit 2 naming both lines.
#  4. --transport verbs on nodes without RDMA: exit 2, one error listing
#     the nodes, no pair run, no suspect.
#  5. A launcher that fails on one node: its pairs' reason names the
#     launcher, its exit status and its last stderr line, sanitised; its
#     stderr is relayed as "NODE: line", with no control byte.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=sc$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P"; }

run lab_up --name "$P" --hosts 4 --leaves 1 --spines 0 --no-lldp
lab_hostsfile >"$TMP/hosts"
cat "$TMP/hosts" >&2

# The launcher: log the launch, then the built-in netns launcher's command.
cat >"$TMP/launch" <<SH
#!/bin/sh
echo "\$1" >>"$TMP/launched"
ns=\$1
shift
exec ip netns exec "\$ns" env FABRICCTL_RUNDIR=/run/fabricctl-netns-\$ns "\$@"
SH
chmod +x "$TMP/launch"
LAUNCH="$TMP/launch {host}"

now_ms() { local s ns; read -r s ns < <(date '+%s %N'); echo $((s * 1000 + 10#$ns / 1000000)); }
# timed ARGS...: fab with the time it took in $ms; launches counted in $launched.
timed() {
	local t0
	rm -f "$TMP/launched"
	t0=$(now_ms)
	fab "$@"
	ms=$(( $(now_ms) - t0 ))
	launched=$( [ -f "$TMP/launched" ] && wc -l <"$TMP/launched" || echo 0)
	echo "took $ms ms, $launched launches" >&2
}
# refused WHAT MESSAGE: exit 2, exactly one line on stderr holding MESSAGE, stdout empty,
# no worker launched (the property; its time is logged, not asserted: a
# busy machine is no fault of the check).
refused() {
	assert_eq "$1: exit status" 2 "$rc"
	assert_eq "$1: one error line" 1 "$(wc -l <"$TMP/err")"
	grep -qF -- "$2" "$TMP/err" || fail "$1: stderr lacks '$2'"
	assert_eq "$1: stdout" "" "$(cat "$TMP/out")"
	assert_eq "$1: workers launched" 0 "$launched"
}

# The wrapper itself works: a sweep through it runs.
timed -j sweep --hosts "$TMP/hosts" --launcher "$LAUNCH" --duration 0.2 --lat-iters 100 --prom "$TMP/ok.prom"
assert_eq "wrapper: rc" 0 "$rc"
assert_eq "wrapper: workers launched" 4 "$launched"
[ -f "$TMP/ok.prom" ] || fail "wrapper: no Prometheus file"

# --- 1. --prom ----------------------------------------------------------------------
timed -j sweep --hosts "$TMP/hosts" --launcher "$LAUNCH" --prom "$TMP/nosuch/sweep.prom"
refused "--prom into a missing directory" "$TMP/nosuch/sweep.prom: directory $TMP/nosuch does not exist"
touch "$TMP/afile"
timed -j sweep --hosts "$TMP/hosts" --launcher "$LAUNCH" --prom "$TMP/afile/sweep.prom"
refused "--prom under a file" "$TMP/afile/sweep.prom: $TMP/afile is not a directory"
mkdir "$TMP/adir"
timed -j sweep --hosts "$TMP/hosts" --launcher "$LAUNCH" --prom "$TMP/adir"
refused "--prom naming a directory" "$TMP/adir: is a directory, not a file"

# --- 2. a launcher that does not exist ------------------------------------------------
timed -j sweep --hosts "$TMP/hosts" --launcher "nosuch-launcher-$$ {host}"
refused "missing launcher" "launcher 'nosuch-launcher-$$ {host}': nosuch-launcher-$$: command not found in PATH"
grep -q "status 127" "$TMP/err" && fail "missing launcher: 'exited with status 127' still shown"
timed -j sweep --hosts "$TMP/hosts" --launcher "$TMP/nosuch/launch {host}"
refused "missing launcher by path" "launcher '$TMP/nosuch/launch {host}': $TMP/nosuch/launch: not an executable file"
timed -j status --hosts "$TMP/hosts" --launcher "nosuch-launcher-$$ {host}"
refused "status --hosts, missing launcher" "nosuch-launcher-$$: command not found in PATH"

# --- 3. duplicate addresses -----------------------------------------------------------
{ cat "$TMP/hosts"; printf 'extra %s\n' "$(sed -n 2p "$TMP/hosts" | cut -d' ' -f2)"; } >"$TMP/dup"
timed -j sweep --hosts "$TMP/dup" --launcher "$LAUNCH"
refused "duplicate address" "$TMP/dup:5: host 'extra' has the same address as host '$P-h2' on line 2 ($(sed -n 2p "$TMP/hosts" | cut -d' ' -f2)): want each node's own address"

# --- 4. --transport verbs without RDMA ------------------------------------------------
if ! "$FABRICCTL" sweep --hosts "$TMP/hosts" --launcher nosuch-$$ --transport verbs 2>&1 |
	grep -q "not built in"; then
	for h in h1 h2 h3 h4; do
		[ -z "$(ip netns exec "$(lab_ns $h)" ls /sys/class/infiniband 2>/dev/null)" ] ||
			skip "an RDMA device is visible in the lab (this test wants none)"
	done
	timed -j sweep --hosts "$TMP/hosts" --launcher "$LAUNCH" --transport verbs
	assert_eq "verbs: exit status" 2 "$rc"
	assert_eq "verbs: one error line" 1 "$(wc -l <"$TMP/err")"
	grep -qF -- "--transport verbs: 4 of 4 nodes cannot run it: $P-h1: no RDMA device; $P-h2: no RDMA device; $P-h3: no RDMA device; $P-h4: no RDMA device (sweep these nodes with --transport tcp)" "$TMP/err" ||
		fail "verbs: not the one clear error"
	grep -q "give rdma=DEV" "$TMP/err" && fail "verbs: the unhelpful rdma=DEV hint"
	assert_eq "verbs: stdout (no report of failed pairs)" "" "$(cat "$TMP/out")"
	# Not after a handshake step's deadline (--timeout, 10 s): told at once.
	assert_eq "verbs: before any step timed out" true "$([ "$ms" -lt 9000 ] && echo true || echo false)"
	# rdma=DEV named but absent: the node and the device are named.
	sed "1s/\$/ rdma=mlx5_0/" "$TMP/hosts" >"$TMP/hosts-rdma"
	timed -j sweep --hosts "$TMP/hosts-rdma" --launcher "$LAUNCH" --transport verbs
	assert_eq "verbs rdma=: exit status" 2 "$rc"
	grep -qF "$P-h1: no RDMA device;" "$TMP/err" || fail "verbs rdma=: h1 not named"
else
	echo "verbs transport not built in (refused up front as such): part 4 not run" >&2
fi
# --- 5. a launcher failing on one node -------------------------------------------------
H2=$(lab_ns h2)
cat >"$TMP/flaky" <<SH
#!/bin/sh
if [ "\$1" = "$H2" ]; then
	printf 'connecting to %s\\n' "\$1" >&2
	printf 'kex: \\033[31mrefused\\007 by peer\\r\\n' >&2
	exit 255
fi
exec "$TMP/launch" "\$@"
SH
chmod +x "$TMP/flaky"
timed -j sweep --hosts "$TMP/hosts" --launcher "$TMP/flaky {host}" --duration 0.1 --lat-iters 10
assert_eq "flaky: rc" 1 "$rc"
assert_eq "flaky: h2's pairs' reason" \
	"worker $H2 did not start: launcher $TMP/flaky {host}: exited with status 255: kex: \\x1b[31mrefused\\x07 by peer" \
	"$(jq -r --arg h "$H2" '[.pairs[] | select(.a == $h or .b == $h) | .reason] | unique | join("|")' "$TMP/out")"
# (0.1 s figures on a busy machine may look slow: only "not failed" is asserted.)
assert_eq "flaky: the other pairs measured" "3 true" \
	"$(jq -r --arg h "$H2" '[.pairs[] | select(.a != $h and .b != $h)] | "\(length) \(map(.status != "failed" and .bw_mbps > 0) | all)"' "$TMP/out")"
grep -qx "$H2: connecting to $H2" "$TMP/err" || fail "flaky: stderr not relayed under the node's name"
grep -qxF "$H2: kex: \\x1b[31mrefused\\x07 by peer" "$TMP/err" || fail "flaky: last line not relayed, sanitised"
assert_eq "flaky: control bytes on stderr" 0 "$(tr -d '\n' <"$TMP/err" | tr -d '[:print:]' | wc -c)"
echo "sweep-checks: all checks passed" >&2
