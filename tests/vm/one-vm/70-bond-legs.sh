#!/bin/bash
# Dual-homed legs (issue 25 item 3; docs/sweep.md "Dual-homed legs"):
# fabricctl sweep between two hosts whose data-path interfaces are bonds
# over two switches finds, by trial flows and the members' tx_bytes, a
# source port per member, and measures one flow per leg, both directions.
# Inside the VM (the kernel's bonding driver), the lab of
# tests/vm/legs-lab.sh: hosts ha and hb, each a balance-xor layer3+4 bond
# of two members on two bridges (switches s1, s2), every member shaped to
# 20 Mbit/s.
#  1. No fault: the sweep exits 0; pairs[0].legs has both directions, each
#     with both members found (a port each), measured and ok; every
#     member's own tx_bytes (read here, from sysfs) grew by at least its
#     leg flow's bytes: every leg carried a flow.
#  2. a2 cut to 2 Mbit/s and b2's cable cut (its switch port down, the
#     bond drops it): exit 1, ha's leg a2 slow and named ("slow leg: ha
#     a2: ..."), hb's leg b2 dead ("dead leg: hb b2: member link down:
#     ..."; no trial lands on it, and none is spent looking), a1 and b1 ok.
# Every output and front end with the legs (issue 25):
#  1b/2b. the sweep's --csv (legs_not_ok, legs, legs_findings), --prom
#     (fabricctl_sweep_leg_bandwidth_mbps, _leg_ok, _legs_not_ok) and
#     --html (the Dual-homed legs section, a leg not ok marked), and
#     `report` from the sweep's JSON: no leg marked without the fault; the
#     slowed and the cut leg with it; `diagnose --from` the saved sweep
#     (with the lab's plan: --from wants a topology) names them again and
#     exits 1.
#  1c/2c. over a plan of the lab (port= places each host on its s1 leg):
#     `diagnose ha hb` measures A-B's legs (with the fault only, to keep the
#     VM run short: exit 1, "slow leg: ha a2 (switch s2 port a2s)"; the
#     clean case is the sweep's and accept's), and `accept`
#     with ha new (traffic only: no lldpd here) ACCEPTs, then REJECTs at
#     stage 5 with FAB-TRAFFIC-LEG naming ha and a2 (only the new host's
#     legs: hb's cut b2 is no finding of accept's).
# a2 is cut to 2 Mbit/s, a tenth of its sibling: under TCG on a loaded
# machine a healthy leg has measured 5.6 of 18 Mbit/s in one pass, and
# under the retest rule of that time (the pass with the fewest legs not ok
# stood) a leg cut to 4 Mbit/s was left above --slow-pct 50 (accept
# ACCEPTed it once in three runs).  The rule is now each leg's best flow
# of three passes against the best of all (docs/sweep.md); the margin stays.
# The lab once ran these trials with iperf3 (tests/vm/manual, before the
# sweep did); the unit tests' recorded counters (tests/unit/test_bond_legs.c)
# come from that log.  Runs inside the VM (tests/vm/run-tests).
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/vm/legs-lab.sh"
vm_need
need_cmd ip jq tc
need_fabricctl
tmpdir_with_cleanup legs
HA='' HB='' S1='' S2=''
cleanup_hook() {
	local t0=$SECONDS
	legs_lab_down
	echo "lab down in $((SECONDS - t0)) s (at $SECONDS s)" >&2
}
legs_lab_up
printf '%s 10.25.0.1\n%s 10.25.0.2\n' "$HA" "$HB" >"$TMP/hosts"
# diagnose and accept: a plan of the lab, each host placed on its leg-1 switch port
printf '%s 10.25.0.1 port=a1s\n%s 10.25.0.2 port=b1s\n' "$HA" "$HB" >"$TMP/hosts.plan"
printf '%s 10.25.0.1 port=a1s new\n%s 10.25.0.2 port=b1s\n' "$HA" "$HB" >"$TMP/hosts.new"
cat >"$TMP/plan.yaml" <<EOT
version: 1
nodes:
  - { name: $S1, type: switch }
  - { name: $S2, type: switch }
  - { name: $HA, type: host }
  - { name: $HB, type: host }
links:
  - [ "$HA:a1", "$S1:a1s" ]
  - [ "$HA:a2", "$S2:a2s" ]
  - [ "$HB:b1", "$S1:b1s" ]
  - [ "$HB:b2", "$S2:b2s" ]
  - [ "$S1:isl1", "$S2:isl2" ]
EOT
cat >"$TMP/policy.yaml" <<EOT
leg_pct: 50
coverage: 1
stages:
  reach: true
  configuration: false
  cabling: false
  counters-baseline: false
  traffic: true
  counters-after: false
EOT
echo "lab up in $SECONDS s" >&2

# sweep: JSON in $TMP/out, -v on stderr, exit status in $rc; each member's
# tx_bytes growth over it in T[member].
declare -A T
sweep() {
	local m t0=$SECONDS
	declare -A B
	for m in "$HA:a1" "$HA:a2" "$HB:b1" "$HB:b2"; do B[${m#*:}]=$(tx "${m%%:*}" "${m#*:}"); done
	rm -f "$TMP/csv" "$TMP/prom" "$TMP/html"
	fab -j -v sweep --hosts "$TMP/hosts" --launcher netns --transport tcp --duration 0.5 \
		--lat-iters 100 --slow-pct 50 --csv "$TMP/csv" --prom "$TMP/prom" --html "$TMP/html"
	cp "$TMP/out" "$TMP/sweep.json"
	for m in "$HA:a1" "$HA:a2" "$HB:b1" "$HB:b2"; do
		T[${m#*:}]=$(($(tx "${m%%:*}" "${m#*:}") - B[${m#*:}]))
	done
	echo "sweep took $((SECONDS - t0)) s; members grew a1 +${T[a1]} a2 +${T[a2]} b1 +${T[b1]} b2 +${T[b2]}" >&2
}
# legs: one jq (each process costs under TCG) reads the document into
# L[DIR.MEMBER.FIELD] (verdict sport bytes tx_bytes bw_mbps finding) and
# L[head] (legs.bad, the findings' count, ab's sender, ba's sender, ab's policy).
declare -A L
legs() {
	vm_legs_read L '"\(.legs.bad) \(.legs.findings | length) \(.pairs[0].legs.ab.node)" +
		" \(.pairs[0].legs.ba.node) \(.pairs[0].legs.ab.mode)/\(.pairs[0].legs.ab.xmit_hash_policy)"'
}

# outputs WANT-BAD: the sweep's CSV, Prometheus and HTML, `report` from its JSON, and
# `diagnose --from` it; WANT-BAD is the legs not ok ("0", or "2": a2 slow, b2 dead).
outputs() {
	local want=$1 col hdr row rc2
	# CSV: the legs columns are the last three; one pair's row (the CRLF dropped)
	hdr=$(head -n 1 "$TMP/csv" | tr -d '\r')
	case $hdr in *,legs_not_ok,legs,legs_findings) ;; *) fail "csv: header '$hdr'" ;; esac
	col=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "legs_not_ok") print i }' "$TMP/csv")
	row=$(sed -n 2p "$TMP/csv" | tr -d '\r')
	assert_eq "csv: legs_not_ok" "$want" "$(echo "$row" | cut -d, -f"$col")"
	echo "$row" | cut -d, -f$((col + 1)) | grep -q "^$HA a1 [0-9.]* ok|$HA a2 [0-9.]* " ||
		fail "csv: legs '$(echo "$row" | cut -d, -f$((col + 1))-)'"
	# Prometheus: a bandwidth per measured leg, ok per judged leg, the count
	assert_eq "prom: legs not ok" "fabricctl_sweep_legs_not_ok $want" \
		"$(grep '^fabricctl_sweep_legs_not_ok ' "$TMP/prom")"
	assert_eq "prom: legs ok 0" "$want" "$(grep -c '^fabricctl_sweep_leg_ok{.*} 0$' "$TMP/prom")"
	assert_eq "prom: legs ok 1" $((4 - want)) "$(grep -c '^fabricctl_sweep_leg_ok{.*} 1$' "$TMP/prom")"
	grep -q "^fabricctl_sweep_leg_bandwidth_mbps{a=\"$HA\",b=\"$HB\",dir=\"ab\",node=\"$HA\",bond=\"bond0\",member=\"a2\"} [0-9]" \
		"$TMP/prom" || fail "prom: no a2 bandwidth"
	# HTML: --html and report from the saved JSON, the legs not ok marked
	fab report "$TMP/sweep.json" -o "$TMP/report.html"
	for h in "$TMP/html" "$TMP/report.html"; do
		grep -q "<h2>Dual-homed legs <small>one flow per bond member, one after another: $want not ok" "$h" ||
			fail "html ${h##*/}: no legs section with $want not ok"
		assert_eq "html ${h##*/}: legs marked" "$want" "$(grep -c '<tr class="legbad">' "$h")"
	done
	# diagnose --from the saved sweep: its legs, exit 1 when one is not ok
	rc2=0
	# (the sweep ran without a topology: --from wants one, the lab's plan)
	"$FABRICCTL" diagnose --from "$TMP/sweep.json" --hosts "$TMP/hosts.plan" \
		--topology "$TMP/plan.yaml" >"$TMP/diag-from" 2>&1 || rc2=$?
	assert_eq "diagnose --from: exit" "$([ "$want" = 0 ] && echo 0 || echo 1)" "$rc2"
	grep -q "^dual-homed legs (one flow per bond member, one after another): $want not ok" \
		"$TMP/diag-from" || fail "diagnose --from: no legs section: $(cat "$TMP/diag-from")"
	echo "outputs: csv, prom, html, report, diagnose --from: $want legs not ok" >&2
}

# front [nodiag]: diagnose ha hb (unless nodiag) and accept (ha new) over the plan;
# their documents in $TMP/diag and $TMP/acc, exit statuses in drc and arc.
front() {
	local t0=$SECONDS
	drc=0 arc=0
	if [ "${1:-}" != nodiag ]; then
		pretty "$FABRICCTL -j diagnose --hosts $TMP/hosts.plan --topology $TMP/plan.yaml $HA $HB"
		"$FABRICCTL" -j diagnose --hosts "$TMP/hosts.plan" --launcher netns --topology "$TMP/plan.yaml" \
			--duration 0.5 --lat-iters 100 --slow-pct 50 "$HA" "$HB" >"$TMP/diag" 2>"$TMP/diag.err" ||
			drc=$?
		tail -n 3 "$TMP/diag.err" >&2
		echo "diagnose took $((SECONDS - t0)) s, exit $drc" >&2
	fi
	t0=$SECONDS
	pretty "$FABRICCTL -j accept --hosts $TMP/hosts.new --plan $TMP/plan.yaml ..."
	"$FABRICCTL" -j accept --hosts "$TMP/hosts.new" --launcher netns --topology "$TMP/plan.yaml" \
		--policy "$TMP/policy.yaml" --duration 0.5 --lat-iters 100 >"$TMP/acc" 2>"$TMP/acc.err" ||
		arc=$?
	tail -n 3 "$TMP/acc.err" >&2
	jq -r '"accept: stage 5: \(.stages[4].note)"' "$TMP/acc" >&2
	jq -r '"accept: \(.verdict) stages \([.stages[].status] | join(" ")); " +
		([.findings[] | "\(.code) \(.node) \(.link): \(.evidence)"] | join("; "))' "$TMP/acc" >&2
	echo "accept took $((SECONDS - t0)) s, exit $arc" >&2
}

# --- 1. no fault: every leg found, carried a flow, ok ---------------------------
sweep
[ "$rc" = 0 ] || fail "no fault: sweep exit $rc (want 0)"
legs
assert_eq "no fault: legs bad, findings, senders, policy" \
	"0 0 $HA $HB balance-xor/layer3+4" "${L[head]}"
for dm in ab.a1 ab.a2 ba.b1 ba.b2; do
	m=${dm#*.}
	assert_eq "no fault: leg $dm" ok "${L[$dm.verdict]}"
	[ "${L[$dm.sport]}" != null ] || fail "no fault: leg $dm has no port"
	bytes=${L[$dm.bytes]} own=${L[$dm.tx_bytes]}
	[ "$bytes" -gt 100000 ] || fail "no fault: leg $dm: $bytes bytes received"
	# the sweep's own reading, and sysfs read here: the member carried its flow
	[ $((own * 100)) -ge $((bytes * 90)) ] || fail "no fault: leg $dm: tx +$own of $bytes"
	[ "${T[$m]}" -ge "$bytes" ] || fail "no fault: member $m grew +${T[$m]}, under its leg's $bytes"
	echo "no fault: leg $dm port ${L[$dm.sport]} ${L[$dm.bw_mbps]} Mbit/s ok" >&2
done
[ "${L[ab.a1.sport]}" != "${L[ab.a2.sport]}" ] || fail "no fault: a1 and a2 on one port"
grep -q "legs $HA -> $HB bond0: " "$TMP/err" || fail "no fault: no -v line for ha's legs"
# --- 1b, 1c. the outputs, diagnose and accept without the fault ----------------------
outputs 0
front nodiag
assert_eq "no fault: accept" "0 ACCEPT" "$arc $(jq -r .verdict "$TMP/acc")"
jq -r '.stages[] | select(.stage == 5 or .name == "traffic") | .note' "$TMP/acc" |
	grep -q "; 2 legs of new bonds measured, 0 not ok" || fail "no fault: accept's stage 5 note"

# --- 2. a2 slowed, b2's cable cut: both legs named, exit 1 ------------------------
run ip netns exec "$HA" tc qdisc replace dev a2 root tbf rate 2mbit burst 16kb latency 100ms
run ip -n "$S2" link set b2s down
vm_wait_for "hb's bond sees b2 down" 10 sh -c "ip -n $HB -d link show b2 | grep -q 'mii_status DOWN'"
sweep
[ "$rc" = 1 ] || fail "faults: sweep exit $rc (want 1)"
legs
assert_eq "faults: leg ab.a2" slow "${L[ab.a2.verdict]}"
assert_eq "faults: leg ba.b2" dead "${L[ba.b2.verdict]}"
for dm in ab.a1 ba.b1; do
	assert_eq "faults: leg $dm" ok "${L[$dm.verdict]}"
done
echo "faults: ${L[ab.a2.finding]}; ${L[ba.b2.finding]}" >&2
case ${L[ab.a2.finding]} in
"slow leg: $HA a2: "*) ;;
*) fail "faults: a2's finding '${L[ab.a2.finding]}'" ;;
esac
assert_eq "faults: b2's finding" "dead leg: $HB b2: member link down: no trial flow landed on it" \
	"${L[ba.b2.finding]}"
assert_eq "faults: legs bad, findings" "2 2" "$(echo "${L[head]}" | cut -d' ' -f1-2)"
# --- 2b, 2c. the outputs, diagnose and accept with a2 slowed (and b2 cut) ----------------
outputs 2
grep -q "slow leg: $HA a2: " "$TMP/csv" || fail "faults: csv has no a2 finding"
grep -q "dead leg: $HB b2: " "$TMP/diag-from" || fail "faults: diagnose --from does not name b2"
front
assert_eq "faults: diagnose exit" 1 "$drc"
jq -r '.legs.findings[]' "$TMP/diag" | grep -q "^slow leg: $HA a2 (switch $S2 port a2s): " ||
	fail "faults: diagnose does not name a2: $(jq -c .legs "$TMP/diag")"
assert_eq "faults: accept" "1 REJECT 5" "$arc $(jq -r '"\(.verdict) \(.failed_stage)"' "$TMP/acc")"
assert_eq "faults: accept's leg finding" "FAB-TRAFFIC-LEG $HA a2 <-> $S2 a2s" \
	"$(jq -r '[.findings[] | select(.code == "FAB-TRAFFIC-LEG") | "\(.code) \(.node) \(.link)"] | join(";")' "$TMP/acc")"
jq -r '.findings[] | select(.code == "FAB-TRAFFIC-LEG") | .evidence' "$TMP/acc" |
	grep -q "^slow leg: $HA a2 (switch $S2 port a2s): " || fail "faults: accept's evidence"
echo "PASS: every leg found and carried a flow; the slowed leg and the cut one named in every output, by diagnose and accept (in $SECONDS s)" >&2
