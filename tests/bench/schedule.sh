#!/bin/bash
# Topology-aware schedule at scale: all pairs of a generated 3-level fat
# tree of 4096 hosts (16 pods x 16 leaves x 16 hosts, 16 aggregation
# switches per pod, 16 cores per aggregation switch: full bisection), then
# the same tree 4:1 oversubscribed (4 aggregation switches per pod: four
# 100 Gb/s uplinks per leaf of 16 hosts at 100 Gb/s).  The schedule is streamed (8.4 M pairs, never stored): host
# placement, the bound and every round generated.  Prints wall and CPU
# time, peak RSS (getrusage), rounds, the proven bound and their ratio;
# then checks every round (no link over capacity, every pair once; not
# timed).
# Targets: <= 2 s CPU, <= 10 ms CPU per round (issue 15: the set-up and
# every round, over the rounds) and <= 64 MB peak RSS for the schedule.
# CPU time is the judge: on a shared box the wall time includes waiting
# for a core (both are printed).  Override with SCHED_MAX_S /
# SCHED_MAX_MS / SCHED_MAX_MB.
# Then steered rounds (issue 24: each test on the ECMP member its source
# port takes, sched_topo.h "Steered rounds"), all pairs, printed beside the
# whole-set count: the issue's non-blocking 2-level plan (8 leaves x 16
# hosts at 100G, 4 spines, 4 x 400G uplinks per leaf) and the routed lab's
# shape (3 leaves x 2 hosts, 2 spines, veth: one test per link), every
# member free (what --dry-run plans) and over 8 traced ports per pair
# (members picked by a stand-in hash); target <= 1.25 x the node bound.
# Then the streamed steered packer (steer_scale, sched_topo.h "Steered
# rounds, streamed"; issue 24): each pair's alternatives the paths 8
# traced ports take each way under a simulated per-switch hash
# (model/ecmp_sim.h), generated as its round is packed (16 ports for a
# pair that waited for the extra rounds): the 2-level plan
# and the 4096-host fat tree, all pairs and coverage 3, the 1024-host fat
# tree all pairs; rounds beside the node bound and the whole-set rounds.
# Every round is checked against the paths its choices take (no member
# over capacity, no host twice, every pair once: required); the ratios
# are printed against the 1.25 target, not required.  The 4096-host all
# pairs (8.4 M pairs: 10 min of CPU, 64 MB) is skipped with SCHED_STEER_4096=0.
# Last, coverage 3 on members (steer_scale -m: model/steer_cover.h, the
# candidates `sweep --steer` traces) on the 2-level plan and the 512,
# 1024 and 4096-host fat trees: every link crossed >= 3 times by the
# paths taken, every host in >= 3 pairs, no member over capacity, no
# host or pair twice (required); rounds against K (printed); with the
# walk (-W: 6 candidates a host, and the new pairs traced for hosts left
# free, steer_cover.h 7.; 512 hosts: 2-5 s of CPU, 1024 hosts: about 10 s,
# 4096 hosts: about 60 s) K rounds (required).
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
MAX_S=${SCHED_MAX_S:-2}
MAX_MS=${SCHED_MAX_MS:-10}
MAX_MB=${SCHED_MAX_MB:-64}
BIN=$TOP/build/rel/tests/sched_bench

make -C "$TOP" --no-print-directory -j2 lib >/dev/null
mkdir -p "$(dirname "$BIN")"
# shellcheck disable=SC2046
cc -O2 -g -std=c17 -D_GNU_SOURCE -I"$TOP/src" -o "$BIN" "$TOP/tests/bench/sched_bench.c" \
	"$TOP/build/rel/libfab.a" -lm $(pkg-config --libs jansson yaml-0.1 libmnl)
# shellcheck disable=SC2046
cc -O2 -g -std=c17 -D_GNU_SOURCE -I"$TOP/src" -o "$BIN.steer" "$TOP/tests/bench/steer_bench.c" \
	"$TOP/build/rel/libfab.a" -lm $(pkg-config --libs jansson yaml-0.1 libmnl)
# shellcheck disable=SC2046
cc -O2 -g -std=c17 -D_GNU_SOURCE -I"$TOP/src" -o "$BIN.scale" "$TOP/tests/bench/steer_scale.c" \
	"$TOP/build/rel/libfab.a" -lm $(pkg-config --libs jansson yaml-0.1 libmnl)

rc=0
for shape in "16 16 16 16 16 100000 --check" "16 16 16 4 16 100000 --check"; do
	# shellcheck disable=SC2086
	out=$("$BIN" $shape) || fail "sched_bench $shape: $out"
	line=$(printf '%s\n' "$out" | head -1)
	printf 'schedule %s: %s\n' "$shape" "$line"
	printf '%s\n' "$out" | sed -n '2,$p'
	cpu=$(printf '%s\n' "$line" | sed -n 's/.*sched_cpu_s=\([0-9.]*\).*/\1/p')
	ms=$(printf '%s\n' "$line" | sed -n 's/.*sched_ms_per_round=\([0-9.]*\).*/\1/p')
	rss=$(printf '%s\n' "$line" | sed -n 's/.*peak_rss_mb=\([0-9.]*\).*/\1/p')
	ratio=$(printf '%s\n' "$line" | sed -n 's/.*ratio=\([0-9.]*\).*/\1/p')
	awk -v c="$cpu" -v m="$MAX_S" 'BEGIN { exit !(c <= m) }' ||
		{ echo "schedule: $cpu s CPU > $MAX_S s"; rc=1; }
	awk -v r="$ms" -v m="$MAX_MS" 'BEGIN { exit !(r <= m) }' ||
		{ echo "schedule: $ms ms CPU per round > $MAX_MS ms"; rc=1; }
	awk -v r="$rss" -v m="$MAX_MB" 'BEGIN { exit !(r <= m) }' ||
		{ echo "schedule: peak RSS $rss MB > $MAX_MB MB"; rc=1; }
	awk -v r="$ratio" 'BEGIN { exit !(r <= 1.25) }' ||
		{ echo "schedule: rounds / bound $ratio > 1.25"; rc=1; }
done

for shape in "8 16 4 100000 400000 8" "3 2 2 0 0 8"; do
	# shellcheck disable=SC2086
	line=$("$BIN.steer" $shape) || fail "steer_bench $shape: $line"
	printf 'steered %s: %s\n' "$shape" "$line"
	for k in ratio_all ratio_ports; do
		v=$(printf '%s\n' "$line" | sed -n "s/.*$k=\([0-9.]*\).*/\1/p")
		awk -v r="$v" 'BEGIN { exit !(r <= 1.25) }' ||
			{ echo "steered $shape: $k $v > 1.25"; rc=1; }
	done
done

runs=("2l 8 16 4 100000 400000 -a" "2l 8 16 4 100000 400000 -k 3" "3l 16 16 16 16 16 -k 3"
	"3l 16 8 8 8 8 -a")
[ "${SCHED_STEER_4096:-1}" = 0 ] || runs+=("3l 16 16 16 16 16 -a")
for shape in "${runs[@]}"; do
	# shellcheck disable=SC2086
	line=$("$BIN.scale" $shape) || fail "steer_scale $shape: $line"
	v() { printf '%s\n' "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	ratio=$(v ratio)
	verdict=met
	awk -v r="$ratio" 'BEGIN { exit !(r <= 1.25) }' || verdict=missed
	printf 'steered, streamed %s: %s hosts %s, %s pairs: %s rounds, node bound %s (ratio %s, target <= 1.25 %s); whole sets %s (ratio %s); %s extra rounds (%s pairs waited, the most of one host %s: the floor for them); %s CPU s, peak RSS %s MB\n' \
		"$shape" "$(v hosts)" "$(v mode)" "$(v pairs)" "$(v rounds)" "$(v node_bound)" "$ratio" \
		"$verdict" "$(v whole_set)" "$(v ratio_whole)" "$(v extra_rounds)" "$(v waited)" \
		"$(v wait_most)" "$(v steer_cpu_s)" "$(v peak_rss_mb)"
	printf '%s\n' "$line"
	if [ "$(v over)" != 0 ] || [ "$(v twice)" != 0 ] || [ "$(v missing)" != 0 ]; then
		echo "steered, streamed $shape: a member over capacity, a host twice or a pair missing"
		rc=1
	fi
done

# Coverage on members (model/steer_cover.h, docs/paths.md): pairs, members and rounds chosen
# together, so that the paths the tests take cross every link K times (the coverage picker's
# pairs, steered, leave 26-28 % of a fat tree's links short).
for shape in "2l 8 16 4 100000 400000 -m 3" "3l 8 8 8 8 8 -m 3" "3l 16 8 8 8 8 -m 3" \
	"3l 16 16 16 16 16 -m 3" "3l 8 8 8 8 8 -m 3 -W" "3l 16 8 8 8 8 -m 3 -W" \
	"3l 16 16 16 16 16 -m 3 -W"; do
	# shellcheck disable=SC2086
	line=$("$BIN.scale" $shape) || fail "steer_scale $shape: $line"
	v() { printf '%s\n' "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	ratio=$(v ratio)
	verdict=met
	awk -v r="$ratio" 'BEGIN { exit !(r <= 1.25) }' || verdict=missed
	printf 'coverage on members %s: %s hosts, K %s, %s pairs: %s rounds (ratio to K %s, target <= 1.25 %s); whole sets %s; links crossed < K %s of %s, hosts in < K pairs %s; new pairs traced %s, taken %s; %s CPU s, peak RSS %s MB\n' \
		"$shape" "$(v hosts)" "$(v k)" "$(v pairs)" "$(v rounds)" "$ratio" "$verdict" \
		"$(v whole_set)" "$(v links_short)" "$(v links)" "$(v hosts_short)" "$(v new_traced)" \
		"$(v new_taken)" "$(v steer_cpu_s)" "$(v peak_rss_mb)"
	printf '%s\n' "$line"
	if [ "$(v over)" != 0 ] || [ "$(v twice)" != 0 ] || [ "$(v links_short)" != 0 ] ||
		[ "$(v hosts_short)" != 0 ]; then
		echo "coverage on members $shape: a member over capacity, a host or pair twice, or a link or host short"
		rc=1
	fi
	# -W: the walk (steer_cover.h 6.; deterministic here: fixed ports and seeds) makes K rounds
	case $shape in *-W) [ "$(v rounds)" = "$(v k)" ] ||
		{ echo "coverage on members $shape: $(v rounds) rounds with the walk, not K"; rc=1; } ;;
	esac
done
exit $rc
