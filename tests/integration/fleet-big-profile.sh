#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# verify --hosts and apply --hosts with a valid profile larger than a pipe
# (~200 KiB of comments around one MTU rule): the request goes down each
# worker's stdin in several writes and every node answers.  The old
# controller took the first write's short count as a dead worker: every
# node failed with "closed its output", exit 3.  Issue 9, item 2.
# Nodes: two network namespaces, each with a veth "eth0"; launcher
# `ip netns exec {host}` with a run directory of its own per node.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl

P=bp$$
tmpdir_with_cleanup
cleanup_hook() { for h in h1 h2; do ip netns del "$P-$h" 2>/dev/null || true; done; }
for h in h1 h2; do
	run ip netns add "$P-$h"
	run ip -n "$P-$h" link add eth0 mtu 9000 type veth peer name p0
done
run ip -n "$P-h2" link set eth0 mtu 1500
printf '%s 10.0.0.1\n%s 10.0.0.2\n' "$P-h1" "$P-h2" >"$TMP/hosts"
LAUNCH="env FABRICCTL_RUNDIR=$TMP/run-{host} ip netns exec {host}"
mtu_of() { ip -n "$P-$1" -j link show eth0 | jq -r '.[0].mtu'; }
q() { jq -r "$@" "$TMP/out"; }

{
	echo "name: big"
	for i in $(seq 1 1600); do printf '# comment line %04d: %s\n' "$i" "$(printf '%0100d' 0)"; done
	printf 'interfaces:\n  - match: eth0\n    mtu: 9000\n'
} >"$TMP/big.yaml"
size=$(stat -c %s "$TMP/big.yaml")
pretty "profile of $size bytes"
[ "$size" -gt 131072 ] || fail "the profile must be larger than two pipe buffers ($size bytes)"

fab -j verify --hosts "$TMP/hosts" --launcher "$LAUNCH" "$TMP/big.yaml"
assert_eq "verify: rc (h2 drifts)" 1 "$rc"
assert_eq "verify: nodes, failed, drifted" "2 0 1" \
	"$(q '"\(.summary.nodes) \(.summary.failed) \(.summary.drifted)"')"
assert_eq "verify: the drift" "$P-h2 eth0 mtu 9000 1500" \
	"$(q '.drift | map("\(.node) \(.interface) \(.field) \(.wanted) \(.found)") | join(";")')"

fab -j apply --hosts "$TMP/hosts" --launcher "$LAUNCH" "$TMP/big.yaml"
assert_eq "apply: rc" 0 "$rc"
assert_eq "apply: the change" "$P-h2 eth0 mtu 1500 9000 done" \
	"$(q '.changes | map("\(.node) \(.object) \(.field) \(.from) \(.to) \(.status)") | join(";")')"
assert_eq "apply: h2's mtu" 9000 "$(mtu_of h2)"
echo "fleet-big-profile: all checks passed" >&2
