#!/bin/bash
# fabricctl report: the HTML page opened in headless Chromium, with no
# network (chromium runs in an empty network namespace; the page's CSP is
# default-src 'none').
#  1. 8-host netns lab, h3's cable slowed to 100 Mbit/s, a real sweep: the
#     page loads without script or console errors; one cell per ordered
#     pair in each heatmap; the cells marked slow are exactly the slow
#     pairs of the JSON, both directions; hosts ordered and grouped by the
#     leaves of the hosts file; h3's link is lit in the graph; a screenshot
#     (tests/out/report-lab.png) that is not blank.
# The fixtures' pages (a sweep/2 fixture, discover's cables, pages
# without a sweep, bad input, 1024 nodes): report-html-fixtures.sh, which
# judges no time and runs beside the vm tier.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip tc jq python3 unshare
command -v chromium >/dev/null 2>&1 || skip "chromium not installed (scripts/install-deps installs it)"
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=rp$$
OUTDIR=${LOGDIR:-$TOP/tests/out}
mkdir -p "$OUTDIR"
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P"; }
PNGSTATS=$TOP/tests/tools/png-stats
# shellcheck source=../lib/chrome.sh
. "$TOP/tests/lib/chrome.sh"

# --- 1. the lab, one slow host ------------------------------------------------------
run lab_up --name "$P" --hosts 8 --leaves 2 --spines 1 --no-lldp
lab_hostsfile >"$TMP/hosts"
H3=$(lab_ns h3)
run lab_slow h3 100mbit
rc=0
run "$FABRICCTL" -j sweep --hosts "$TMP/hosts" --launcher netns --transport tcp --duration 0.5 \
	--lat-iters 1000 >"$TMP/sweep.json" || rc=$?
assert_eq "lab sweep: rc (h3 slow)" 1 "$rc"
jq -c '.summary' "$TMP/sweep.json" >&2
cp "$TMP/sweep.json" "$OUTDIR/report-lab-sweep.json"
assert_eq "lab sweep: h3's 7 pairs slow" 7 "$(jq '[.pairs[] | select(.status == "slow")] | length' "$TMP/sweep.json")"

fab report "$TMP/sweep.json" --hosts "$TMP/hosts" -o "$TMP/lab.html"
assert_eq "report: rc" 0 "$rc"
assert_eq "report: no temporary file left" 0 "$(find "$TMP" -name 'lab.html.tmp.*' | wc -l)"
grep -qE '(src|href)="(https?:)?//' "$TMP/lab.html" && fail "the page refers to a network resource"
chrome "$TMP/lab.html" --dump-dom
page_ok "lab page"
assert_eq "lab: bandwidth cells (8 x 7 ordered pairs)" 56 "$(attrs 'cell ' data-a | wc -l | awk '{print $1 / 2}')"
assert_eq "lab: one cell per ordered pair" 56 "$(attrs 'cell ' data-a data-b | sort -u | wc -l)"
# The slow pairs of the JSON, both directions, against the marked cells and the cells' status.
want=$(jq -r '.pairs[] | select(.status == "slow") | "\(.a) \(.b)\n\(.b) \(.a)"' "$TMP/sweep.json" | sort)
assert_eq "lab: slow cells are exactly the slow pairs (14 ordered)" 14 "$(echo "$want" | wc -l)"
assert_eq "lab: cells marked slow (glyph) = slow pairs" "$want" "$(attrs 'mark slow' data-a data-b | sort -u)"
assert_eq "lab: cells with status slow = slow pairs" "$want" \
	"$(attrs 'cell ' data-a data-b data-st | awk '$3 == "slow" {print $1, $2}' | sort -u)"
assert_eq "lab: every mark on a slow pair (2 maps)" 28 "$(attrs 'mark ' data-a | wc -l)"
# Hosts grouped by leaf (the hosts file's leaf=), natural order inside a group.
assert_eq "lab: groups" "[['$P-leaf1', 0], ['$P-leaf2', 4]]" "$(data "$TMP/lab.html" "D['sweep']['groups']")"
assert_eq "lab: host order" "h1 h3 h5 h7 h2 h4 h6 h8" \
	"$(data "$TMP/lab.html" "' '.join(h[0].split('-')[-1] for h in D['sweep']['hosts'])")"
assert_eq "lab: h3's link lit as suspect in the graph" "$H3 $P-leaf1 suspect 1" \
	"$(attrs 'lk ' data-a data-b data-verdict data-suspect | grep "^$H3 ")"
chrome "$TMP/lab.html" --screenshot="$OUTDIR/report-lab.png" --window-size=1400,1900 --hide-scrollbars
read -r w h colours inked <<<"$("$PNGSTATS" "$OUTDIR/report-lab.png")"
echo "  screenshot $OUTDIR/report-lab.png: ${w}x$h, $colours colours, $inked/1000 not background" >&2
[ "$w" = 1400 ] && [ "$h" = 1900 ] || fail "screenshot size ${w}x$h"
[ "$colours" -ge 100 ] || fail "screenshot: only $colours colours (blank?)"
[ "$inked" -ge 100 ] || fail "screenshot: only $inked/1000 pixels drawn (blank?)"
printf '  ok: screenshot not blank\n' >&2
cp "$TMP/lab.html" "$OUTDIR/report-lab.html"

echo "report-html: all checks passed" >&2
