#!/bin/bash
# sweep's and discover's machine-readable outputs on a small netns lab
# (4 hosts, 2 leaves, 1 spine, lldpd, 1 Gbit/s cables):
#  1. CSV: `sweep --topology PLAN --csv FILE` and `discover --lldp --csv`
#     parse with Python's csv module (RFC 4180); every pair and every
#     figure of the sweep JSON, every link of the discover JSON, is in the
#     CSV (round trip); a bad --csv path is refused before any worker.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip tc jq python3 lldpd lldpcli
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
       --topology "$TMP/plan.yaml")

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

# --- 1. CSV -----------------------------------------------------------------------------
sweep "$TMP/s1.json" --csv "$TMP/s1.csv"
[ "$rc" -le 1 ] || fail "sweep --csv: rc $rc"
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

echo "sweep-outputs: all checks passed" >&2
