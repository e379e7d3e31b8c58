#!/bin/bash
# Benchmark: a no-op `fabricctl apply` and a `fabricctl verify` on one lab
# node (tests/lab/netns), median of N runs, timed with date +%s%N around
# each process.  There is no reference tool for this: the ratio printed is
# against the 100 ms target for a no-op apply (ratio < 1 is good); exit 1
# when it is missed, 77 (skipped) without root.
#   N=21 tests/bench/apply.sh
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FABRICCTL=${FABRICCTL:-$TOP/fabricctl}
N=${N:-21}
[ "$(id -u)" = 0 ] || { echo "apply bench: needs root (namespaces), skipped"; exit 77; }
[ -x "$FABRICCTL" ] || { echo "apply bench: $FABRICCTL not built" >&2; exit 1; }
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"
P=bap$$
TMP=$(mktemp -d)
cleanup() { lab_down --name "$P" >/dev/null 2>&1 || true; rm -rf "$TMP"; }
trap cleanup EXIT
LAB_QUIET=1 lab_up --name "$P" --hosts 1 --leaves 1 --spines 0 --mtu 1500 --no-lldp >/dev/null 2>&1
H1=$(lab_ns h1)
printf 'interfaces:\n  - match: "eth*"\n    mtu: 9000\n' >"$TMP/p.yaml"
export FABRICCTL_RUNDIR=$TMP/run
ip netns exec "$H1" "$FABRICCTL" apply "$TMP/p.yaml" >/dev/null	# now every apply is a no-op

# median_ms CMD...: run CMD N times, print the median wall time in ms (3 decimals).
median_ms() {
	local i t0 t1
	for ((i = 0; i < N; i++)); do
		t0=$(date +%s%N)
		"$@" >/dev/null || [ $? = 1 ]
		t1=$(date +%s%N)
		echo $(( (t1 - t0) / 1000 ))
	done | sort -n | awk '{ a[NR] = $1 } END { printf "%.3f\n", a[int((NR + 1) / 2)] / 1000 }'
}
base=$(median_ms ip netns exec "$H1" true)
noop=$(median_ms ip netns exec "$H1" "$FABRICCTL" apply "$TMP/p.yaml")
ver=$(median_ms ip netns exec "$H1" "$FABRICCTL" verify "$TMP/p.yaml")
full=$(median_ms ip netns exec "$H1" "$FABRICCTL" verify "$TOP/profiles/roce-lossless.yaml")
# The no-op plan really is empty (else the figure means nothing).
ip netns exec "$H1" "$FABRICCTL" -j apply "$TMP/p.yaml" | grep -q '"changes":0' || { echo "apply bench: plan not empty" >&2; exit 1; }
printf 'apply bench (N=%d, median wall ms incl. ip netns exec; bare "ip netns exec true" = %s ms)\n' "$N" "$base"
printf '  no-op apply (mtu profile):      %8s ms   ratio to 100 ms target: %s\n' "$noop" "$(awk -v a="$noop" 'BEGIN { printf "%.3f", a / 100 }')"
printf '  verify (mtu profile):           %8s ms\n' "$ver"
printf '  verify (roce-lossless, drift):  %8s ms\n' "$full"
awk -v a="$noop" 'BEGIN { exit !(a <= 100) }' || { echo "apply bench: TARGET MISSED (no-op apply above 100 ms)" >&2; exit 1; }
