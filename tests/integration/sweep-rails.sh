#!/bin/bash
# sweep of hosts with several fabric ports (rails) in the netns lab:
# 4 hosts x 2 NICs, eth0 on leaf1 (rail 0), eth1 on leaf2 (rail 1), one
# spine joining the leaves, every host cable shaped to 1 Gbit/s, lldpd.
# The plan is discover --save-plan's, rails and all (rail:, nics:).
#  1. Clean: every host pair on both rails (12 end-point pairs, each NIC i
#     to NIC i of another host), both rails in the same rounds (3 rounds,
#     as one rail alone: <= 1.25 x), all ok, exit 0; JSON pairs carry both
#     ends' NICs and rails, CSV and Prometheus the NIC.  Dry runs:
#     --per-host 1 (one test a host a round), --cross-rail (NIC i to j);
#     --coverage 1 (a matching a rail: 4 rail-aligned pairs, every NIC's
#     access link crossed, both rails in one round), with --per-host 1,
#     --coverage 2 --new (h4 new: each of its NICs in 2 pairs of its rail),
#     --coverage with --cross-rail refused.
#  2. h2's rail-1 cable slowed to 200 Mbit/s (tbf): exactly h2:eth1's three
#     rail-1 pairs slow, rail 0 all ok, exit 1; the suspect is h2:eth1 and
#     its access link leaf2:swp2; the text has a matrix a rail; the HTML
#     report marks h2 alone as a host whose rails disagree, and has a view
#     a rail (selector; h2's pairs slow in rail 1's view alone).  --coverage 2
#     (8 pairs; the retest clears a pair slow by chance): exactly h2:eth1's pairs slow, h2:eth1 named.
#  3. h2's eth1 down: exactly its three rail-1 pairs failed, each with
#     "h2:eth1: eth1 down (...)" first, the other nine measured and ok, exit 1; the suspect is h2:eth1; status --hosts lists
#     every port, h2's eth1 down.
#  4. diagnose h1 h3 measures both rails; diagnose h1:eth1 h3 rail 1 only.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip tc jq lldpd lldpcli python3
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

L=rl$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$L" || true; }

COMMON=(--launcher netns --transport tcp --duration 0.5 --lat-iters 200)

# sweep ARGS...: JSON to $TMP/out, exit status in $rc.
sweep() {
	pretty "$FABRICCTL -j sweep --hosts $TMP/hosts ${COMMON[*]} $*"
	rc=0
	"$FABRICCTL" -j sweep --hosts "$TMP/hosts" "${COMMON[@]}" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	tail -n 5 "$TMP/err" >&2
}
q() { jq -r "$@" "$TMP/out"; }
# The pairs with a status, "A B" sorted.
pairs_with() { q --arg s "$1" '[.pairs[] | select(.status == $s) | [.a, .b] | sort | join(" ")] | sort | .[]'; }
# Every pair of rail R's NICs (ethR of h1..h4), or those with host H, computed here.
rail_pairs() { # R [H]
	local i j
	for i in 1 2 3 4; do
		for j in 1 2 3 4; do
			[ "$i" -lt "$j" ] || continue
			[ -z "${2:-}" ] || [ "$i" = "$2" ] || [ "$j" = "$2" ] || continue
			echo "$L-h$i:eth$1 $L-h$j:eth$1"
		done
	done | sort
}

run lab_up --name "$L" --hosts 4 --leaves 2 --spines 1 --rails 2 --host-rate 1gbit
lab_hostsfile >"$TMP/hosts"
lab_hostsfile --switches >"$TMP/hosts.sw"
run lab_lldp_wait
assert_eq "hosts file: two lines a host" 8 "$(grep -c ' ifname=eth[01] ' "$TMP/hosts")"

# The plan as discover saves it: the hosts file's two lines a host give its nics:, and
# the leaves their rail: (each leaf's host ports all on one rail).
run "$FABRICCTL" discover --lldp --hosts "$TMP/hosts.sw" --launcher netns --save-plan "$TMP/plan.yaml" >/dev/null
assert_eq "plan: rail and nics lines" "- {name: $L-h1, type: host, nics: [eth0, eth1]
- {name: $L-h2, type: host, nics: [eth0, eth1]
- {name: $L-h3, type: host, nics: [eth0, eth1]
- {name: $L-h4, type: host, nics: [eth0, eth1]
- {name: $L-leaf1, type: switch, rail: 0
- {name: $L-leaf2, type: switch, rail: 1" \
	"$(grep 'rail: \|nics: ' "$TMP/plan.yaml" | sed 's/[,}] *addresses.*//; s/}$//' | sort)"
rc=0
"$FABRICCTL" discover --lldp --hosts "$TMP/hosts.sw" --launcher netns --expect "$TMP/plan.yaml" >/dev/null 2>&1 || rc=$?
assert_eq "discover --expect the rail plan: cabling as planned" 0 "$rc"

# --- 1. clean ----------------------------------------------------------------------
sweep --topology "$TMP/plan.yaml" --dry-run --per-host 1
assert_eq "--per-host 1 dry run: pairs" 12 "$(q '.pairs | length')"
assert_eq "--per-host 1 dry run: rounds (2 tests a round)" 6 "$(q .schedule.rounds)"
assert_eq "--per-host 1 dry run: no host in two tests of a round" 0 \
	"$(q '[.schedule.round_pairs[] | [.[][] | sub(":.*"; "")] | (length - (unique | length))] | add')"
sweep --topology "$TMP/plan.yaml" --dry-run --cross-rail
assert_eq "--cross-rail dry run: pairs (every NIC of each host pair)" 24 "$(q '.pairs | length')"
assert_eq "--cross-rail dry run: no pair within a host" 0 "$(q '[.pairs[] | select(.a_host == .b_host)] | length')"

# --coverage K: the picker a rail, NIC i to NIC i; both rails in the same rounds.
rail_aligned='[.pairs[] | select(.a_nic == .b_nic and .a_rail == .b_rail and .a_host != .b_host)] | length'
nic_once='[.schedule.round_pairs[] | [.[][]] | (length - (unique | length))] | add'
sweep --topology "$TMP/plan.yaml" --dry-run --coverage 1
assert_eq "--coverage 1 dry run: rc, mode" "0 coverage" "$rc $(q .mode)"
assert_eq "--coverage 1 dry run: a matching a rail (4 pairs of 12)" 4 "$(q '.pairs | length')"
assert_eq "--coverage 1 dry run: every pair rail-aligned" 4 "$(q "$rail_aligned")"
assert_eq "--coverage 1 dry run: pairs on rail 0, rail 1" "2 2" \
	"$(q '[.pairs[] | select(.a_rail == 0)] | length') $(q '[.pairs[] | select(.a_rail == 1)] | length')"
assert_eq "--coverage 1 dry run: every access link crossed (each NIC in a pair)" 8 \
	"$(q '[.pairs[] | .a, .b] | unique | length')"
assert_eq "--coverage 1 dry run: 8 links, none short" "8 0 0" \
	"$(q '.schedule.coverage | "\(.links_target) \(.links_short) \(.hosts_short)"')"
assert_eq "--coverage 1 dry run: both rails in one round" 1 "$(q .schedule.rounds)"
assert_eq "--coverage 1 dry run: no NIC in two tests of a round" 0 "$(q "$nic_once")"
sweep --topology "$TMP/plan.yaml" --dry-run --coverage 1 --per-host 1
assert_eq "--coverage 1 --per-host 1 dry run: pairs, rounds" "4 2" "$(q '.pairs | length') $(q .schedule.rounds)"
assert_eq "--coverage 1 --per-host 1 dry run: no host in two tests of a round" 0 \
	"$(q '[.schedule.round_pairs[] | [.[][] | sub(":.*"; "")] | (length - (unique | length))] | add')"
sed "s/^$L-h4 .*/& new/" "$TMP/hosts" >"$TMP/hosts.new"
pretty "$FABRICCTL -j sweep --hosts $TMP/hosts.new ${COMMON[*]} --topology $TMP/plan.yaml --dry-run --coverage 2 --new"
rc=0
"$FABRICCTL" -j sweep --hosts "$TMP/hosts.new" "${COMMON[@]}" --topology "$TMP/plan.yaml" --dry-run \
	--coverage 2 --new >"$TMP/out" 2>"$TMP/err" || rc=$?
assert_eq "--coverage 2 --new dry run: rc, mode" "0 coverage-new" "$rc $(q .mode)"
assert_eq "--coverage 2 --new dry run: every pair has h4, rail-aligned" \
	"$(q '.pairs | length') $(q '.pairs | length')" \
	"$(q --arg h "$L-h4" '[.pairs[] | select(.a_host == $h or .b_host == $h)] | length') $(q "$rail_aligned")"
assert_eq "--coverage 2 --new dry run: each of h4's NICs in >= 2 pairs" "2 2" \
	"$(for n in 0 1; do
		q --arg e "$L-h4:eth$n" '[.pairs[] | select(.a == $e or .b == $e)] | length | [., 2] | min'
	   done | paste -sd' ')"
rc=0
"$FABRICCTL" sweep --hosts "$TMP/hosts" "${COMMON[@]}" --topology "$TMP/plan.yaml" --dry-run \
	--coverage 1 --cross-rail >/dev/null 2>"$TMP/err" || rc=$?
assert_eq "--coverage --cross-rail: refused" 2 "$rc"
grep -q -- "--coverage chooses pairs on each rail" "$TMP/err" || fail "--coverage --cross-rail: $(cat "$TMP/err")"

sweep --topology "$TMP/plan.yaml" --csv "$TMP/csv" --prom "$TMP/prom"
echo "clean: $(q '.summary | "\(.ok) ok, \(.slow) slow, \(.failed) failed"') in $(q .schedule.rounds) rounds" >&2
assert_eq "clean: rc" 0 "$rc"
assert_eq "clean: rail 0 pairs" "$(rail_pairs 0)" "$(q '[.pairs[] | select(.a_rail == 0) | [.a, .b] | sort | join(" ")] | sort | .[]')"
assert_eq "clean: rail 1 pairs" "$(rail_pairs 1)" "$(q '[.pairs[] | select(.a_rail == 1) | [.a, .b] | sort | join(" ")] | sort | .[]')"
assert_eq "clean: all ok" "$( (rail_pairs 0; rail_pairs 1) | sort)" "$(pairs_with ok)"
assert_eq "clean: each pair NIC i to NIC i" 12 \
	"$(q '[.pairs[] | select(.a_nic == .b_nic and .a_rail == .b_rail and .a_host != .b_host and .a == "\(.a_host):\(.a_nic)")] | length')"
assert_eq "clean: every pair at >= 80 % of its path" 12 "$(q '[.pairs[] | select(.pct_expected >= 80)] | length')"
# One rail of 4 hosts is 3 rounds: both rails in the same 3 (<= 1.25 x).
assert_eq "clean: rounds" 3 "$(q .schedule.rounds)"
assert_eq "clean: every round has both rails, 2 pairs each" "2 2 2 2 2 2" \
	"$(q '[.schedule.round_pairs[] | (map(select(.[0] | endswith(":eth0"))) | length), (map(select(.[0] | endswith(":eth1"))) | length)] | map(tostring) | join(" ")')"
assert_eq "clean: nodes carry host, nic, rail" "$L-h2 eth1 1" \
	"$(q --arg n "$L-h2:eth1" '.nodes[] | select(.name == $n) | "\(.host) \(.nic) \(.rail)"')"
assert_eq "csv: columns of the ends' ports" "a_host,a_nic,a_rail,b_host,b_nic,b_rail" \
	"$(head -n 1 "$TMP/csv" | tr -d '\r' | tr ',' '\n' | tail -n 6 | paste -sd,)"
assert_eq "csv: 12 rows with a NIC" 12 "$(tr -d '\r' <"$TMP/csv" | grep -c ",$L-h[1-4],eth[01],[01],$L-h[1-4],eth[01],[01]\$")"
grep -q "a_host=\"$L-h1\",a_nic=\"eth1\"" "$TMP/prom" || fail "prometheus: no a_host/a_nic labels"

# --- 2. h2's rail-1 cable slow -----------------------------------------------------
run lab_slow h2:eth1 200mbit
sweep --topology "$TMP/plan.yaml"
echo "h2:eth1 slow: $(q '.summary | "\(.ok) ok, \(.slow) slow, \(.failed) failed"')" >&2
assert_eq "h2:eth1 slow: rc" 1 "$rc"
assert_eq "h2:eth1 slow: exactly its rail-1 pairs slow" "$(rail_pairs 1 2)" "$(pairs_with slow)"
assert_eq "h2:eth1 slow: rail 0 all ok" 6 "$(q '[.pairs[] | select(.a_rail == 0 and .status == "ok")] | length')"
assert_eq "h2:eth1 slow: first suspect" "$L-h2:eth1" "$(q '.suspects[0].node')"
assert_eq "h2:eth1 slow: its access link" "$L-h2:eth1 $L-leaf2:swp2" \
	"$(q '.suspects[0].link | "\(.a.node):\(.a.port) \(.b.node):\(.b.port)"')"
assert_eq "h2:eth1 slow: one suspect" 1 "$(q '.suspects | length')"
# The HTML report marks the host whose rails disagree: h2 alone.
run "$FABRICCTL" report "$TMP/out" -o "$TMP/r.html"
assert_eq "report: hosts whose rails disagree" "<tr><td>$L-h2</td>" \
	"$(grep 'rails disagree' "$TMP/r.html" | grep -o '^<tr><td>[^<]*</td>')"
# And one heatmap a rail: the selector, each rail's view over the four hosts, h2's pairs slow in rail 1's.
assert_eq "report: the rail selector" "all 0 1" \
	"$(grep -o 'class="rsel[^"]*" data-view="[^"]*"' "$TMP/r.html" | sed 's/.*data-view="//; s/"$//' | paste -sd' ')"
assert_eq "report: a view a rail, its slow pairs" "0: $L-h1 $L-h2 $L-h3 $L-h4, 0 slow
1: $L-h1 $L-h2 $L-h3 $L-h4, 3 slow" "$(python3 - "$TMP/r.html" <<'EOF'
import base64, json, re, sys
D = json.loads(re.search(r'id="fab-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
for v in D["rails"]:
    slow = sum(b & 7 == 2 for b in base64.b64decode(v["cols"]["st"]))
    print("%d: %s, %d slow" % (v["rail"], " ".join(sorted(h[0] for h in v["hosts"])), slow))
EOF
)"
# The text: a matrix a rail, h2:eth1's row marked slow in rail 1's only.
pretty "$FABRICCTL sweep --hosts $TMP/hosts ${COMMON[*]} --topology $TMP/plan.yaml"
rc=0
"$FABRICCTL" sweep --hosts "$TMP/hosts" "${COMMON[@]}" --topology "$TMP/plan.yaml" \
	>"$TMP/text" 2>"$TMP/err" || rc=$?
assert_eq "text: rc" 1 "$rc"
sed -n '1,/^latency us, rail 0/p' "$TMP/text" >&2
assert_eq "text: matrices a rail" "bandwidth Gb/s, rail 0 (row sends to column; * slow, X failed)
bandwidth Gb/s, rail 1 (row sends to column; * slow, X failed)" "$(grep '^bandwidth' "$TMP/text")"
assert_eq "text: rail 1 row of h2:eth1 slow to every other" 3 \
	"$(sed -n '/^bandwidth Gb\/s, rail 1/,/^$/p' "$TMP/text" | grep "h2:eth1" | grep -o '\*' | wc -l)"
assert_eq "text: rail 0 matrix without a slow cell" 0 \
	"$(sed -n '/^bandwidth Gb\/s, rail 0/,/^$/p' "$TMP/text" | tail -n +2 | grep -c '\*' || true)"
# The same fault, --coverage 2 (8 pairs, 2 rounds; without the retest, one pair at a
# time, to stay short): h2:eth1's pairs slow, named as that NIC.
sweep --topology "$TMP/plan.yaml" --coverage 2
echo "h2:eth1 slow, --coverage 2: $(q '.summary | "\(.ok) ok, \(.slow) slow, \(.failed) failed"'), $(q '.pairs | length') pairs in $(q .schedule.rounds) rounds" >&2
assert_eq "h2:eth1 slow, --coverage 2: rc, rail-aligned pairs" "1 8 8" "$rc $(q '.pairs | length') $(q "$rail_aligned")"
assert_eq "h2:eth1 slow, --coverage 2: exactly its pairs slow" \
	"$(q --arg e "$L-h2:eth1" '[.pairs[] | select(.a == $e or .b == $e) | [.a, .b] | sort | join(" ")] | sort | .[]')" \
	"$(pairs_with slow)"
assert_eq "h2:eth1 slow, --coverage 2: rail 0 all ok" 4 "$(q '[.pairs[] | select(.a_rail == 0 and .status == "ok")] | length')"
assert_eq "h2:eth1 slow, --coverage 2: the suspect" "1 $L-h2:eth1 $L-h2:eth1 $L-leaf2:swp2" \
	"$(q '.suspects | length') $(q '.suspects[0].node') $(q '.suspects[0].link | "\(.a.node):\(.a.port) \(.b.node):\(.b.port)"')"
run lab_unslow h2:eth1

# --- 3. h2's eth1 down -------------------------------------------------------------
run lab_exec h2 ip link set eth1 down
sweep --topology "$TMP/plan.yaml"
q '.pairs[] | select(.status != "ok") | "    \(.a) \(.b) \(.status): \(.reason)"' >&2
assert_eq "h2:eth1 down: rc" 1 "$rc"
assert_eq "h2:eth1 down: exactly its rail-1 pairs failed" "$(rail_pairs 1 2)" "$(pairs_with failed)"
assert_eq "h2:eth1 down: each failed with that reason first" 3 \
	"$(q --arg p "$L-h2:eth1: eth1 down (admin down, operstate down); " \
		'[.pairs[] | select(.status == "failed" and (.reason | startswith($p)))] | length')"
assert_eq "h2:eth1 down: the other nine measured and ok" 9 \
	"$(q '[.pairs[] | select(.status == "ok" and .bw_mbps > 0)] | length')"
assert_eq "h2:eth1 down: suspect" "$L-h2:eth1" "$(q '.suspects[0].node')"
# status --hosts: every fabric port of every host, h2's eth1 down.
fab -j status --hosts "$TMP/hosts" --launcher netns
assert_eq "status --hosts: rc" 0 "$rc"
assert_eq "status --hosts: nodes once each" 4 "$(jq '.nodes | length' "$TMP/out")"
assert_eq "status --hosts: every port with its rail and state" \
	"$(printf '%s\n' "$L-h1 eth0 0 up" "$L-h1 eth1 1 up" "$L-h2 eth0 0 up" "$L-h2 eth1 1 down" \
		"$L-h3 eth0 0 up" "$L-h3 eth1 1 up" "$L-h4 eth0 0 up" "$L-h4 eth1 1 up")" \
	"$(jq -r '.ports[] | "\(.node) \(.ifname) \(.rail) \(.state)"' "$TMP/out")"
run lab_exec h2 ip link set eth1 up
# Back up is not yet forwarding: wait until h2's eth1 reaches h1's (rail 1).
h1e1=$(ip -n "$L-h1" -j addr show dev eth1 | jq -r '[.[0].addr_info[] | select(.family == "inet")][0].local')
for _ in $(seq 50); do
	lab_exec h2 ping -c 1 -W 1 -q -I eth1 "$h1e1" >/dev/null 2>&1 && break
	sleep 0.2
done

# diagnose A B: HOST HOST measures every rail both have; HOST:NIC HOST one.
fab -j diagnose --hosts "$TMP/hosts" "${COMMON[@]}" --topology "$TMP/plan.yaml" "$L-h1" "$L-h3"
assert_eq "diagnose HOST HOST: rc" 0 "$rc"
assert_eq "diagnose HOST HOST: both rails' A-B" "$L-h1:eth0 $L-h3:eth0
$L-h1:eth1 $L-h3:eth1" "$(jq -r '.pairs[] | select(.a_host != .b_host) | [.a, .b] | sort | join(" ")' "$TMP/out" | grep "h1:.* .*h3:" | sort)"
assert_eq "diagnose HOST HOST: every pair on one rail" 0 "$(jq '[.pairs[] | select(.a_rail != .b_rail)] | length' "$TMP/out")"
fab -j diagnose --hosts "$TMP/hosts" "${COMMON[@]}" --topology "$TMP/plan.yaml" "$L-h1:eth1" "$L-h3"
assert_eq "diagnose HOST:NIC HOST: rc" 0 "$rc"
assert_eq "diagnose HOST:NIC HOST: rail 1 only" 1 "$(jq '[.pairs[].a_rail] | unique | .[]' "$TMP/out")"
echo "sweep-rails: ok" >&2
