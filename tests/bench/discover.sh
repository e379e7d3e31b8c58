#!/bin/bash
# Benchmark: discovery of the 1296-HCA 3-level fat tree (369 switches,
# 3888 links) under ibsim, fabricctl discover --ib versus ibnetdiscover
# in the same run on the same fabric (and fabricctl with ibnetdiscover's
# 2 SMPs in flight instead of 64).  Runs are interleaved (A B C A B C ...)
# so machine load hits both alike; prints each tool's min and median wall
# time and the ratio fabricctl/ibnetdiscover (target <= 0.5).  fabricctl
# runs without counters (--no-counters: ibnetdiscover reads none), then
# once more with PMA counters for reference (this needs an SM sweep, so
# it is timed separately after one).
#   REPS=N (default 7)
set -eu
. "$(dirname "$0")/../lib/common.sh"
need_cmd ibsim ibnetdiscover
[ -r /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ] || skip "libumad2sim.so missing"
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built"
. "$TOP/tests/lab/ibsim"
REPS=${REPS:-7}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-discover.$$.XXXXXX")
cleanup() { local rc=$?; ibsim_stop || true; rm -rf "$WORK"; exit "$rc"; }
trap cleanup EXIT

"$TOP/tests/lab/gen-fattree" --levels 3 --radix 18 --hcas 1296 -o "$WORK/ft3.net"
ibsim_start "$WORK/ft3.net" 2>/dev/null

# timed NAME CMD...: one run under umad2sim; "wall_ms cpu_ms" (cpu: the
# tool's own user+sys, not ibsim's) appended to $WORK/NAME.
timed() {
	local name=$1 t
	shift
	t=$( { TIMEFORMAT='%3R %3U %3S'; time ibsim_run "$@" >"$WORK/$name.out" 2>/dev/null; } 2>&1 )
	awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' <<<"$t" >>"$WORK/$name.ms"
}
stats() { # file column -> "min median"
	awk -v c="$2" '{ print $c }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END { printf "%d %d\n", v[1], v[int((NR + 1) / 2)] }'
}

# Warm up both (page cache, umad2sim's fake sysfs).
ibsim_run ibnetdiscover >/dev/null 2>&1
ibsim_run "$FABRICCTL" discover --ib --no-counters >/dev/null 2>&1
for i in $(seq 1 "$REPS"); do
	timed ref ibnetdiscover
	timed our "$FABRICCTL" discover --ib --no-counters -j
	timed our2 "$FABRICCTL" discover --ib --no-counters -j --max-smps 2
done
grep -q '"links":3888' "$WORK/our.out" || fail "fabricctl did not see all 3888 links"
[ "$(grep -c '^Switch' "$WORK/ref.out")" = 369 ] || fail "ibnetdiscover did not see 369 switches"
read -r ref_min ref_med < <(stats "$WORK/ref.ms" 1)
read -r our_min our_med < <(stats "$WORK/our.ms" 1)
read -r refc_min refc_med < <(stats "$WORK/ref.ms" 2)
read -r ourc_min ourc_med < <(stats "$WORK/our.ms" 2)
printf 'discover 1296-HCA 3-level fat tree (1665 nodes, 3888 links), %s runs each, interleaved; load %s\n' \
	"$REPS" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-30s wall min %6d ms median %6d ms   cpu min %5d ms median %5d ms\n' \
	ibnetdiscover "$ref_min" "$ref_med" "$refc_min" "$refc_med" \
	"fabricctl discover --ib" "$our_min" "$our_med" "$ourc_min" "$ourc_med"
read -r our2_min our2_med < <(stats "$WORK/our2.ms" 1)
read -r our2c_min our2c_med < <(stats "$WORK/our2.ms" 2)
printf '  %-30s wall min %6d ms median %6d ms   cpu min %5d ms median %5d ms\n' \
	"  same, --max-smps 2" "$our2_min" "$our2_med" "$our2c_min" "$our2c_med"
awk -v a="$our_min" -v b="$ref_min" -v c="$our_med" -v d="$ref_med" -v e="$ourc_med" -v f="$refc_med" \
	'BEGIN { printf "  ratio fabricctl/ibnetdiscover: wall min %.2f, wall median %.2f (target <= 0.50); cpu median %.2f\n", a / b, c / d, e / f }'

# With PMA counters (every linked port, PortCounters + PortCountersExtended).
ibsim_sm >/dev/null 2>&1 || fail "opensm sweep failed"
for i in $(seq 1 3); do
	timed ctr "$FABRICCTL" discover --ib -j
done
read -r ctr_min ctr_med < <(stats "$WORK/ctr.ms" 1)
printf '  fabricctl discover --ib with counters (7776 ports): wall min %d ms, median %d ms\n' "$ctr_min" "$ctr_med"
