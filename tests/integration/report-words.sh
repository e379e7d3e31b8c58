#!/bin/bash
# fabricctl report: the words and colours of the page say what the
# documents say (headless Chromium, no network, no lab):
#  1. latency colour by status: an ok pair at 5x the median round trip is
#     drawn pale (at most the x1.5 colour), a slow pair at the same 5x deep
#     blue, a pair at the median the palest;
#  2. the suspects table gives the evidence in words, never raw keys
#     (cross_bad, counters []);
#  3. a discover document without problems says "as planned" only when it
#     was checked against a plan.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq python3 unshare
command -v chromium >/dev/null 2>&1 || skip "chromium not installed (scripts/install-deps installs it)"
need_fabricctl
tmpdir_with_cleanup

# shellcheck source=../lib/chrome.sh
. "$TOP/tests/lib/chrome.sh"
# chrome_dom PAGE: the page's DOM in $TMP/dom, loaded with no error (tests/lib/chrome.sh)
chrome_dom() { chrome "$1" --dump-dom; page_ok "$1"; }
# lat_fill A B: the fill of cell A -> B in the latency map of the last dump.
lat_fill() {
	python3 - "$TMP/dom" "$1" "$2" <<'EOF'
import re, sys
dom, a, b = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
lat = dom[dom.index('data-kind="lat"'):]
lat = lat[:lat.index('</svg>')]
for m in re.finditer(r'<rect [^>]*class="cell [^>]*>', lat):
    t = m.group(0)
    if 'data-a="%s"' % a in t and 'data-b="%s"' % b in t:
        print(re.search(r' fill="([^"]*)"', t).group(1))
        break
EOF
}

# --- 1. latency colour by status --------------------------------------------
# n1-n2 at the median (50 us), n1-n3 ok at 250 us (5x), n1-n4 slow at 250 us.
python3 - "$TMP/sweep.json" <<'EOF'
import json, sys
names = ["n1", "n2", "n3", "n4"]
pairs = []
for i in range(4):
    for j in range(i + 1, 4):
        st = "slow" if (i, j) == (0, 3) else "ok"
        lat = 250000.0 if (i, j) in ((0, 2), (0, 3)) else 50000.0
        bw = 100.0 if st == "slow" else 1000.0
        pairs.append({"a": names[i], "b": names[j], "status": st, "round": 1,
                      "reason": "slow" if st == "slow" else None,
                      "lat_ns": {"p50": lat, "p99": lat * 1.5},
                      "bw_ab": {"avg_mbps": bw}, "bw_ba": {"avg_mbps": bw}})
doc = {"schema": "fabricctl.sweep/1", "nodes": [{"name": n} for n in names], "pairs": pairs,
       "summary": {"pairs": 6, "ok": 5, "slow": 1, "failed": 0},
       "reference": {"bw_median_mbps": 1000.0, "lat_median_ns": 50000.0},
       "suspects": [{"node": "n4", "link": None, "score": 0.9,
                     "evidence": {"pairs": 3, "bad_pairs": 1, "slow_pairs": 1, "failed_pairs": 0,
                                  "median_bw_mbps": 100.0, "fleet_median_bw_mbps": 1000.0,
                                  "text": "n4: 1 of 3 pairs slow"}}]}
json.dump(doc, open(sys.argv[1], "w"))
EOF
fab report "$TMP/sweep.json" -o "$TMP/lat.html"
assert_eq "report rc" 0 "$rc"
chrome_dom "$TMP/lat.html"
assert_eq "at the median: palest" "rgb(247,251,255)" "$(lat_fill n1 n2)"
assert_eq "ok pair at 5x the median: no darker than x1.5" "rgb(198,219,239)" "$(lat_fill n1 n3)"
assert_eq "ok pair at 5x, other direction" "rgb(198,219,239)" "$(lat_fill n3 n1)"
assert_eq "slow pair at 5x the median: deep blue" "rgb(8,48,107)" "$(lat_fill n1 n4)"
grep -q 'an ok pair at most' "$TMP/dom" || fail "the latency legend does not say how ok pairs are drawn"

# --- 2. suspects' evidence in words -------------------------------------------
FIX=$TOP/tests/integration/report/sweep2-fixture.json
jq '.suspects[0].evidence = {"cross_bad": 15, "cross_n": 15, "other_bad": 0, "other_n": 13,
	"cross_failed": 0, "cross_pct_median": 48.2, "probes_run": 0, "probes_bad": 0,
	"counters": [], "text": "leaf2 swp49 <-> spine1 swp2"}' "$FIX" >"$TMP/sus.json"
fab report "$TMP/sus.json" -o "$TMP/sus.html"
assert_eq "suspects report rc" 0 "$rc"
chrome_dom "$TMP/sus.html"
sed -n '/id="suspects"/,/<\/table>/p' "$TMP/dom" >"$TMP/sus.dom"
grep -q '15 of 15 pairs crossing it not ok, the slow ones at 48 % of expected (median); 0 of 13 other pairs not ok' \
	"$TMP/sus.dom" || fail "suspect evidence not in words: $(grep -o '<td class="ev">.*' "$TMP/sus.dom")"
for raw in cross_bad cross_n 'counters \[\]' probes_run; do
	grep -q "$raw" "$TMP/sus.dom" && fail "raw evidence key '$raw' in the suspects table"
done
printf '  ok: evidence in words, no raw keys\n' >&2
chrome_dom "$TMP/lat.html"
sed -n '/id="suspects"/,/<\/table>/p' "$TMP/dom" >"$TMP/sus.dom"
grep -q '1 of 3 pairs with it not ok (1 slow, 0 failed); its median 100' "$TMP/sus.dom" ||
	fail "node suspect evidence not in words"

# --- 3. discover without and with a plan ----------------------------------------
jq '.problems = [] | .summary.problems = 0 | .links[].status = "ok" | .sources = ["smp"]' \
	"$TOP/tests/golden/discover.json" >"$TMP/d-noplan.json"
jq '.sources = ["smp", "plan"]' "$TMP/d-noplan.json" >"$TMP/d-plan.json"
fab report "$TMP/d-noplan.json" -o "$TMP/d1.html"
assert_eq "discover, no plan: rc" 0 "$rc"
chrome_dom "$TMP/d1.html"
grep -q 'No plan given: the cabling was not checked' "$TMP/dom" || fail "no plan: not said"
grep -q 'as planned' "$TMP/dom" && fail "no plan, yet 'as planned'"
fab report "$TMP/d-plan.json" -o "$TMP/d2.html"
chrome_dom "$TMP/d2.html"
grep -q 'every link healthy and as planned' "$TMP/dom" || fail "with a plan: 'as planned' missing"
printf '  ok: "as planned" only with a plan\n' >&2
echo "report-words: all checks passed" >&2
