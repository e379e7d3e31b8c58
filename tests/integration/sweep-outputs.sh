#!/bin/bash
# sweep's and discover's machine-readable outputs on a small netns lab
# (4 hosts, 2 leaves, 1 spine, lldpd, 1 Gbit/s cables):
#  1. CSV: `sweep --topology PLAN --csv FILE` and `discover --lldp --csv`
#     parse with Python's csv module (RFC 4180); every pair and every
#     figure of the sweep JSON, every link of the discover JSON, is in the
#     CSV (round trip); a bad --csv path is refused before any worker.
#  2. Baseline: the clean sweep of 1 is the baseline; h3's cable slowed by
#     30 % (tbf 700 Mbit/s); `sweep --baseline` marks exactly h3's 3 pairs
#     `regressed` (exit 1, summary, Prometheus, CSV); a bad baseline is
#     refused up front (exit 2 naming the file).
#     Thresholds: --slow-pct 50 --min-pct 0 keep the 70 % pairs from being
#     judged slow against the rated 1 Gbit/s, so the baseline is what
#     catches them; --regress-pct 15 leaves slack both ways for the
#     shared box (clean pairs move a few %, the slowed ones fall ~30 %);
#     --serial: one pair at a time, so concurrent pairs do not share the
#     two CPUs (a clean pair fell 24 % beside the slowed ones when run
#     together on a busy box).
#     Prometheus (promtool is not packaged: a small parser of the text
#     format): every line parses, every sample follows its HELP and TYPE,
#     no series twice, names and labels valid; the new series:
#     fabricctl_sweep_pair_bandwidth_expected_ratio = pct_expected / 100,
#     fabricctl_sweep_pair_bandwidth_baseline_ratio = 1 + change / 100 per
#     pair, fabricctl_sweep_link_suspect_score = the JSON's link suspects
#     (h3's access link on top).
#  3. HTML: `sweep --html FILE` (the same sweep as 2) and `report --baseline`
#     opened in headless Chromium without network: no script error; a third
#     heatmap (change vs baseline) whose cells marked as fallen are exactly
#     the directions that fell > 15 % (h3's pairs only, at least one
#     direction of each); the bandwidth map hatches the regressed
#     cells; a page without a baseline has no third map; bad input exit 2.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip tc jq python3 lldpd lldpcli unshare
command -v chromium >/dev/null 2>&1 || skip "chromium not installed (scripts/install-deps installs it)"
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=so$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P"; }

run lab_up --name "$P" --hosts 4 --leaves 2 --spines 1 --host-rate 1gbit --uplink-rate 1gbit --wait
lab_hostsfile --switches --rate-gbps 1 >"$TMP/hosts"
lab_planfile >"$TMP/plan.yaml"
cat "$TMP/hosts" >&2

SWEEP=(sweep --hosts "$TMP/hosts" --launcher netns --transport tcp --duration 0.5 --lat-iters 500
       --topology "$TMP/plan.yaml" --slow-pct 50 --min-pct 0 --serial)

# sweep OUT.json ARGS...: exit status in $rc.
sweep() {
	local out=$1
	shift
	pretty "$FABRICCTL -j ${SWEEP[*]} $*"
	rc=0
	"$FABRICCTL" -j "${SWEEP[@]}" "$@" >"$out" 2>"$TMP/err" || rc=$?
	tail -n 5 "$TMP/err" >&2
	jq -c '.summary' "$out" >&2
}

# shellcheck source=../lib/chrome.sh
. "$TOP/tests/lib/chrome.sh"
# chrome_dom PAGE: the page's DOM in $TMP/dom, loaded with no error (tests/lib/chrome.sh)
chrome_dom() { chrome "$1" --dump-dom; page_ok "$1"; }
# attrs TAG-REGEX ATTR...: from the DOM, the given attributes of every element whose start tag matches.
attrs() {
	python3 - "$TMP/dom" "$@" <<'EOF2'
import re, sys, html
dom, pat, names = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3:]
for m in re.finditer(r'<[a-z]+ [^>]*>', dom):
    tag = m.group(0)
    if not re.search(pat, tag):
        continue
    vals = []
    for n in names:
        a = re.search(r' ' + n + r'="([^"]*)"', tag)
        vals.append(html.unescape(a.group(1)) if a else "-")
    print(" ".join(vals))
EOF2
}
# h3's pairs, both directions, as "A B" lines.
h3_cells() {
	jq -r '.pairs[] | select(.a == "'"$H3"'" or .b == "'"$H3"'") | "\(.a) \(.b)\n\(.b) \(.a)"' "$1" | sort
}

# --- 1. CSV -----------------------------------------------------------------------------
sweep "$TMP/s1.json" --csv "$TMP/s1.csv"
assert_eq "clean sweep (the baseline): rc" 0 "$rc"
assert_eq "sweep --csv: records end in CRLF" "$(wc -l <"$TMP/s1.csv")" "$(grep -c $'\r$' "$TMP/s1.csv")"
python3 - "$TMP/s1.json" "$TMP/s1.csv" <<'EOF'
import csv, json, math, sys
doc = json.load(open(sys.argv[1]))
with open(sys.argv[2], newline="") as f:
    rows = list(csv.DictReader(f, strict=True))
assert len(rows) == len(doc["pairs"]) == 6, (len(rows), len(doc["pairs"]))
def same(what, j, c, scale=1.0):
    if j is None:
        assert c == "", "%s: JSON null, CSV %r" % (what, c)
        return
    if isinstance(j, bool):
        assert c == ("1" if j else "0"), (what, j, c)
    elif isinstance(j, (int, float)):
        assert c != "" and math.isclose(float(c), j * scale, rel_tol=1e-6, abs_tol=2e-3), (what, j, c)
    else:
        assert c == str(j), (what, j, c)
n = 0
for p, r in zip(doc["pairs"], rows):
    w = "%s-%s" % (p["a"], p["b"])
    for k in ("a", "b", "status", "reason", "round", "retested", "first_slow", "test_s", "bw_mbps",
              "expected_mbps", "expected_from", "pct_expected", "class"):
        same(w + " " + k, p[k], r[k]); n += 1
    lat = p["lat_ns"] or {}
    for k in ("min", "p50", "p99", "p999", "max", "mean"):
        same(w + " lat " + k, lat.get(k), r["lat_%s_us" % k], 1e-3); n += 1
    same(w + " samples", lat.get("samples"), r["lat_samples"]); n += 1
    for d in ("ab", "ba"):
        bw = p["bw_" + d] or {}
        same(w + " avg", bw.get("avg_mbps"), r["bw_%s_mbps" % d])
        for k in ("min_mbps", "bytes", "secs", "intervals"):
            same(w + " " + d + " " + k, bw.get(k), r["bw_%s_%s" % (d, k)]); n += 1
    want = "|".join("%s:%s<->%s:%s" % (l["a"]["node"], l["a"]["port"], l["b"]["node"], l["b"]["port"])
                    for l in p["path"])
    same(w + " path", want, r["path"]); n += 1
    assert len(p["path"]) >= 2, w
print("  ok: sweep CSV: %d pairs, %d figures equal to the JSON's" % (len(rows), n), file=sys.stderr)
EOF

pretty "$FABRICCTL discover --lldp --hosts $TMP/hosts --launcher netns --csv"
"$FABRICCTL" discover --lldp --hosts "$TMP/hosts" --launcher netns --csv >"$TMP/d.csv"
"$FABRICCTL" -j discover --lldp --hosts "$TMP/hosts" --launcher netns >"$TMP/d.json"
python3 - "$TMP/d.json" "$TMP/d.csv" <<'EOF'
import csv, json, sys
doc = json.load(open(sys.argv[1]))
with open(sys.argv[2], newline="") as f:
    rows = list(csv.DictReader(f, strict=True))
assert len(rows) == len(doc["links"]) == 6, (len(rows), len(doc["links"]))
def cell(v):
    return "" if v is None else str(v)
for l, r in zip(doc["links"], rows):
    for e in ("a", "b"):
        end = l[e]
        for k in ("node", "guid", "port_guid", "lid", "state", "phys_state", "width_x", "speed", "mtu"):
            assert r["%s_%s" % (e, k)] == cell(end[k]), (e, k, end[k], r["%s_%s" % (e, k)])
        assert r[e + "_port"] == cell(end["port_name"] if end["port_name"] else end["port"]), (e, end)
    assert r["status"] == l["status"], (l, r)
print("  ok: discover CSV: %d links equal to the JSON's" % len(rows), file=sys.stderr)
EOF

fab "${SWEEP[@]}" --csv "$TMP/nodir/x.csv"
assert_eq "--csv into a missing directory: rc" 2 "$rc"
grep -q "nodir" "$TMP/err" || fail "--csv: the error names the path"

# --- 2. baseline -------------------------------------------------------------------------
H3=$(lab_ns h3)
run lab_slow h3 700mbit
sweep "$TMP/s2.json" --baseline "$TMP/s1.json" --regress-pct 15 --prom "$TMP/s2.prom" --csv "$TMP/s2.csv" \
	--html "$TMP/s2.html"
jq -r '.pairs[] | "    \(.a) \(.b) \(.status) \(.bw_mbps | floor) Mb/s, change \(.baseline.change_pct | floor) %: \(.reason)"' "$TMP/s2.json" >&2
assert_eq "baseline: rc (regressed pairs)" 1 "$rc"
assert_eq "baseline: the regressed pairs are exactly h3's" \
	"$(jq -r '.pairs[] | select(.a == "'"$H3"'" or .b == "'"$H3"'") | [.a, .b] | sort | join(" ")' "$TMP/s2.json" | sort)" \
	"$(jq -r '.pairs[] | select(.status == "regressed") | [.a, .b] | sort | join(" ")' "$TMP/s2.json" | sort)"
assert_eq "baseline: every other pair ok" 3 "$(jq '[.pairs[] | select(.status == "ok")] | length' "$TMP/s2.json")"
assert_eq "baseline: summary" '{"pairs":6,"ok":3,"slow":0,"failed":0,"regressed":3}' "$(jq -c .summary "$TMP/s2.json")"
assert_eq "baseline: header" "$TMP/s1.json 15 6 3" \
	"$(jq -r '.baseline | "\(.file) \(.regress_pct) \(.compared) \(.regressed)"' "$TMP/s2.json")"
assert_eq "baseline: the old figures are the baseline's" true "$(jq -n --slurpfile o "$TMP/s1.json" --slurpfile n "$TMP/s2.json" \
	'[$n[0].pairs[] as $p | $o[0].pairs[] | select(.a == $p.a and .b == $p.b) | .bw_ab.avg_mbps == $p.baseline.bw_ab_mbps and .bw_ba.avg_mbps == $p.baseline.bw_ba_mbps] | length == 6 and all')"
assert_eq "baseline: reasons name the baseline" 3 "$(jq '[.pairs[] | select(.reason // "" | test("below the baseline.s [0-9]+ Mb/s \\(threshold 15%\\)"))] | length' "$TMP/s2.json")"
assert_eq "baseline: Prometheus regressed count" 'fabricctl_sweep_pairs{status="regressed"} 3' "$(grep 'status="regressed"' "$TMP/s2.prom")"
assert_eq "baseline: Prometheus status 3 per regressed pair" 3 "$(grep -c '^fabricctl_sweep_pair_status{.*} 3$' "$TMP/s2.prom")"
assert_eq "baseline: CSV statuses" "regressed regressed regressed" \
	"$(python3 -c 'import csv, sys; print(" ".join(sorted(r["status"] for r in csv.DictReader(open(sys.argv[1], newline="")) if r["status"] != "ok")))' "$TMP/s2.csv")"
python3 - "$TMP/s2.json" "$TMP/s2.prom" <<'EOF'
import json, math, re, sys
doc = json.load(open(sys.argv[1]))
name_re = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
sample_re = re.compile(r'^(%s)(\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*)\})? (\S+)$' % name_re)
help_, type_, series, by = set(), {}, set(), {}
for n, line in enumerate(open(sys.argv[2]), 1):
    line = line.rstrip("\n")
    w = "line %d: %r" % (n, line)
    if line.startswith("# HELP "):
        name = line.split(" ")[2]
        assert re.fullmatch(name_re, name) and name not in help_, w
        help_.add(name)
        continue
    if line.startswith("# TYPE "):
        _, _, name, t = line.split(" ")
        assert name in help_ and name not in type_ and t in ("gauge", "counter"), w
        type_[name] = t
        continue
    m = sample_re.match(line)
    assert m, w
    name, labels, value = m.group(1), m.group(3) or "", m.group(4)
    assert name in type_, w + ": no TYPE before it"
    float(value)
    key = (name, labels)
    assert key not in series, w + ": series twice"
    series.add(key)
    lab = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', labels))
    by.setdefault(name, []).append((lab, float(value)))
pairs = {(p["a"], p["b"]): p for p in doc["pairs"]}
r = by["fabricctl_sweep_pair_bandwidth_expected_ratio"]
assert len(r) == 6, r
for lab, v in r:
    assert math.isclose(v, pairs[(lab["a"], lab["b"])]["pct_expected"] / 100, abs_tol=1e-5), (lab, v)
r = by["fabricctl_sweep_pair_bandwidth_baseline_ratio"]
assert len(r) == 6, r
for lab, v in r:
    assert math.isclose(v, 1 + pairs[(lab["a"], lab["b"])]["baseline"]["change_pct"] / 100, abs_tol=1e-5), (lab, v)
best = {}
for s in doc["suspects"]:
    for l in ([s["link"]] if s["link"] else []) + (s["links"] or []):
        k = (l["a"]["node"], str(l["a"]["port"]), l["b"]["node"], str(l["b"]["port"]))
        if k not in best or s["score"] > best[k][1]:
            best[k] = (s["kind"], round(s["score"], 3))
want = sorted(k + v for k, v in best.items())
got = sorted((l["a_node"], l["a_port"], l["b_node"], l["b_port"], l["kind"], v)
             for l, v in by["fabricctl_sweep_link_suspect_score"])
assert want == got and got, (want, got)
print("  ok: Prometheus: %d series parse, %d metrics; link suspects %s" % (len(series), len(type_), got),
      file=sys.stderr)
EOF
assert_eq "baseline: the top link suspect is h3's access link" "$H3 eth0" \
	"$(jq -r '.suspects[0].link.a | "\(.node) \(.port)"' "$TMP/s2.json")"
# Bad baselines: refused before any worker starts.
echo '{"schema": "fabricctl.discover/1"}' >"$TMP/odd.json"
fab "${SWEEP[@]}" --baseline "$TMP/odd.json"
assert_eq "baseline of another schema: rc" 2 "$rc"
grep -q "odd.json: schema 'fabricctl.discover/1': want a sweep document" "$TMP/err" || fail "baseline schema: message"
printf '{"schema": "fabricctl.sweep/2",\n "pairs": [}' >"$TMP/broken.json"
fab "${SWEEP[@]}" --baseline "$TMP/broken.json"
assert_eq "broken baseline: rc" 2 "$rc"
grep -q "broken.json:2:" "$TMP/err" || fail "broken baseline: message names file and line"
echo '{"schema": "fabricctl.sweep/2", "pairs": [{"a": "x", "b": "y", "bw_ab": {"avg_mbps": "fast"}}]}' >"$TMP/badpair.json"
fab "${SWEEP[@]}" --baseline "$TMP/badpair.json"
assert_eq "baseline with a bad figure: rc" 2 "$rc"
grep -q "badpair.json: pairs\[0\].bw_ab: want null or an object with avg_mbps" "$TMP/err" || fail "bad figure: message"

# --- 3. HTML: sweep --html, report --baseline --------------------------------------------------
# The directions that fell more than 15 % (each direction is its own cell): all on h3's pairs, at least
# one direction of each (the regressed pairs); both directions usually, one when the baseline of the
# other was itself low.
fell=$(jq -r '.pairs[] | . as $p | [["ab", .a, .b], ["ba", .b, .a]][] |
	select(($p["bw_" + .[0]].avg_mbps / $p.baseline["bw_" + .[0] + "_mbps"]) < 0.85) | "\(.[1]) \(.[2])"' "$TMP/s2.json" | sort)
echo "  directions that fell > 15 %: $(echo "$fell" | tr '\n' ',')" >&2
[ -z "$(comm -23 <(echo "$fell") <(h3_cells "$TMP/s2.json"))" ] || fail "a direction off h3 fell"
assert_eq "every regressed pair has a fallen direction" "$(jq -r '.pairs[] | select(.status == "regressed") | [.a, .b] | sort | join(" ")' "$TMP/s2.json" | sort)" \
	"$(echo "$fell" | awk '{ if ($1 > $2) print $2, $1; else print }' | sort -u)"
want=$(h3_cells "$TMP/s2.json")
for page in s2 r2; do
	if [ $page = r2 ]; then
		fab report "$TMP/s2.json" --baseline "$TMP/s1.json" --regress-pct 15 -o "$TMP/r2.html"
		assert_eq "report --baseline: rc" 0 "$rc"
	fi
	chrome_dom "$TMP/$page.html"
	assert_eq "$page: three maps of 12 cells" 36 "$(attrs 'class="cell ' data-a | wc -l)"
	assert_eq "$page: change map: cells, fallen, not in the baseline" "12 $(echo "$fell" | wc -l) 0" \
		"$(attrs 'data-kind="chg"' data-cells data-dropped data-nobase)"
	assert_eq "$page: the cells hatched as fallen are the directions that fell (h3's)" "$fell" \
		"$(attrs 'class="mark drop' data-a data-b | sort)"
	assert_eq "$page: the cells marked fallen in the change map carry data-drop" "$fell" \
		"$(attrs 'data-drop="1"' data-a data-b | sort)"
	assert_eq "$page: the bandwidth map hatches the regressed cells" "$want" \
		"$(attrs 'class="mark regressed' data-a data-b | sort -u)"
	printf '  ok: %s: loads; the change map marks exactly h3'"'"'s pairs\n' "$page" >&2
done
grep -q '<div class="l">regressed</div>' "$TMP/dom" || fail "r2: no regressed card"
fab report "$TMP/s1.json" -o "$TMP/r1.html"
chrome_dom "$TMP/r1.html"
assert_eq "no baseline: two maps" 24 "$(attrs 'class="cell ' data-a | wc -l)"
assert_eq "no baseline: no change map" 0 "$(grep -c 'id="hm-chg"' "$TMP/dom" || true)"
fab report "$TMP/d.json" --baseline "$TMP/s1.json" -o "$TMP/x.html"
assert_eq "report --baseline without a sweep: rc" 2 "$rc"
fab report "$TMP/s2.json" --baseline "$TMP/d.json" -o "$TMP/x.html"
assert_eq "report --baseline of a discover document: rc" 2 "$rc"
grep -q "d.json: schema 'fabricctl.discover/1': a baseline is a sweep document" "$TMP/err" || fail "report --baseline: message"
[ ! -e "$TMP/x.html" ] || fail "a page was written on bad input"
fab "${SWEEP[@]}" --html -
assert_eq "sweep --html -: rc" 2 "$rc"

echo "sweep-outputs: all checks passed" >&2
