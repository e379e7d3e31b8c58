#!/bin/bash
# Verdicts under noise: false alarms per 1,000 pairs on clean fabrics, with
# and without CPU hogs beside the lab, and the share of seeded faults found
# and named.  Two shapes (netns lab, lldpd off, plan from the lab's own
# cabling, `sweep --topology PLAN`):
#   A  4 leaves x 2 hosts, one spine, unshaped (veth: no rated speed, so
#      pairs are judged against their path class's reference);
#      fault: leaf2's uplink slowed to 200 Mbit/s (its 12 crossing pairs).
#   B  3 leaves x 3 hosts, one spine, host cables and uplinks at 1 Gbit/s,
#      rate_gbps=1 (judged against the rated path);
#      faults: h5's cable slowed to 200 Mbit/s (its 8 pairs, h5 named),
#      leaf3's uplink slowed to 200 Mbit/s (its 18 crossing pairs).
#   C  2 leaves x 4 hosts, one spine, unshaped, no --topology (the fleet
#      and node rules: nothing tells a pair's expected rate);
#      fault: h3's cable slowed to 200 Mbit/s (its 7 pairs, h3 named).
# Each clean shape runs REPS times idle and REPS times with HOGS busy
# processes (default 2 x cores); each fault once idle and once loaded.
# A false alarm is a pair not ok that the fault does not explain (on a
# clean fabric: any pair not ok).  A fault is found when every pair it
# explains is not ok and it is named: the slow host first among the
# suspects (node), or the slowed uplink first among the link suspects.
# Targets: 0 false alarms at load <= 2 x cores; every fault found.
# Exit 1 when a target is missed.
set -eu
export LC_ALL=C	# one order for bash, sort, comm and jq
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip tc jq
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make)"
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

REPS=${REPS:-3}
HOGS=${HOGS:-$((2 * $(nproc)))}
SHAPES=${SHAPES:-A B C}
LOADS=${LOADS:-0 $HOGS}
TMP=$(mktemp -d)
P=
hog_pids=()
hogs_stop() {
	[ ${#hog_pids[@]} -gt 0 ] || return 0
	kill "${hog_pids[@]}" 2>/dev/null || true
	wait "${hog_pids[@]}" 2>/dev/null || true
	hog_pids=()
}
hogs_start() {
	local i
	for ((i = 0; i < $1; i++)); do
		(while :; do :; done) &
		hog_pids+=($!)
	done
}
cleanup() {
	local rc=$?
	hogs_stop
	[ -z "$P" ] || lab_down --name "$P" >/dev/null 2>&1 || true
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT

OPTS=(--launcher netns --transport tcp --duration 0.5 --lat-iters 1000 --no-progress)
TOPO=()
total_pairs=0 total_false=0 loaded_pairs=0 loaded_false=0 faults=0 found=0
declare -A false_by=()

# run_one SHAPE LOAD FAULT HOSTSFILE: one sweep; counts false alarms
# against the pairs FAULT explains ($TMP/explained: "A B" lines, sorted
# names) and whether FAULT was found.
run_one() {
	local shape=$1 load=$2 fault=$3 hosts=$4 out=$TMP/out.json rc=0 n bad fa load1
	[ "$load" = 0 ] || hogs_start "$HOGS"
	"$FABRICCTL" -j sweep --hosts "$hosts" "${TOPO[@]}" "${OPTS[@]}" \
		>"$out" 2>"$TMP/err" || rc=$?
	load1=$(cut -d' ' -f1 /proc/loadavg)
	hogs_stop
	if ! jq -e .pairs "$out" >/dev/null 2>&1; then
		cat "$TMP/err" >&2
		echo "verdicts: $shape $fault: sweep failed (rc $rc)" >&2
		exit 1
	fi
	n=$(jq '.pairs | length' "$out")
	jq -r '.pairs[] | select(.status != "ok") | [.a, .b] | sort | join(" ")' "$out" | sort >"$TMP/bad"
	fa=$(comm -23 "$TMP/bad" "$TMP/explained" | wc -l)
	bad=$(wc -l <"$TMP/bad")
	total_pairs=$((total_pairs + n))
	total_false=$((total_false + fa))
	false_by[$shape/$load]=$(( ${false_by[$shape/$load]:-0} + fa ))
	if [ "$load" != 0 ]; then
		loaded_pairs=$((loaded_pairs + n))
		loaded_false=$((loaded_false + fa))
	fi
	local what="clean"
	if [ "$fault" != clean ]; then
		local missed named
		faults=$((faults + 1))
		missed=$(comm -13 "$TMP/bad" "$TMP/explained" | wc -l)
		named=$(fault_named "$fault" "$out")
		if [ "$missed" = 0 ] && [ "$named" = yes ]; then
			found=$((found + 1))
			what="$fault: found"
		else
			what="$fault: MISSED ($missed explained pairs ok, named: $named)"
		fi
	fi
	printf 'verdicts: %s load %-2s load1 %-5s %-28s %2d pairs, %2d not ok, %d false alarm%s (rc %d)\n' \
		"$shape" "$load" "$load1" "$what" "$n" "$bad" "$fa" "$([ "$fa" = 1 ] || echo s)" "$rc"
	if [ "$fa" != 0 ]; then
		comm -23 "$TMP/bad" "$TMP/explained" | while read -r a b; do
			jq -r --arg a "$a" --arg b "$b" '.pairs[] | select((.a == $a and .b == $b) or (.a == $b and .b == $a)) |
				"    false: \(.a) \(.b) \(.status) retested=\(.retested): \(.reason)"' "$out"
		done
	fi
}

# fault_named FAULT JSON: yes when the fault's element is the first
# suspect of its kind.
fault_named() {
	case $1 in
	host:*)
		[ "$(jq -r '[.suspects[] | select(.node != null)][0].node // ""' "$2")" = "$(lab_ns "${1#host:}")" ] &&
			echo yes || echo no ;;
	uplink:*)
		local leaf=${1#uplink:} got
		got=$(jq -r '[.suspects[] | select(.link != null)][0].link | if . then [.a.node, .b.node] | sort | join(" ") else "" end' "$2")
		[ "$got" = "$(printf '%s\n' "$(lab_ns "$leaf")" "$(lab_ns spine1)" | sort | paste -sd' ')" ] &&
			echo yes || echo no ;;
	esac
}

# explain FAULT: the pairs a fault explains ("A B", A < B, sorted) into
# $TMP/explained: a host's pairs, or the pairs between an uplink's leaf and
# every other leaf.
explain() {
	local -A leaf=()
	local name f k h g
	while read -r name f; do
		f=${f#*leaf=}
		leaf[$name]=${f%% *}
	done <"$TMP/hosts"
	case $1 in
	host:*) k=$(lab_ns "${1#host:}") ;;
	uplink:*) k=$(lab_ns "${1#uplink:}") ;;
	esac
	for h in "${!leaf[@]}"; do
		for g in "${!leaf[@]}"; do
			[[ "$h" < "$g" ]] || continue
			case $1 in
			host:*) [ "$h" = "$k" ] || [ "$g" = "$k" ] || continue ;;
			uplink:*) [ "${leaf[$h]}" != "${leaf[$g]}" ] &&
				{ [ "${leaf[$h]}" = "$k" ] || [ "${leaf[$g]}" = "$k" ]; } || continue ;;
			*) continue ;;
			esac
			printf '%s %s\n' "$h" "$g"
		done
	done | sort >"$TMP/explained"
}

shape() { # SHAPE: build it, run its clean and fault sweeps
	local s=$1 faults_of=() f load i
	P=bv$$$s
	case $s in
	A)
		LAB_QUIET=1 lab_up --name "$P" --hosts 8 --leaves 4 --spines 1 --no-lldp >/dev/null
		lab_hostsfile >"$TMP/hosts"
		faults_of=(uplink:leaf2) ;;
	B)
		LAB_QUIET=1 lab_up --name "$P" --hosts 9 --leaves 3 --spines 1 --host-rate 1gbit \
			--uplink-rate 1gbit --no-lldp >/dev/null
		lab_hostsfile --rate-gbps 1 >"$TMP/hosts"
		faults_of=(host:h5 uplink:leaf3) ;;
	C)
		LAB_QUIET=1 lab_up --name "$P" --hosts 8 --leaves 2 --spines 1 --no-lldp >/dev/null
		lab_hostsfile >"$TMP/hosts"
		faults_of=(host:h3) ;;
	esac
	lab_planfile >"$TMP/plan.yaml"
	TOPO=(--topology "$TMP/plan.yaml")
	[ "$s" != C ] || TOPO=()
	for load in $LOADS; do
		explain clean
		for ((i = 1; i <= REPS; i++)); do run_one "$s" "$load" clean "$TMP/hosts"; done
		for f in "${faults_of[@]}"; do
			explain "$f"
			case $f in
			host:*) lab_slow "${f#host:}" 200mbit >/dev/null ;;
			uplink:*) lab_slow "${f#uplink:}:swp49" 200mbit >/dev/null ;;
			esac
			run_one "$s" "$load" "$f" "$TMP/hosts"
			case $f in
			host:*) lab_unslow "${f#host:}" >/dev/null ;;
			uplink:*) lab_unslow "${f#uplink:}:swp49" >/dev/null ;;
			esac
		done
	done
	lab_down --name "$P" >/dev/null
	P=
}

for s in $SHAPES; do shape "$s"; done

per1k() { awk -v f="$1" -v n="$2" 'BEGIN { printf "%.1f", n ? 1000 * f / n : 0 }'; }
idle_pairs=$((total_pairs - loaded_pairs)) idle_false=$((total_false - loaded_false))
echo "verdicts: false alarms per 1000 pairs: idle $(per1k "$idle_false" "$idle_pairs") ($idle_false of $idle_pairs)," \
	"with $HOGS CPU hogs $(per1k "$loaded_false" "$loaded_pairs") ($loaded_false of $loaded_pairs)"
echo "verdicts: seeded faults found and named: $found of $faults"
rc=0
[ "$total_false" = 0 ] || { echo "verdicts: target missed: 0 false alarms" >&2; rc=1; }
[ "$found" = "$faults" ] || { echo "verdicts: target missed: every seeded fault found" >&2; rc=1; }
exit "$rc"
