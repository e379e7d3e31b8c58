#!/bin/bash
# The rated-speed rule end to end (README: "bandwidth is judged as a
# percentage of rate_gbps"): 3 hosts on one leaf, every host cable shaped
# to 1 Gbit/s, h1's cable slowed to 200 Mbit/s, a hosts file written by
# the lab with rate_gbps=1.  Two of the three pairs cross h1's cable, so
# the fleet median is itself slow and a judge that ignored rate_gbps
# would flag nothing (checked below with the same lab and no rate_gbps):
# with it, exactly h1's two pairs are slow, each judged against the rated
# 1000 Mb/s, and the pair that does not cross h1 is ok.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip tc jq
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

L=h12r$$
tmpdir_with_cleanup sweep-rated
cleanup_hook() { lab_down --name "$L" || true; }

run lab_up --name "$L" --hosts 3 --leaves 1 --spines 0 --host-rate 1gbit --no-lldp
lab_hostsfile --rate-gbps 1 >"$TMP/hosts.rated"
lab_hostsfile >"$TMP/hosts.unrated"
grep -q ' rate_gbps=1$' "$TMP/hosts.rated" || fail "lab hosts file has no rate_gbps: $(cat "$TMP/hosts.rated")"
run lab_slow h1 200mbit

# sweep HOSTS: JSON to $TMP/out, exit status in $rc.
sweep() {
	pretty "$FABRICCTL -j sweep --hosts $1 --launcher netns --transport tcp --duration 1 --lat-iters 200"
	rc=0
	"$FABRICCTL" -j sweep --hosts "$1" --launcher netns --transport tcp --duration 1 \
		--lat-iters 200 >"$TMP/out" 2>"$TMP/err" || rc=$?
	jq -r '.pairs[] | "    \(.a) \(.b) \(.status) \(.bw_mbps // "-") Mb/s: \(.reason // "")"' "$TMP/out" >&2 || cat "$TMP/err" >&2
}
q() { jq -r "$@" "$TMP/out"; }
slow_pairs() { q '[.pairs[] | select(.status == "slow") | [.a, .b] | sort | join(" ")] | sort | join(",")'; }

sweep "$TMP/hosts.rated"
assert_eq "rated: exit status" 1 "$rc"
assert_eq "rated: exactly h1's two pairs slow" "$L-h1 $L-h2,$L-h1 $L-h3" "$(slow_pairs)"
assert_eq "rated: the other pair ok" ok \
	"$(q --arg a "$L-h2" --arg b "$L-h3" '.pairs[] | select([.a, .b] | sort == [$a, $b]) | .status')"
# each slow pair judged against the rated speed, named in its reason
q '.pairs[] | select(.status == "slow") | .reason' >"$TMP/reasons"
assert_eq "rated: both reasons name the rated speed" 2 "$(grep -c 'rated' "$TMP/reasons")"

# The same lab without rate_gbps: the fleet reference cannot see it (the
# reason the rated rule exists; if this starts flagging h1, the test above
# no longer proves that rate_gbps is used and needs a harder case).
sweep "$TMP/hosts.unrated"
echo "unrated: slow pairs '$(slow_pairs)' (rc $rc)" >&2
[ "$(slow_pairs)" != "$L-h1 $L-h2,$L-h1 $L-h3" ] ||
	fail "without rate_gbps h1's pairs are flagged too: the rated check proves nothing here"
echo "sweep-rated: all checks passed"
