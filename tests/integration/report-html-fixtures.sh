#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# fabricctl report on fixture documents, each page opened in headless
# Chromium with no network (tests/lib/chrome.sh); the live lab's page is
# report-html.sh's.
#  1. A sweep/2 fixture (topology, paths, a link suspect) with a discover
#     document: exactly the suspect link is highlighted; strings carrying
#     <script> and onerror= show as text and never run.
#     Discover, diagnose and accept without a sweep: the group's links lit,
#     the findings as a table.
#     A discover document with "cables" (discover --lldp --hosts): the
#     cable table, one row per end and per both-ends verdict, worst
#     first, escaped; none without them.
#     A sweep of hosts of two fabric ports (report/sweep-rails-fixture.json:
#     r1..r4 with eth0 on rail 0 and eth1 on rail 1, --cross-rail pairs,
#     st1 of one port without a rail, r2:eth1 slow): the selector (every
#     end point, rail 0, rail 1), one view a rail whose maps are host x
#     host over that rail's pairs, r2's slow pairs marked in rail 1's map
#     only, the cross-rail pairs in every end point's maps only.
#  2. Bad input: unknown schema, broken JSON, two sweeps, no -o: exit 2
#     naming the file, nothing written.  A page whose data is broken is
#     caught by the checks (they can fail).
#  3. A 1024-node synthetic sweep: <= 10 MB, every ordered pair drawn, the
#     time to render printed (the 3 s target is tests/bench/report.sh's).
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq python3 unshare bc
command -v chromium >/dev/null 2>&1 || skip "chromium not installed (scripts/install-deps installs it)"
need_fabricctl

OUTDIR=${LOGDIR:-$TOP/tests/out}
mkdir -p "$OUTDIR"
tmpdir_with_cleanup
FIX=$TOP/tests/integration/report/sweep2-fixture.json
# shellcheck source=../lib/chrome.sh
. "$TOP/tests/lib/chrome.sh"

# --- 1. sweep/2 fixture: suspect link, escaping -------------------------------------------
fab report "$FIX" "$TOP/tests/golden/discover.json" -o "$TMP/fix.html"
assert_eq "fixture: rc" 0 "$rc"
assert_eq "fixture: no raw <script> from the document in the file" 0 \
	"$(grep -c "<script>document\|<img src=x" "$TMP/fix.html" || true)"
chrome "$TMP/fix.html" --dump-dom
page_ok "fixture page"
grep -q 'data-pwned="' "$TMP/dom" && fail "a script from the document ran"
case $(grep -o '<body[^>]*>' "$TMP/dom") in *pwned*) fail "a script from the document ran" ;; esac
grep -q "&lt;script&gt;document.body.setAttribute" "$TMP/dom" || fail "the <script> text is not shown escaped"
grep -q "spine2 &lt;script&gt;" "$TMP/dom" || fail "the node name is not shown escaped"
printf '  ok: <script> and onerror= from the document shown as text, never run\n' >&2
assert_eq "fixture: exactly one link highlighted" 1 "$(attrs 'lk ' data-suspect | grep -c '^1$')"
assert_eq "fixture: the suspect link" "leaf2 spine1 suspect" \
	"$(attrs 'lk suspect' data-a data-b data-verdict | awk '{ if ($1 > $2) print $2, $1, $3; else print }')"
assert_eq "fixture: the down link (topology status) drawn as a problem" 1 "$(attrs 'lk problem' data-a | wc -l)"
assert_eq "fixture: cells" 30 "$(attrs 'cell ' data-a data-b | sort -u | wc -l)"
assert_eq "fixture: slow cells = cross-leaf pairs" \
	"$(jq -r '.pairs[] | select(.status == "slow") | "\(.a) \(.b)\n\(.b) \(.a)"' "$FIX" | sort)" \
	"$(attrs 'mark slow' data-a data-b | sort -u)"
assert_eq "fixture: discover problems table" 3 "$(grep -o '<tr><td><span class="tag bad">' "$TMP/dom" | wc -l)"
assert_eq "fixture: groups from the topology" "leaf1 leaf2" "$(data "$TMP/fix.html" "' '.join(g[0] for g in D['sweep']['groups'])")"

# Without a sweep: discover (the graph), diagnose (a group suspect), accept (findings).
cat >"$TMP/diag.json" <<'EOF2'
{"schema": "fabricctl.diagnose/1", "suspects": [{"kind": "group", "score": 0.5,
  "links": [{"a": {"node": "sw", "port": 1}, "b": {"node": "hca1", "port": 1}},
            {"a": {"node": "sw", "port": 2}, "b": {"node": "hca2", "port": 1}}],
  "evidence": {"text": "traffic cannot split them"}}]}
EOF2
cat >"$TMP/acc.json" <<'EOF2'
{"schema": "fabricctl.accept/1", "verdict": "fail", "findings": [
  {"code": "F-LINK-01", "node": "n7", "detail": "port down <i>x</i>"},
  {"code": "F-PROF-02", "node": "n8", "detail": "mtu 1500", "extra": {"want": 9000}}]}
EOF2
fab report "$TOP/tests/golden/discover.json" "$TMP/diag.json" "$TMP/acc.json" -o "$TMP/nosweep.html"
assert_eq "no sweep: rc" 0 "$rc"
chrome "$TMP/nosweep.html" --dump-dom
page_ok "page without a sweep"
assert_eq "no sweep: the group's two links lit" "hca1 sw
hca2 sw" "$(attrs 'lk suspect' data-a data-b | awk '{ if ($1 > $2) print $2, $1; else print }' | sort)"
assert_eq "no sweep: accept findings" 2 "$(sed -n '/id="accept"/,/<\/section>/p' "$TMP/dom" | grep -c '<tr><td>F-')"
grep -q 'port down &lt;i&gt;x&lt;/i&gt;' "$TMP/dom" || fail "accept finding not escaped"
assert_eq "no sweep: no heatmap" 0 "$(grep -c 'id="hm-bw"' "$TMP/dom" || true)"
assert_eq "no sweep: discover without cables: no cable table" 0 \
	"$(grep -c 'id="discover-cables"' "$TMP/dom" || true)"

# Discover's cables (tests/integration/report/discover-cables.json: the
# "cables" test_topo_optics.c's discover document carries, h1 failing,
# h3-h4 a host-to-host cable marginal at h3 and both ends, h2 healthy),
# put in reverse into the golden discover document, a vendor name
# carrying markup: the table shows them worst first, escaped.
jq --slurpfile c "$TOP/tests/integration/report/discover-cables.json" \
	'.cables = ($c[0] | reverse) | .cables[0].ends[0].module.vendor = "<img src=x onerror=alert(1)>"' \
	"$TOP/tests/golden/discover.json" >"$TMP/disc-cables.json"
fab report "$TMP/disc-cables.json" -o "$TMP/cables.html"
assert_eq "cables: rc" 0 "$rc"
chrome "$TMP/cables.html" --dump-dom
page_ok "page with discover's cables"
sed -n '/id="discover-cables"/,/<\/section>/p' "$TMP/dom" >"$TMP/cables.dom"
assert_eq "cables: ends worst first" "h1 eth0,h3 eth1,h4 eth1,h2 eth0" \
	"$(grep -o '<tr><td>h[0-9]</td><td>eth[0-9]</td>' "$TMP/cables.dom" | sed 's|<tr><td>||; s|</td><td>| |; s|</td>||' | paste -sd,)"
assert_eq "cables: verdicts in that order" "failing marginal healthy marginal healthy" \
	"$(grep -o '<span class="[^"]*">[a-z]*</span>' "$TMP/cables.dom" | sed 's|<[^>]*>||g' | paste -sd' ')"
assert_eq "cables: h1's peer and module" 1 \
	"$(grep -c '<td>h1</td><td>eth0</td><td>leaf1 swp1</td><td>QSFP28 FABRICCTL TEST QSFP28-SR4-TEST sn QSFP0001</td>' "$TMP/cables.dom")"
grep -q 'class="both"><td colspan="3">h3 eth1 .* h4 eth1</td><td>both ends</td>.*received at h3:eth1' \
	"$TMP/cables.dom" || fail "cables: the both-ends row"
grep -q '&lt;img src=x onerror=alert(1)&gt;' "$TMP/cables.dom" || fail "cables: vendor not shown escaped"
assert_eq "cables: no element from the document" 0 "$(grep -c '<img src=x' "$TMP/cables.dom" || true)"

# A sweep of two fabric ports a host: one heatmap a rail.
RFIX=$TOP/tests/integration/report/sweep-rails-fixture.json
fab report "$RFIX" -o "$TMP/rails.html"
assert_eq "rails: rc" 0 "$rc"
chrome "$TMP/rails.html" --dump-dom
page_ok "rail page"
assert_eq "rails: the selector, each rail's pairs not ok" "all -,0 0,1 4" "$(attrs 'rsel' data-view data-bad | paste -sd,)"
assert_eq "rails: views, every end point's shown" "all,0 hidden,1 hidden" \
	"$(grep -o '<div class="hms"[^>]*>' "$TMP/dom" | sed 's/.*data-view="\([^"]*\)"\( hidden\)\{0,1\}.*/\1\2/' | paste -sd,)"
# Every view's cells, bandwidth and latency: every end point (9: 72 ordered cells a map), each rail's 5 hosts (20).
assert_eq "rails: cells a view" "144 - 40 0 40 1" \
	"$(attrs 'cell ' data-rail | sort | uniq -c | awk '{ print $1, $2 }' | paste -sd' ')"
# rail_cells R: rail R's bandwidth cells, "A B" sorted, computed from the fixture's pairs.
rail_cells() {
	jq -r --argjson r "$1" '.pairs[] | select(.a_rail == $r and .b_rail == $r or .a_rail == $r and .b_rail == null
		or .a_rail == null and .b_rail == $r) | "\(.a_host) \(.b_host)\n\(.b_host) \(.a_host)"' "$RFIX" | sort
}
for r in 0 1; do
	assert_eq "rails: rail $r: host x host cells = its pairs" "$(rail_cells "$r")" \
		"$(attrs 'cell ' data-rail data-a data-b data-st | awk -v r="$r" '$1 == r && $4 != "untested" { print $2, $3 }' | sort -u)"
	assert_eq "rails: rail $r: its maps" "bw $r
lat $r" "$(attrs 'hmsvg' data-kind data-rail | awk -v r="$r" '$2 == r' | sort)"
done
assert_eq "rails: rail 1: r2's pairs marked slow" "$(rail_cells 1 | grep -w r2)" \
	"$(attrs 'mark slow' data-rail data-a data-b | awk '$1 == 1 { print $2, $3 }' | sort -u)"
assert_eq "rails: rail 0: nothing marked" 0 "$(attrs 'mark ' data-rail | grep -c '^0$' || true)"
assert_eq "rails: every end point's map: its slow cells are the slow pairs', cross-rail ones too" \
	"$(jq -r '.pairs[] | select(.status == "slow") | "\(.a) \(.b)\n\(.b) \(.a)"' "$RFIX" | sort)" \
	"$(attrs 'mark slow' data-rail data-a data-b | awk '$1 == "-" { print $2, $3 }' | sort -u)"
grep -q '12 cross-rail pairs (NIC <i>i</i> to NIC <i>j</i>, <code>--cross-rail</code>) are in every end point' \
	"$TMP/dom" || fail "rails: the cross-rail pairs not said"
assert_eq "rails: each view's patterns its own" 0 \
	"$(grep -o '<pattern id="[^"]*"' "$TMP/dom" | grep -v '"lgh' | sort | uniq -d | wc -l)"
assert_eq "rails: the host whose rails disagree" "<tr><td>r2</td>" \
	"$(grep -o '<tr><td>[^<]*</td><td>rail 0: [^<]*</td><td><span class="tag slow">rails disagree' "$TMP/dom" | grep -o '^<tr><td>[^<]*</td>')"

# --- 2. bad input; the checks catch a broken page ---------------------------------------------
echo '{"schema": "fabricctl.nonsense/7"}' >"$TMP/odd.json"
fab report "$TMP/odd.json" -o "$TMP/x.html"
assert_eq "unknown schema: rc" 2 "$rc"
grep -q "odd.json: unknown schema 'fabricctl.nonsense/7'" "$TMP/err" || fail "unknown schema: message"
printf '{"schema": "fabricctl.sweep/1",\n  "pairs": [}\n' >"$TMP/broken.json"
fab report "$TMP/broken.json" -o "$TMP/x.html"
assert_eq "broken JSON: rc" 2 "$rc"
grep -q "broken.json:2:" "$TMP/err" || fail "broken JSON: message names file and line"
fab report "$FIX" "$FIX" -o "$TMP/x.html"
assert_eq "two sweeps: rc" 2 "$rc"
fab report "$FIX"
assert_eq "no -o: rc" 2 "$rc"
[ ! -e "$TMP/x.html" ] || fail "a page was written on bad input"
sed 's/id="fab-data">{/id="fab-data">{x/' "$TMP/fix.html" >"$TMP/bad.html"
chrome "$TMP/bad.html" --dump-dom
if (page_ok "broken page") 2>/dev/null; then fail "the checks did not catch a broken page"; fi
grep -q 'data-js-error=' "$TMP/dom" || fail "broken page: no error marker"
printf '  ok: a broken page is caught\n' >&2

# --- 3. 1024 nodes ------------------------------------------------------------------------------
python3 "$TOP/tests/integration/report/big-sweep.py" "$TMP/big.json"
ls -l "$TMP/big.json" >&2
start=$(date +%s.%N)
fab report "$TMP/big.json" -o "$TMP/big.html"
echo "  report of 1024 nodes written in $(echo "$(date +%s.%N) - $start" | bc) s" >&2
assert_eq "1024: rc" 0 "$rc"
size=$(stat -c %s "$TMP/big.html")
echo "  1024: page $size bytes" >&2
[ "$size" -le 10485760 ] || fail "1024: page larger than 10 MB ($size)"
start=$(date +%s.%N)
chrome "$TMP/big.html" --dump-dom
wall=$(echo "$(date +%s.%N) - $start" | bc)
page_ok "1024 page"
assert_eq "1024: ordered pairs drawn" $((1024 * 1023)) "$(attrs '' data-cells | grep -v '^-$' | head -1)"
# (summary.slow streamed: it comes before the pairs; jq reading the whole
# 95 MB document took 7.8 s here, on 2 shared cores; streamed, 0.04 s)
assert_eq "1024: slow cells" "$(jq -n --stream 'first(inputs | select(.[0] == ["summary", "slow"]) | .[1]) * 2' "$TMP/big.json")" \
	"$(attrs '' data-slow | grep -v '^-$' | head -1)"
assert_eq "1024: failed cells" 2 "$(attrs '' data-failed | grep -v '^-$' | head -1)"
ms=$(grep -o 'data-render-ms="[0-9]*"' "$TMP/dom" | grep -o '[0-9]*')
timing=$(grep -o 'data-timing="[^"]*"' "$TMP/dom")
echo "1024 nodes: rendered ${ms} ms after navigation start ($timing); chromium wall ${wall} s; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
if [ "$ms" -le 3000 ]; then echo "  1024: target 3 s met" >&2; else echo "  1024: target 3 s MISSED (${ms} ms)" >&2; fi
# The render time is a speed target: tests/bench/report.sh judges it, not this test.
chrome "$TMP/big.html" --screenshot="$OUTDIR/report-1024.png" --window-size=1400,1600 --hide-scrollbars
echo "report-html-fixtures: all checks passed" >&2
