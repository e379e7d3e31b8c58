#!/bin/bash
# Sweeps at scale (tests/scale/scale_sim.c, docs/scale.md): `fabricctl
# sweep` itself, in one process, over a simulated 3-level fat tree of
# 512, 1024 and 4096 hosts with 5 seeded faulty links at 20 % of their
# rate (one spine uplink, one host access link); only the measurement is
# simulated.  Coverage sweeps (K = 3) on every fabric, then all pairs of
# the 1024 and the 4096 fabrics (8.4 M pairs: about 4 minutes of CPU and
# 1.8 GB in $TMPDIR).  One process per run (peak RSS is per process).
# Prints the figures and, per fault, where it stands among the suspects.
# Then the same 4096 hosts in a 3-level tree without ECMP (one
# aggregation switch per pod, one spine: every pair has one path).
# Targets (issue 15), checked on every run: peak RSS <= 64 MB,
# scheduling <= 10 ms CPU per round; every faulty link among the top 5
# suspects; in coverage mode every link crossed >= K times and every host
# in >= K pairs (all pairs: every pair measured), and named (a suspect of
# its own, not a member of a group of links) all 5 on the single-path
# tree.  On the fat trees an uplink
# fault can only be located to its ECMP set (every pair that crosses one
# member crosses all of them, docs/scale.md); how many are named there is
# printed, not required.  Override with SCALE_K (3), SCALE_SEED (15),
# SCALE_MAX_MB (64), SCALE_MAX_MS (10); SCALE_ALL_PAIRS=0 skips the
# all-pairs runs.
# Then `sweep --steer` (issue 24, scale_sim -S): the switches hash each
# flow's 5-tuple with their own seed and answer TTL-limited traces, so
# the command traces every cross-leaf pair's ports, learns the member
# maps, packs the rounds on per-member loads, runs each test on its
# ports (measured on the path its tuple takes) and localises on the
# traced paths; coverage K at 512, 1024 and 4096 hosts, on members (the
# sweep chooses pairs, members and rounds together, docs/paths.md
# "Coverage on members").  Printed: pairs steered / fallen back, rounds
# beside K, the node bound and the whole-set rounds, faults named alone,
# links crossed fewer than K times by the paths the tests took (counted
# here, not by the sweep).  Required: every link crossed >= K times,
# every host in >= K pairs, peak RSS <= SCALE_MAX_MB, every fault among
# the top 5, and at most 1.25 K rounds (SCALE_STEER_ROUNDS; K = 3: 3,
# with the walk at every size and the new pairs traced for hosts left
# free, docs/scale.md "Steered"; 4-5 at 4096 hosts before them).  Then 512 hosts with one
# host's worker silent (-F): its candidates fall back, the others are
# chosen.  Last, all pairs steered in windows at 1024 hosts (and 4096
# with SCALE_STEER_ALL=4096; 0 skips): every pair measured, rounds <=
# 1.25 x the node bound, 5 of 5 faults named alone.
set -u
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
K=${SCALE_K:-3}
SEED=${SCALE_SEED:-15}
MAX_MB=${SCALE_MAX_MB:-64}
MAX_MS=${SCALE_MAX_MS:-10}
STEER_ROUNDS=${SCALE_STEER_ROUNDS:-$((K * 5 / 4))}
BIN=$TOP/build/rel/tests/scale_sim

make -C "$TOP" --no-print-directory -j2 scale-sim >/dev/null || fail "make scale-sim"

# key=value from the figures line
val() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }

rc=0
runs=("8 8 8 8 8|-k $K" "16 8 8 8 8|-k $K" "16 16 16 16 16|-k $K" "16 16 16 1 1|-k $K")
[ "${SCALE_ALL_PAIRS:-1}" = 0 ] || runs+=("16 8 8 8 8|-a" "16 16 16 16 16|-a")
#            pods leaves hosts aggs cores | mode
for run in "${runs[@]}"; do
	shape=${run%|*}
	mode=${run#*|}
	# shellcheck disable=SC2086
	out=$("$BIN" $shape $mode -s "$SEED" 2>&1) || fail "scale_sim $shape $mode: $out"
	line=$(printf '%s\n' "$out" | grep '^hosts=')
	hosts=$(val "$line" hosts)
	printf '== %s hosts (pods leaves hosts aggs cores: %s), %s\n' "$hosts" "$shape" "$(val "$line" mode)"
	printf '%s\n' "$out" | grep -v '^hosts='
	printf '%s\n' "$line"
	rss=$(val "$line" peak_rss_mb)
	ms=$(val "$line" sched_ms_per_round)
	pairs=$(val "$line" pairs)
	all=$(val "$line" all_pairs)
	min_cross=$(val "$line" min_cross)
	min_host=$(val "$line" min_host_pairs)
	named=$(val "$line" faults_named)
	grouped=$(val "$line" faults_grouped)
	printf 'scale %s %s: pairs %s of %s (ratio %s), %s rounds, peak RSS %s MB (target <= %s), %s ms per round (target <= %s), min crossings %s, faults named %s/5, in a group %s, CPU %s s\n' \
		"$hosts" "$(val "$line" mode)" "$pairs" "$all" "$(val "$line" pairs_ratio)" \
		"$(val "$line" rounds)" "$rss" "$MAX_MB" "$ms" "$MAX_MS" "$min_cross" "$named" "$grouped" \
		"$(val "$line" sweep_cpu_s)"
	awk -v r="$rss" -v m="$MAX_MB" 'BEGIN { exit !(r <= m) }' ||
		{ echo "scale $hosts: peak RSS $rss MB > $MAX_MB MB"; rc=1; }
	awk -v r="$ms" -v m="$MAX_MS" 'BEGIN { exit !(r <= m) }' ||
		{ echo "scale $hosts: scheduling $ms ms per round > $MAX_MS ms"; rc=1; }
	if [ "$mode" = -a ]; then
		[ "$pairs" = "$all" ] || { echo "scale $hosts all pairs: $pairs of $all measured"; rc=1; }
	elif [ "$min_cross" -lt "$K" ] || [ "$min_host" -lt "$K" ]; then
		echo "scale $hosts: a link crossed $min_cross times or a host in $min_host pairs, < K = $K"
		rc=1
	fi
	[ $((named + grouped)) -ge 5 ] ||
		{ echo "scale $hosts: only $((named + grouped)) of 5 faulty links among the top 5 suspects"; rc=1; }
	if [ "$shape" = "16 16 16 1 1" ] && [ "$named" -lt 5 ]; then
		echo "scale $hosts (single path): $named of 5 faulty links named"
		rc=1
	fi
done

[ "${SCALE_STEER:-1}" = 0 ] && exit $rc
for run in "8 8 8 8 8|" "16 8 8 8 8|" "16 16 16 16 16|" "8 8 8 8 8|-F"; do
	shape=${run%|*}
	extra=${run#*|}
	# shellcheck disable=SC2086
	out=$("$BIN" $shape -k "$K" -s "$SEED" -S $extra 2>&1) || fail "scale_sim $shape -S $extra: $out"
	line=$(printf '%s\n' "$out" | grep '^hosts=')
	hosts=$(val "$line" hosts)
	printf '== %s hosts (pods leaves hosts aggs cores: %s), coverage %s, sweep --steer%s\n' \
		"$hosts" "$shape" "$K" "${extra:+ (-F: the first host answers no trace)}"
	printf '%s\n' "$out" | grep -E '^(suspect|fault) '
	printf '%s\n' "$line"
	rounds=$(val "$line" rounds)
	bound=$(val "$line" bound)
	printf 'scale %s steered: %s pairs steered, %s fell back; %s rounds (required <= %s), K %s (ratio %s, target <= 1.25), node bound %s, whole sets %s; faults named alone %s/5, in a group %s; links crossed < K: %s of %s (by no test: %s); peak RSS %s MB; CPU %s s\n' \
		"$hosts" "$(val "$line" steered)" "$(val "$line" fallback)" "$rounds" "$STEER_ROUNDS" "$K" \
		"$(awk -v r="$rounds" -v b="$K" 'BEGIN { printf "%.2f", r / b }')" "$bound" \
		"$(val "$line" rounds_whole)" "$(val "$line" faults_named)" \
		"$(val "$line" faults_grouped)" "$(val "$line" links_crossed_short)" \
		"$(val "$line" links)" "$(val "$line" links_uncrossed)" "$(val "$line" peak_rss_mb)" \
		"$(val "$line" sweep_cpu_s)"
	min_cross=$(val "$line" min_cross)
	min_host=$(val "$line" min_host_pairs)
	named=$(val "$line" faults_named)
	grouped=$(val "$line" faults_grouped)
	rss=$(val "$line" peak_rss_mb)
	if [ "$min_cross" -lt "$K" ] || [ "$min_host" -lt "$K" ]; then
		echo "scale $hosts steered: a link crossed $min_cross times or a host in $min_host pairs, < K = $K"
		rc=1
	fi
	[ $((named + grouped)) -ge 5 ] ||
		{ echo "scale $hosts steered: only $((named + grouped)) of 5 faulty links among the top 5 suspects"; rc=1; }
	awk -v r="$rss" -v m="$MAX_MB" 'BEGIN { exit !(r <= m) }' ||
		{ echo "scale $hosts steered: peak RSS $rss MB > $MAX_MB MB"; rc=1; }
	[ "$rounds" -le "$STEER_ROUNDS" ] ||
		{ echo "scale $hosts steered: $rounds rounds > $STEER_ROUNDS (1.25 K)"; rc=1; }
done

# All pairs steered in windows (docs/paths.md "Steering in windows"): 1024
# hosts by default (about 1 min of CPU); SCALE_STEER_ALL=4096 adds the
# 4096-host fat tree (8.4 M pairs: 11-15 min of CPU, 1.8 GB in
# $TMPDIR, docs/scale.md "All pairs, steered in windows"), 0 skips both.
# Required: every pair measured, rounds <= 1.25 x the node bound, the 5
# faults named alone.
steer_all=${SCALE_STEER_ALL:-1024}
runs=()
[ "$steer_all" = 0 ] || runs+=("16 8 8 8 8")
[ "$steer_all" = 4096 ] && runs+=("16 16 16 16 16")
for shape in "${runs[@]}"; do
	# shellcheck disable=SC2086
	out=$("$BIN" $shape -a -s "$SEED" -S 2>&1) || fail "scale_sim $shape -a -S: $out"
	line=$(printf '%s\n' "$out" | grep '^hosts=')
	hosts=$(val "$line" hosts)
	rounds=$(val "$line" rounds)
	bound=$(val "$line" bound)
	named=$(val "$line" faults_named)
	printf '== %s hosts (pods leaves hosts aggs cores: %s), all pairs, sweep --steer in windows\n' \
		"$hosts" "$shape"
	printf '%s\n' "$out" | grep -E '^(suspect|fault) '
	printf '%s\n' "$line"
	printf 'scale %s steered all pairs: %s of %s pairs, %s steered, %s fell back; %s rounds, node bound %s (ratio %s, target <= 1.25), whole sets %s; faults named alone %s/5; peak RSS %s MB; CPU %s s\n' \
		"$hosts" "$(val "$line" pairs)" "$(val "$line" all_pairs)" "$(val "$line" steered)" \
		"$(val "$line" fallback)" "$rounds" "$bound" \
		"$(awk -v r="$rounds" -v b="$bound" 'BEGIN { printf "%.2f", r / b }')" \
		"$(val "$line" rounds_whole)" "$named" "$(val "$line" peak_rss_mb)" \
		"$(val "$line" sweep_cpu_s)"
	[ "$(val "$line" pairs)" = "$(val "$line" all_pairs)" ] ||
		{ echo "scale $hosts steered all pairs: not every pair measured"; rc=1; }
	awk -v r="$rounds" -v b="$bound" 'BEGIN { exit !(r <= 1.25 * b) }' ||
		{ echo "scale $hosts steered all pairs: $rounds rounds > 1.25 x $bound"; rc=1; }
	[ "$named" = 5 ] ||
		{ echo "scale $hosts steered all pairs: $named of 5 faults named alone"; rc=1; }
done
exit $rc
