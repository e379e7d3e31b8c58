#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# The default coverage sweep past 256 hosts (docs/sweep.md, "Default") on
# hosts of several fabric ports (rails), dry runs on a generated plan:
# H hosts x 2 NICs, NIC 0 on rail-0 leaves, NIC 1 on rail-1 leaves (44
# hosts a leaf), every leaf on two spines, 100 Gb/s everywhere.
#  1. 264 hosts (528 end points): a coverage sweep with K = 3 a rail, as
#     --coverage 3 gives: rail-aligned pairs only, every port in >= 3 pairs
#     of its rail, every link a rail reaches crossed >= 3 times (none short),
#     264 x 3 / 2 pairs a rail; the stderr line counts hosts, ports and the
#     2 x C(264, 2) rail pairs --all-pairs would be.
#  2. 256 hosts (512 end points, more than 256): hosts are nodes, so the
#     sweep stays all pairs (2 x C(256, 2) rail pairs).
#  3. The same 264 hosts with one line each (NIC 0 alone): the coverage
#     sweep and its stderr line as before rails.
# (--cross-rail past 256 hosts stays all pairs, with a line saying so: not
# run here, its 138,864 pairs take 20 s to schedule.)
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd jq awk
need_fabricctl
tmpdir_with_cleanup

# gen N PREFIX [RAILS]: PREFIX.yaml (the plan) and PREFIX.hosts.
gen() {
	awk -v N="$1" -v R="${3:-2}" -v LH=44 -v PLAN="$2.yaml" -v HOSTS="$2.hosts" '
	BEGIN {
		nl = int((N + LH - 1) / LH)
		print "version: 1\ndefaults:\n  speed_mbps: 100000\nnodes:" > PLAN
		for (r = 0; r < R; r++)
			for (l = 1; l <= nl; l++)
				printf "  - { name: r%dl%d, type: switch, rail: %d }\n", r, l, r > PLAN
		print "  - { name: spine1, type: switch }\n  - { name: spine2, type: switch }" > PLAN
		for (h = 1; h <= N; h++)
			printf "  - { name: h%d, type: host%s }\n", h, (R > 1 ? ", nics: [eth0, eth1]" : "") > PLAN
		print "links:" > PLAN
		for (h = 1; h <= N; h++)
			for (r = 0; r < R; r++) {
				printf "  - [ \"h%d:eth%d\", \"r%dl%d:swp%d\" ]\n", h, r, r,
					int((h - 1) / LH) + 1, (h - 1) % LH + 1 > PLAN
				printf "h%d 10.%d.%d.%d%s\n", h, r, int(h / 250), h % 250 + 1,
					(R > 1 ? " ifname=eth" r : "") > HOSTS
			}
		for (r = 0; r < R; r++)
			for (l = 1; l <= nl; l++)
				for (s = 1; s <= 2; s++)
					printf "  - [ \"r%dl%d:swp%d\", \"spine%d:swp%d\" ]\n", r, l,
						60 + s, s, r * nl + l > PLAN
	}'
}

# dry PREFIX [-j] [ARGS...]: the dry run's output in $TMP/out, stderr in $TMP/err, status in $rc.
dry() {
	local p=$1
	shift
	pretty "$FABRICCTL -v sweep --hosts $p.hosts --topology $p.yaml --dry-run $*"
	rc=0
	"$FABRICCTL" -v sweep --hosts "$p.hosts" --topology "$p.yaml" --dry-run "$@" \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	grep -v '^fabricctl: topology: ' "$TMP/err" >&2 || true
}
q() { jq -r "$@" "$TMP/out"; }

# --- 1. 264 hosts x 2 rails: the coverage sweep a rail ------------------------------
gen 264 "$TMP/r264"
assert_eq "hosts file: two lines a host" 528 "$(wc -l <"$TMP/r264.hosts")"
dry "$TMP/r264" -j
assert_eq "264 x 2: rc, mode, K" "0 coverage 3" "$rc $(q .mode) $(q .schedule.coverage.k)"
assert_eq "264 x 2: pairs (396 a rail)" 792 "$(q '.pairs | length')"
assert_eq "264 x 2: every pair rail-aligned" 792 \
	"$(q '[.pairs[] | select(.a_nic == .b_nic and .a_rail == .b_rail and .a_host != .b_host)] | length')"
assert_eq "264 x 2: pairs on rail 0, rail 1" "396 396" \
	"$(q '[.pairs[] | select(.a_rail == 0)] | length') $(q '[.pairs[] | select(.a_rail == 1)] | length')"
assert_eq "264 x 2: every port in >= 3 pairs" "528 3" \
	"$(q '[.pairs[] | .a, .b] | group_by(.) | "\(length) \(map(length) | min)"')"
assert_eq "264 x 2: links (264 access + 12 uplinks a rail), none short" "552 0 0 0" \
	"$(q '.schedule.coverage | "\(.links_target) \(.links_short) \(.links_unreachable) \(.hosts_short)"')"
assert_eq "264 x 2: no NIC in two tests of a round" 0 \
	"$(q '[.schedule.round_pairs[] | [.[][]] | (length - (unique | length))] | add')"
assert_eq "264 x 2: the stderr line" "fabricctl: sweep: 264 hosts (more than 256) of 528 fabric ports: coverage sweep a rail, every link crossed by and every port in at least 3 pairs of its rail; --all-pairs for all 69432 rail pairs" \
	"$(grep 'coverage sweep' "$TMP/err")"
# The same pairs as --coverage 3 asked for.
cp "$TMP/out" "$TMP/auto.json"
dry "$TMP/r264" -j --coverage 3
assert_eq "264 x 2: the pairs of --coverage 3" "$(jq -c '[.pairs[] | [.a, .b]]' "$TMP/auto.json" | md5sum)" \
	"$(q -c '[.pairs[] | [.a, .b]]' | md5sum)"

# --- 2. 256 hosts x 2 rails (512 end points): all pairs -----------------------------
gen 256 "$TMP/r256"
dry "$TMP/r256"	# the text: 65,280 pairs' paths in JSON are 130 MB
assert_eq "256 x 2: all pairs, every rail pair (2 x 32640)" "0 512 65280 all-pairs" \
	"$rc $(sed -n 's/^sweep --dry-run: \([0-9]*\) nodes, \([0-9]*\) pairs in [0-9]* rounds (\(.*\))$/\1 \2 \3/p' "$TMP/out")"
assert_eq "256 x 2: no coverage line" 0 "$(grep -c 'coverage sweep' "$TMP/err" || true)"

# --- 3. 264 hosts of one line each: as before ---------------------------------------
gen 264 "$TMP/o264" 1
dry "$TMP/o264" -j
assert_eq "264 x 1: rc, mode, pairs" "0 coverage 396" "$rc $(q .mode) $(q '.pairs | length')"
assert_eq "264 x 1: no port fields" 0 "$(q '[.pairs[] | select(has("a_nic"))] | length')"
assert_eq "264 x 1: the stderr line" "fabricctl: sweep: 264 hosts (more than 256): coverage sweep, every link crossed by and every host in at least 3 pairs; --all-pairs for all 34716" \
	"$(grep 'coverage sweep' "$TMP/err")"
echo "sweep-rails-auto: ok" >&2
