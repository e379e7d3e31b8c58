#!/bin/bash
# --baseline's memory (issue 22, item 10): a 109 MB baseline of 400k pairs
# (gen-big-baseline.awk) loaded by `sweep --dry-run --baseline`; peak RSS
# (/usr/bin/time) and wall time, median of BASE_RUNS (3).  8419e42 took
# 1.15 GB and 15 s here.  Target: peak RSS at most BASE_TARGET_MIB (64).
set -u
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd awk /usr/bin/time
need_fabricctl
RUNS=${BASE_RUNS:-3}
TARGET=${BASE_TARGET_MIB:-64}
tmpdir_with_cleanup

awk -v PAIRS=400000 -f "$TOP/tests/bench/gen-big-baseline.awk" >"$TMP/big.json" || fail "gen-big-baseline.awk"
printf 'h1 10.0.0.1\nh2 10.0.0.2\nh3 10.0.0.3\n' >"$TMP/hosts"
s=() r=()
for _ in $(seq "$RUNS"); do
	/usr/bin/time -f '%e %M' -o "$TMP/time" "$FABRICCTL" sweep --hosts "$TMP/hosts" --dry-run \
		--baseline "$TMP/big.json" >/dev/null || fail "sweep --baseline failed"
	s+=("$(cut -d' ' -f1 "$TMP/time")")
	r+=("$(cut -d' ' -f2 "$TMP/time")")
done
med() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
rss=$(med "${r[@]}")
echo "baseline $(stat -c %s "$TMP/big.json") bytes, 400000 pairs: ${s[*]} s (median $(med "${s[@]}") s), peak RSS median $((rss / 1024)) MiB (target <= $TARGET MiB); load $(cut -d' ' -f1 /proc/loadavg)"
[ "$rss" -le $((TARGET * 1024)) ] || { echo "baseline: memory target missed"; exit 1; }
