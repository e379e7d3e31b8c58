#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# Strings from a file or a saved document reach the terminal cleaned: every
# control character shown as \xNN, as worker strings already were.  Issue
# 22, item 7; 8419e42 wrote them raw:
#  1. diagnose --from a sweep document whose "mode" and a pair's "reason"
#     hold a title-setting OSC, a screen clear and a colour;
#  2. sweep --topology PLAN --dry-run with plan node names holding them;
#  3. the document's topology node names (suspects name them).
# No root, no traffic: the document is a dry run's, edited with jq.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd jq od
need_fabricctl

tmpdir_with_cleanup fabricctl-escapes

# raw_ctl FILE: the number of ESC, BEL and CSI (C1) bytes in FILE.
raw_ctl() { od -An -v -tx1 "$1" | tr ' ' '\n' | grep -c -E '^(1b|07|9b)$' || true; }

printf 'h1 10.0.0.1\nh2 10.0.0.2\nh3 10.0.0.3\nh4 10.0.0.4\n' >"$TMP/hosts"
# plan SPINE: two leaves, two hosts on each, one spine called SPINE.
plan() {
	cat <<EOF
version: 1
nodes:
  - { name: leaf1, type: switch }
  - { name: leaf2, type: switch }
  - { name: "$1", type: switch }
links:
  - [ "h1:eth0", "leaf1:swp1" ]
  - [ "h2:eth0", "leaf1:swp2" ]
  - [ "h3:eth0", "leaf2:swp1" ]
  - [ "h4:eth0", "leaf2:swp2" ]
  - { a: "leaf1:swp49", b: { node: "$1", port: swp1 } }
  - { a: "leaf2:swp49", b: { node: "$1", port: swp2 } }
EOF
}
EVIL='\e]0;owned\a\e[2J\e[31mspine'	# YAML double-quoted escapes
SHOWN='\x1b]0;owned\x07\x1b[2J\x1b[31mspine'

# --- 2. a plan's node names in the dry run -----------------------------------
plan "$EVIL" >"$TMP/plan.yaml"
fab sweep --hosts "$TMP/hosts" --topology "$TMP/plan.yaml" --dry-run
assert_eq "dry run: rc" 0 "$rc"
assert_eq "dry run: control bytes on stdout" 0 "$(raw_ctl "$TMP/out")"
assert_eq "dry run: control bytes on stderr" 0 "$(raw_ctl "$TMP/err")"
assert_eq "dry run: paths name the spine, escaped (lines)" 4 \
	"$(grep -c -F "$SHOWN swp" "$TMP/out" || true)"

# --- 1. and 3. diagnose --from a document with escapes -----------------------
fab -j sweep --hosts "$TMP/hosts" --topology "$TMP/plan.yaml" --dry-run
assert_eq "dry run -j: rc" 0 "$rc"
# Every pair measured at 1000 Mb/s, those crossing the spine slow with a
# hostile reason; the mode too.
jq --arg esc $'\e]0;owned\a\e[2J\e[31m' '
	.mode = ("all-pairs" + $esc) | .dry_run = false |
	.pairs |= map(. + {
		bw_ab: {avg_mbps: 1000}, bw_ba: {avg_mbps: 1000},
		status: (if .class == 4 then "slow" else "ok" end),
		reason: (if .class == 4 then ("slow" + $esc + "reason") else "" end)})' \
	"$TMP/out" >"$TMP/sweep.json"
assert_eq "document: slow pairs" 4 "$(jq '[.pairs[] | select(.status == "slow")] | length' "$TMP/sweep.json")"
fab diagnose --from "$TMP/sweep.json"
assert_eq "diagnose: rc" 1 "$rc"
assert_eq "diagnose: control bytes on stdout" 0 "$(raw_ctl "$TMP/out")"
assert_eq "diagnose: control bytes on stderr" 0 "$(raw_ctl "$TMP/err")"
assert_eq "diagnose: the mode, escaped" 1 \
	"$(grep -c -F 'all-pairs\x1b]0;owned\x07\x1b[2J\x1b[31m' "$TMP/out" || true)"
assert_eq "diagnose: the reasons, escaped" 4 \
	"$(grep -c -F 'slow\x1b]0;owned\x07\x1b[2J\x1b[31mreason' "$TMP/out" || true)"
assert_eq "diagnose: the suspect names the spine, escaped" true \
	"$(grep -q -F "$SHOWN" "$TMP/out" && echo true || echo false)"
