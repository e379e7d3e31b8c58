#!/bin/bash
# Benchmark: the verbs transport of `fabricctl sweep` against perftest on
# the same Soft-RoCE link (two rxe devices on a veth pair in one VM, see
# tests/vm/lib.sh vm_rxe_pair), measured in the same run, alternating the
# tools ROUNDS times and comparing each tool's median of the ROUNDS figures
# (not the best):
#   bandwidth  sweep a->b average      vs  ib_write_bw -D average   (target >= BW_MIN)
#   latency    sweep median RTT / 2    vs  ib_write_lat t_typical   (target <= LAT_MAX)
# Same message sizes (64 KiB writes, 2-byte ping-pong), same tx depth
# (128), RoCE v2 GIDs found by address for both tools.  rxe under TCG is
# slow (a few ms, well under 1 Gb/s): the ratios matter, not the figures.
# On one TCG vCPU both ratios, bandwidth as much as latency, mostly measure
# perftest's busy polling against fabricctl's spin-then-yield completion
# wait (the CPU rxe itself needs), not the wire: VERBS_BENCH_SWEEP_ARGS=
# "--verbs-spin-us 10000000" makes fabricctl spin like perftest.
#
# On the host this boots a VM (tests/vm/run) and runs itself inside it.
# Environment: VERBS_BENCH_BW_MIN (0.98), VERBS_BENCH_LAT_MAX (1.05),
# VERBS_BENCH_DURATION (seconds, 2), VERBS_BENCH_ITERS (200),
# VERBS_BENCH_ROUNDS (3), VERBS_BENCH_SMP (VM CPUs, 1); VERBS_BENCH_SWEEP_ARGS
# (extra sweep options, e.g. "--verbs-spin-us 10000000" to spin without
# ever yielding, exactly like perftest; docs/verbs.md).
# Exit 0 when both targets are met, 1 otherwise, 77 when the VM cannot run.
set -eu
. "$(dirname "$0")/../lib/common.sh"

BW_MIN=${VERBS_BENCH_BW_MIN:-0.98}
LAT_MAX=${VERBS_BENCH_LAT_MAX:-1.05}
DUR=${VERBS_BENCH_DURATION:-2}
ITERS=${VERBS_BENCH_ITERS:-200}
ROUNDS=${VERBS_BENCH_ROUNDS:-3}

if [ "${FABVM:-}" != 1 ]; then
	[ -x "$TOP/tests/vm/run" ] || skip "tests/vm/run missing"
	[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make first)"
	exec "$TOP/tests/vm/run" --smp "${VERBS_BENCH_SMP:-1}" --timeout 900 -- \
		env VERBS_BENCH_BW_MIN="$BW_MIN" VERBS_BENCH_LAT_MAX="$LAT_MAX" \
		VERBS_BENCH_DURATION="$DUR" VERBS_BENCH_ITERS="$ITERS" VERBS_BENCH_ROUNDS="$ROUNDS" \
		VERBS_BENCH_SWEEP_ARGS="${VERBS_BENCH_SWEEP_ARGS:-}" \
		"$TOP/tests/bench/verbs.sh"
fi

. "$TOP/tests/vm/lib.sh"
need_cmd jq rdma ib_write_bw ib_write_lat ss
tmp=$(mktemp -d /tmp/bench-verbs.$$.XXXXXX)
spid=
cleanup() {
	set +e
	[ -z "$spid" ] || { kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; }
	rm -rf "$tmp"
	vm_reset >/dev/null 2>&1
}
trap cleanup EXIT

vm_rxe_pair fabba fabbb 192.168.77.1 192.168.77.2
printf 'ba 192.168.77.1 rdma=%s\nbb 192.168.77.2 rdma=%s\n' "$RXE_A" "$RXE_B" >"$tmp/hosts"

# perftest TOOL OUT ARGS...: server on B, client on A, a port free now.
perftest() {
	local tool=$1 out=$2 port
	shift 2
	port=$(vm_free_tcp_port)
	"$tool" -d "$RXE_B" -x "$GID_B" -F --report_gbits -p "$port" "$@" >"$tmp/server.log" 2>&1 &
	spid=$!
	vm_wait_for "$tool server on port $port" 30 sh -c "ss -Hltn 'sport = :$port' | grep -q ."
	run "$tool" -d "$RXE_A" -x "$GID_A" -F --report_gbits -p "$port" "$@" 192.168.77.2 >"$out" 2>&1 ||
		{ cat "$out" "$tmp/server.log" >&2; fail "$tool client failed"; }
	wait "$spid" || { cat "$tmp/server.log" >&2; fail "$tool server failed"; }
	spid=
	cat "$out" >&2
}

sweep() {
	run "$FABRICCTL" sweep --hosts "$tmp/hosts" --launcher 'env FAB_NODE={host}' \
		--transport verbs -j --timeout 60 --no-progress ${VERBS_BENCH_SWEEP_ARGS:-} "$@" \
		>"$tmp/sweep.json" ||
		fail "fabricctl sweep failed: $(head -c 400 "$tmp/sweep.json")"
	[ "$(jq -r '.pairs[0].status' "$tmp/sweep.json")" != failed ] ||
		fail "sweep pair failed: $(jq -r '.pairs[0].reason' "$tmp/sweep.json")"
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

pt_bw=() fc_bw=() pt_lat=() fc_lat=()
for r in $(seq "$ROUNDS"); do
	pretty "round $r of $ROUNDS"
	# Bandwidth, client (a) -> server (b), 64 KiB RDMA writes, tx depth 128.
	sweep --duration "$DUR" --lat-iters 0
	fc_bw+=("$(jq -r '.pairs[0].bw_ab.avg_mbps / 1000' "$tmp/sweep.json")")
	perftest ib_write_bw "$tmp/bw.out" -s 65536 -t 128 -D "$DUR"
	v=$(awk '$1 == 65536 && NF >= 5 { print $4 }' "$tmp/bw.out" | tail -1)
	[ -n "$v" ] || fail "no figure in ib_write_bw output"
	pt_bw+=("$v")
	# Latency, 2-byte RDMA-write ping-pong.
	sweep --duration 0 --lat-iters "$ITERS" --msg-size 2
	fc_lat+=("$(jq -r '.pairs[0].lat_ns.p50 / 2000' "$tmp/sweep.json")")
	perftest ib_write_lat "$tmp/lat.out" -s 2 -n "$ITERS"
	v=$(awk '$1 == 2 && NF >= 5 { print $5 }' "$tmp/lat.out" | tail -1)
	[ -n "$v" ] || fail "no figure in ib_write_lat output"
	pt_lat+=("$v")
done

fbw=$(median "${fc_bw[@]}") pbw=$(median "${pt_bw[@]}")
flat=$(median "${fc_lat[@]}") plat=$(median "${pt_lat[@]}")
awk -v fbw="$fbw" -v pbw="$pbw" -v flat="$flat" -v plat="$plat" -v bwmin="$BW_MIN" \
	-v latmax="$LAT_MAX" -v rb="${fc_bw[*]} | ${pt_bw[*]}" -v rl="${fc_lat[*]} | ${pt_lat[*]}" '
BEGIN {
	bwr = pbw > 0 ? fbw / pbw : 0
	latr = plat > 0 ? flat / plat : 99
	printf "verbs bandwidth: fabricctl %.4f Gb/s, ib_write_bw %.4f Gb/s (medians of the rounds), ratio %.3f (target >= %s)  [rounds: %s]\n", fbw, pbw, bwr, bwmin, rb
	printf "verbs latency:   fabricctl %.1f us, ib_write_lat %.1f us (one way; medians of the rounds), ratio %.3f (target <= %s)  [rounds: %s]\n", flat, plat, latr, latmax, rl
	ok = bwr >= bwmin && latr <= latmax
	print ok ? "verbs bench: targets met" : "verbs bench: TARGET MISSED"
	exit ok ? 0 : 1
}'
