#!/bin/bash
# Benchmark: discovery of the 1296-HCA 3-level fat tree (369 switches,
# 3888 links) under ibsim, fabricctl discover --ib versus ibnetdiscover
# in the same run on the same fabric (and fabricctl with ibnetdiscover's
# 2 SMPs in flight instead of 64).  Runs are interleaved (A B C A B C ...)
# so machine load hits both alike; prints each tool's min and median wall
# time and the headline ratio fabricctl/ibnetdiscover -o 64, the same 64
# SMPs in flight (target <= 1.0; exit 1 when missed), with the default
# window of 2 beside it.  fabricctl
# runs without counters (--no-counters: ibnetdiscover reads none), then
# once more with PMA counters for reference (this needs an SM sweep, so
# it is timed separately after one).
#
# Where the time goes, so that a ratio can be judged:
#   - MADs: each tool once more with a umad_send() counter preloaded
#     (built here with cc; skipped without one), by attribute;
#   - cpu: the tool's own user+sys time (all its threads, umad2sim's
#     receiver thread included), and ibsim's CPU time spent on its MADs
#     (/proc/PID/schedstat of the single-threaded ibsim).  Both tools are
#     CPU-bound through umad2sim and ibsim, so on a loaded machine their
#     wall times stretch unevenly; the CPU figures move far less.
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
IBSIM_PID=$(cat "$IBSIM_DIR/ibsim.pid")

# ibsim's CPU time so far in microseconds (schedstat: ns on CPU).
ibsim_cpu_us() { awk '{ printf "%d\n", $1 / 1000 }' "/proc/$IBSIM_PID/schedstat"; }

# timed NAME CMD...: one run under umad2sim; "wall_ms cpu_ms ibsim_ms"
# (cpu: the tool's own user+sys; ibsim: ibsim's CPU time meanwhile)
# appended to $WORK/NAME.ms.
timed() {
	local name=$1 t s0 s1
	shift
	s0=$(ibsim_cpu_us)
	t=$( { TIMEFORMAT='%3R %3U %3S'; time ibsim_run "$@" >"$WORK/$name.out" 2>/dev/null; } 2>&1 )
	s1=$(ibsim_cpu_us)
	awk -v s="$((s1 - s0))" '{ printf "%d %d %d\n", $1 * 1000, ($2 + $3) * 1000, s / 1000 }' \
		<<<"$t" >>"$WORK/$name.ms"
}
stats() { # file column -> "min median"
	awk -v c="$2" '{ print $c }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END { printf "%d %d\n", v[1], v[int((NR + 1) / 2)] }'
}

# A umad_send() counter, preloaded after umad2sim: one line per process,
# "total N" and "0xATTR=N" for each SMP attribute sent.
MADCOUNT=
if command -v cc >/dev/null 2>&1; then
	cat >"$WORK/madcount.c" <<-'EOF'
	#define _GNU_SOURCE
	#include <dlfcn.h>
	#include <stdint.h>
	#include <stdio.h>
	#include <stdlib.h>
	#include <infiniband/umad.h>
	static unsigned long n_attr[65536], n_total;
	int umad_send(int fd, int agentid, void *umad, int length, int timeout_ms, int retries)
	{
		static int (*real)(int, int, void *, int, int, int);
		const uint8_t *mad = umad_get_mad(umad);

		if (!real)
			*(void **)&real = dlsym(RTLD_NEXT, "umad_send");
		n_total++;
		n_attr[mad[16] << 8 | mad[17]]++;	/* AttributeID, big endian */
		return real(fd, agentid, umad, length, timeout_ms, retries);
	}
	__attribute__((destructor)) static void madcount_report(void)
	{
		const char *path = getenv("MADCOUNT_OUT");
		FILE *f = path ? fopen(path, "a") : NULL;

		if (!f || !n_total)
			goto out;
		fprintf(f, "total %lu", n_total);
		for (unsigned int i = 0; i < 65536; i++)
			if (n_attr[i])
				fprintf(f, " 0x%04x=%lu", i, n_attr[i]);
		fprintf(f, "\n");
	out:
		if (f)
			fclose(f);
	}
	EOF
	if cc -shared -fPIC -O2 -o "$WORK/madcount.so" "$WORK/madcount.c" -ldl 2>"$WORK/cc.err"; then
		MADCOUNT=$WORK/madcount.so
	fi
fi
# mads NAME CMD...: MADs that CMD sends (one untimed run), or "n/a".
mads() {
	local name=$1
	shift
	if [ -z "$MADCOUNT" ]; then
		echo "n/a (no cc)"
		return
	fi
	LD_PRELOAD=$MADCOUNT MADCOUNT_OUT=$WORK/$name.mads ibsim_run "$@" >/dev/null 2>&1
	awk '{ sub(/0x0010=/, "NodeDesc="); sub(/0x0011=/, "NodeInfo=");
	       sub(/0x0012=/, "SwitchInfo="); sub(/0x0015=/, "PortInfo="); print }' "$WORK/$name.mads"
}

# Warm up both (page cache, umad2sim's fake sysfs).
ibsim_run ibnetdiscover >/dev/null 2>&1
ibsim_run "$FABRICCTL" discover --ib --no-counters >/dev/null 2>&1
for i in $(seq 1 "$REPS"); do
	timed ref ibnetdiscover
	timed refo ibnetdiscover -o 64	# fabricctl's 64 SMPs in flight: the headline
	timed our "$FABRICCTL" discover --ib --no-counters -j
	timed our2 "$FABRICCTL" discover --ib --no-counters -j --max-smps 2
done
grep -q '"links":3888' "$WORK/our.out" || fail "fabricctl did not see all 3888 links"
grep -q '"switches":369,' "$WORK/our.out" || fail "fabricctl did not see all 369 switches"
[ "$(grep -c '^Switch' "$WORK/ref.out")" = 369 ] || fail "ibnetdiscover did not see 369 switches"
ref_mads=$(mads ref ibnetdiscover)
our_mads=$(mads our "$FABRICCTL" discover --ib --no-counters -j)
printf 'discover 1296-HCA 3-level fat tree (1665 nodes, 3888 links), %s runs each, interleaved; load %s\n' \
	"$REPS" "$(cut -d' ' -f1-3 /proc/loadavg)"
line() { # LABEL NAME
	local wmin wmed cmin cmed smed
	read -r wmin wmed < <(stats "$WORK/$2.ms" 1)
	read -r cmin cmed < <(stats "$WORK/$2.ms" 2)
	read -r _ smed < <(stats "$WORK/$2.ms" 3)
	printf '  %-26s wall min %5d median %5d ms   cpu min %4d median %4d ms   ibsim cpu median %4d ms\n' \
		"$1" "$wmin" "$wmed" "$cmin" "$cmed" "$smed"
}
line ibnetdiscover ref
line "ibnetdiscover -o 64" refo
line "fabricctl discover --ib" our
line "  same, --max-smps 2" our2
printf '  mads ibnetdiscover: %s\n  mads fabricctl:     %s\n' "$ref_mads" "$our_mads"
read -r ref_min ref_med < <(stats "$WORK/ref.ms" 1)
read -r our_min our_med < <(stats "$WORK/our.ms" 1)
read -r _ refc_med < <(stats "$WORK/ref.ms" 2)
read -r _ ourc_med < <(stats "$WORK/our.ms" 2)
refa_med=$(awk '{ print $2 + $3 }' "$WORK/ref.ms" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
oura_med=$(awk '{ print $2 + $3 }' "$WORK/our.ms" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
read -r _ refo_med < <(stats "$WORK/refo.ms" 1)
# Headline: the same 64 SMPs in flight (ibnetdiscover -o 64), median wall;
# beside it ibnetdiscover's default window of 2 (the same library, another
# window: that ratio mostly measures the window).
awk -v c="$our_med" -v o="$refo_med" -v d="$ref_med" \
	'BEGIN { printf "  ratio fabricctl/ibnetdiscover -o 64 (same SMPs in flight): wall median %.2f (target <= 1.00); default window: %.2f\n", c / o, c / d }'
awk -v a="$our_min" -v b="$ref_min" -v c="$our_med" -v d="$ref_med" -v e="$ourc_med" -v f="$refc_med" \
	-v g="$oura_med" -v h="$refa_med" \
	'BEGIN { printf "  ratio fabricctl/ibnetdiscover (default window 2): wall min %.2f, wall median %.2f; cpu median %.2f, cpu+ibsim median %.2f\n", a / b, c / d, e / f, g / h }'
target_rc=$(awk -v c="$our_med" -v o="$refo_med" 'BEGIN { print (c <= o) ? 0 : 1 }')
[ "$target_rc" = 0 ] || echo "discover bench: TARGET MISSED (fabricctl slower than ibnetdiscover -o 64)"

# With PMA counters (every linked port, PortCounters + PortCountersExtended).
ibsim_sm >/dev/null 2>&1 || fail "opensm sweep failed"
for i in $(seq 1 3); do
	timed ctr "$FABRICCTL" discover --ib -j
done
read -r ctr_min ctr_med < <(stats "$WORK/ctr.ms" 1)
printf '  fabricctl discover --ib with counters (7776 ports): wall min %d ms, median %d ms\n' "$ctr_min" "$ctr_med"
exit "$target_rc"
