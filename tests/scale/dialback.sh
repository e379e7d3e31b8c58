#!/bin/bash
# Manual scale run (issue 15, item 5; docs/scale.md): N local workers
# (default 256) started by one collective command and dialled back to the
# controller, an all-pairs TCP sweep of zero-length tests (latency only,
# --lat-iters 5), in a network namespace of its own; data-path addresses
# spread over 127.0.0.0/8.  Prints the wall time, the controller's peak
# RSS (VmHWM of the controller process, sampled every 0.2 s until it
# exits) and the pairs by status; fails when a pair failed.  Not part of
# `make bench` (minutes on a small machine).  Run as root, with `nice`
# on a shared machine:  nice tests/scale/dialback.sh   (N=64 for a quick one)
# COVERAGE=K: a coverage sweep instead (--coverage K) over a generated
# cabling plan, N/16 hosts on each of 16 leaves under 2 spines (the plan
# is the fabric the sweep routes and schedules over; the workers' traffic
# itself stays on loopback): the pairs chosen so that every link is
# crossed by, and every host is in, at least K pairs, counted here from
# the document.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl

N=${N:-256}
NS=fabdial$$
tmpdir_with_cleanup
cleanup_hook() { ip netns del "$NS" 2>/dev/null || true; }
ip netns add "$NS"
ip -n "$NS" link set lo up
for i in $(seq 1 "$N"); do
	echo "d$i 127.$((i / 250 + 1)).$((i % 250 + 1)).1"
done >"$TMP/hosts"
cat >"$TMP/launch.sh" <<'EOS'
#!/bin/bash
# launch.sh N WORKER...: one worker per host, all in the background, each
# dialling from its own address (a join is bound to its host's address)
n=$1
shift
for i in $(seq 1 "$n"); do
	FABRICCTL_NODE=d$i "$@" --source "127.$((i / 250 + 1)).$((i % 250 + 1)).1" &
done
wait
EOS
chmod +x "$TMP/launch.sh"

MODE=()
if [ -n "${COVERAGE:-}" ]; then
	# version 1 plan: 16 leaves, 2 spines, hosts spread evenly, no speeds
	{
		echo "version: 1"
		echo "nodes:"
		for l in $(seq 1 16); do echo "  - { name: leaf$l, type: switch }"; done
		for sp in 1 2; do echo "  - { name: spine$sp, type: switch }"; done
		for i in $(seq 1 "$N"); do echo "  - { name: d$i, type: host }"; done
		echo "links:"
		for l in $(seq 1 16); do
			for sp in 1 2; do echo "  - [ \"leaf$l:swp$((48 + sp))\", \"spine$sp:swp$l\" ]"; done
		done
		for i in $(seq 1 "$N"); do
			echo "  - [ \"d$i:eth0\", \"leaf$(((i - 1) % 16 + 1)):swp$(((i - 1) / 16 + 1))\" ]"
		done
	} >"$TMP/plan.yaml"
	MODE=(--topology "$TMP/plan.yaml" --coverage "$COVERAGE")
fi

t0=$(date +%s.%N)
ip netns exec "$NS" "$FABRICCTL" -j sweep --hosts "$TMP/hosts" "${MODE[@]}" \
	--launcher "collective:$TMP/launch.sh {n}" --listen 127.0.0.1 \
	--transport tcp --duration 0 --lat-iters 5 --timeout 30 --no-retest --no-progress \
	--lat-factor 1000 >"$TMP/out" 2>"$TMP/err" &
pid=$!
hwm=0
while kill -0 "$pid" 2>/dev/null; do
	# the controller is the netns-exec'd process itself (ip netns exec execs it)
	v=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
	[ -z "$v" ] || hwm=$v
	sleep 0.2
done
rc=0
wait "$pid" || rc=$?
t1=$(date +%s.%N)
grep -v '^launcher: ' "$TMP/err" | tail -5 || true
jq -c '{launch, summary, rounds, wall_s}' "$TMP/out" || fail "no JSON"
if [ -n "${COVERAGE:-}" ]; then
	jq -c '.schedule.coverage' "$TMP/out"
	# every host in >= K pairs, every leaf's uplinks crossed >= K times (pairs leaving it)
	min_host=$(jq '[.pairs[] | .a, .b] | group_by(.) | map(length) | min' "$TMP/out")
	min_leaf=$(jq '([.nodes[] | {key: .name, value: .leaf}] | from_entries) as $lf
		| [range(1; 17) | "leaf\(.)" as $x | [$lf | to_entries[] | select(.value == $x)] | length] as $sizes
		| [.pairs[] | select($lf[.a] != $lf[.b]) | $lf[.a], $lf[.b]] | group_by(.) | map(length) | min' "$TMP/out")
	echo "coverage $COVERAGE: $(jq '.pairs | length' "$TMP/out") pairs of $((N * (N - 1) / 2)); fewest pairs a host is in: $min_host; fewest pairs leaving a leaf: $min_leaf"
	[ "$min_host" -ge "$COVERAGE" ] || fail "a host in only $min_host pairs"
	[ "$min_leaf" -ge "$COVERAGE" ] || fail "a leaf's uplinks crossed by only $min_leaf pairs"
fi
awk -v a="$t0" -v b="$t1" -v m="$hwm" -v n="$N" \
	-v mode="${COVERAGE:+coverage $COVERAGE}" \
	'BEGIN { printf "dial-back %s: %d workers, wall %.1f s (with start and stop), controller peak RSS %.1f MB\n", mode == "" ? "all-pairs" : mode, n, b - a, m / 1024 }'
jq -e '.summary.failed == 0' "$TMP/out" >/dev/null || {
	jq -r '.pairs[] | select(.status == "failed") | .reason' "$TMP/out" | sort | uniq -c | sort -rn | head
	fail "failed pairs"
}
echo "exit status $rc"
