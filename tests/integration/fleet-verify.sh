#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# verify --hosts and apply --hosts over the netns lab (tests/lab/netns,
# launcher netns): every node verified with the profile's text sent by the
# controller, drift merged into one table/document naming the node, apply
# fixing exactly the drifting node, a node whose worker prints garbage
# reported as failed with the reason while the others are verified, a
# failing apply rolled back on every node, bad input refused before any
# node is contacted.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=fv$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P"; rm -rf /run/fabricctl-netns-"$P"-*; }

run lab_up --name "$P" --hosts 4 --leaves 1 --spines 0 --mtu 9000 --no-lldp
lab_hostsfile >"$TMP/hosts"
H1=$(lab_ns h1) H2=$(lab_ns h2) H3=$(lab_ns h3) H4=$(lab_ns h4)
mtu_of() { ip -n "$(lab_ns "$1")" -j link show eth0 | jq -r '.[0].mtu'; }

# Every namespace is a "node", but they share this machine's /run: give
# each its own apply lock and pending state, as separate nodes have.
LAUNCH="env FABRICCTL_RUNDIR=$TMP/run-{host} ip netns exec {host}"

cat >"$TMP/p.yaml" <<'Y'
name: fleet-test
interfaces:
  - match: eth0
    mtu: 9000
Y
q() { jq -r "$@" "$TMP/out"; }

run lab_set_mtu h2 eth0 1500

# 1. verify --hosts: exactly h2's eth0 mtu, exit 1.
fab -j verify --hosts "$TMP/hosts" --launcher "$LAUNCH" "$TMP/p.yaml"
assert_eq "verify: rc" 1 "$rc"
assert_eq "verify: schema" "fabricctl.fleet-verify/1" "$(q .schema)"
assert_eq "verify: the one drift" "$H2 eth0 mtu 9000 1500" \
	"$(q '.drift | map("\(.node) \(.interface) \(.field) \(.wanted) \(.found)") | join(";")')"
assert_eq "verify: nodes answered" "4 0 1" "$(q '"\(.summary.nodes) \(.summary.failed) \(.summary.drifted)"')"
assert_eq "verify: per-node documents" "fabricctl.verify/1" \
	"$(q '[.nodes[].verify.schema] | unique | join(",")')"
assert_eq "verify: h2's own document" "false 1" \
	"$(q --arg n "$H2" '.nodes[] | select(.node == $n) | "\(.verify.ok) \(.verify.n_drift)"')"

# The text table: one drift row naming h2.
fab verify --hosts "$TMP/hosts" --launcher "$LAUNCH" "$TMP/p.yaml"
assert_eq "verify text: rc" 1 "$rc"
assert_eq "verify text: drift row" "$H2 eth0 mtu 9000 1500" \
	"$(awk -v n="$H2" '$1 == n { print $1, $2, $3, $4, $5 }' "$TMP/out")"

# 2. apply --hosts --dry-run: the one change planned, nothing changed.
fab -j apply --hosts "$TMP/hosts" --launcher "$LAUNCH" --dry-run "$TMP/p.yaml"
assert_eq "dry run: rc" 0 "$rc"
assert_eq "dry run: planned" "$H2 eth0 mtu 1500 9000 planned" \
	"$(q '.changes | map("\(.node) \(.object) \(.field) \(.from) \(.to) \(.status)") | join(";")')"
assert_eq "dry run: h2 untouched" 1500 "$(mtu_of h2)"

# --try with --hosts is refused as a usage error; nothing changes.
fab apply --hosts "$TMP/hosts" --launcher "$LAUNCH" --try 30 "$TMP/p.yaml"
assert_eq "--try --hosts: rc" 2 "$rc"
assert_eq "--try --hosts: h2 untouched" 1500 "$(mtu_of h2)"

# 3. apply --hosts: h2 fixed, the others had nothing to do.
fab -j apply --hosts "$TMP/hosts" --launcher "$LAUNCH" "$TMP/p.yaml"
assert_eq "apply: rc" 0 "$rc"
assert_eq "apply: schema" "fabricctl.fleet-apply/1" "$(q .schema)"
assert_eq "apply: the one change" "$H2 eth0 mtu 1500 9000 done" \
	"$(q '.changes | map("\(.node) \(.object) \(.field) \(.from) \(.to) \(.status)") | join(";")')"
assert_eq "apply: summary" "4 4 0 1" "$(q '"\(.summary.nodes) \(.summary.ok) \(.summary.failed) \(.summary.changed)"')"
assert_eq "apply: h2 mtu" 9000 "$(mtu_of h2)"

# 4. verify --hosts again: clean, exit 0.
fab -j verify --hosts "$TMP/hosts" --launcher "$LAUNCH" "$TMP/p.yaml"
assert_eq "verify after apply: rc" 0 "$rc"
assert_eq "verify after apply: no drift" "0 true" "$(q '"\(.drift | length) \(.ok)"')"

# 5. A broken worker: h3's launcher prints garbage.  h3 failed with the
#    reason, the others verified (h4's new drift found), exit 3.
cat >"$TMP/launch" <<'SCRIPT'
#!/bin/bash
victim=$1 host=$2
shift 2
[ "$host" = "$victim" ] || exec ip netns exec "$host" "$@"
echo 'HTTP/1.1 400 Bad Request'
exec cat >/dev/null
SCRIPT
chmod +x "$TMP/launch"
run lab_set_mtu h4 eth0 1500
fab -j verify --hosts "$TMP/hosts" --launcher "$TMP/launch $H3 {host}" "$TMP/p.yaml"
assert_eq "garbage: rc" 3 "$rc"
assert_eq "garbage: h3 failed, with the reason" "false true" \
	"$(q --arg n "$H3" '.nodes[] | select(.node == $n) | "\(.ok) \(.error | test("garbage.*HTTP/1.1"))"')"
assert_eq "garbage: the others verified" "$H1,$H2,$H4" \
	"$(q '[.nodes[] | select(.ok) | .node] | join(",")')"
assert_eq "garbage: h4's drift still found" "$H4 eth0 mtu 9000 1500" \
	"$(q '.drift | map("\(.node) \(.interface) \(.field) \(.wanted) \(.found)") | join(";")')"
assert_eq "garbage: summary" "4 2 1 1" \
	"$(q '"\(.summary.nodes) \(.summary.ok) \(.summary.drifted) \(.summary.failed)"')"
fab verify --hosts "$TMP/hosts" --launcher "$TMP/launch $H3 {host}" "$TMP/p.yaml"
assert_eq "garbage text: rc" 3 "$rc"
assert_eq "garbage text: failed row" "$H3 FAILED:" "$(awk -v n="$H3" '$1 == n { print $1, $2 }' "$TMP/out")"
# status --hosts follows the same exit rule: a node that could not be read is 3.
fab -j status --hosts "$TMP/hosts" --launcher "$TMP/launch $H3 {host}"
assert_eq "garbage status: rc" 3 "$rc"
assert_eq "garbage status: the others read" "$H1,$H2,$H4" \
	"$(q '[.nodes[] | select(.ok) | .node] | join(",")')"

# 6. An apply that fails on every node (a veth has no DCB): each node rolls
#    back its own MTU step, exit 3, MTUs as before.
cat >"$TMP/pfc.yaml" <<'Y'
interfaces:
  - match: eth0
    mtu: 9100
    pfc: {enable: [3]}
Y
fab -j apply --hosts "$TMP/hosts" --launcher "$LAUNCH" "$TMP/pfc.yaml"
assert_eq "failing apply: rc" 3 "$rc"
assert_eq "failing apply: every node failed" "4 0 4" \
	"$(q '"\(.summary.nodes) \(.summary.ok) \(.summary.failed)"')"
assert_eq "failing apply: every node rolled back" "true" \
	"$(q '[.nodes[] | .apply.rolled_back and (.error | test("step 2"))] | all')"
assert_eq "failing apply: mtu steps undone" "undone" "$(q '[.changes[] | select(.field == "mtu") | .status] | unique | join(",")')"
assert_eq "failing apply: mtus as before" "9000 9000 9000 1500" \
	"$(mtu_of h1) $(mtu_of h2) $(mtu_of h3) $(mtu_of h4)"

# 6b. The built-in netns launcher gives each namespace its own run
#     directory: four nodes apply at once, none refused by another's lock.
fab -j apply --hosts "$TMP/hosts" --launcher netns "$TMP/p.yaml"
assert_eq "netns launcher apply: rc" 0 "$rc"
assert_eq "netns launcher apply: every node ok" "4 4 0" \
	"$(q '"\(.summary.nodes) \(.summary.ok) \(.summary.failed)"')"
assert_eq "netns launcher apply: h4 fixed" 9000 "$(mtu_of h4)"
for h in "$H1" "$H2" "$H3" "$H4"; do
	[ -d "/run/fabricctl-netns-$h" ] || fail "no run directory of its own for $h"
done
run lab_set_mtu h4 eth0 1500	# the drift the steps below expect

# 6c. The lab README's plain launcher `ip netns exec {host}` (no
#     FABRICCTL_RUNDIR): the run directory follows the network namespace,
#     so the four nodes do not share one lock (they did: 3 of 4 refused).
rm -rf /run/fabricctl-netns-"$P"-*
fab -j apply --hosts "$TMP/hosts" --launcher 'ip netns exec {host}' "$TMP/p.yaml"
assert_eq "plain ip netns exec apply: rc" 0 "$rc"
assert_eq "plain ip netns exec apply: every node ok" "4 4 0" \
	"$(q '"\(.summary.nodes) \(.summary.ok) \(.summary.failed)"')"
assert_eq "plain ip netns exec apply: h4 fixed" 9000 "$(mtu_of h4)"
for h in "$H1" "$H2" "$H3" "$H4"; do
	[ -f "/run/fabricctl-netns-$h/lock" ] || fail "no lock of its own for $h"
done
run lab_set_mtu h4 eth0 1500
# A node's lock is still exclusive: held for h4, h4's apply is refused
# naming it, the other three apply.
flock "/run/fabricctl-netns-$H4/lock" "$FABRICCTL" -j apply --hosts "$TMP/hosts" \
	--launcher 'ip netns exec {host}' "$TMP/p.yaml" >"$TMP/out" 2>"$TMP/err" && rc=0 || rc=$?
cat "$TMP/out" "$TMP/err" >&2
assert_eq "h4's lock held: rc" 3 "$rc"
assert_eq "h4's lock held: three ok, h4 refused" "4 3 1" \
	"$(q '"\(.summary.nodes) \(.summary.ok) \(.summary.failed)"')"
q -e --arg h "$H4" '.nodes[] | select(.node == $h) | .error |
	test("another apply is running on this node \\(/run/fabricctl-netns-" + $h + "/lock\\)")' >/dev/null ||
	fail "h4's refusal does not name its lock: $(q -c '.nodes[] | select(.error != null)')"
assert_eq "h4's lock held: h4 not changed" 1500 "$(mtu_of h4)"

# 7. Bad input is refused (exit 2, file:line:column) before any node is
#    contacted: the launcher would leave a mark.
cat >"$TMP/mark" <<SCRIPT
#!/bin/bash
touch "$TMP/contacted"
shift
exec ip netns exec "\$@"
SCRIPT
chmod +x "$TMP/mark"
printf 'interfaces:\n  - match: eth0\n    mtu: nine\n' >"$TMP/bad.yaml"
for c in verify apply; do
	fab "$c" --hosts "$TMP/hosts" --launcher "$TMP/mark x {host}" "$TMP/bad.yaml"
	assert_eq "$c bad profile: rc" 2 "$rc"
	assert_eq "$c bad profile: file:line:column" true \
		"$(grep -q "bad.yaml:3:[0-9]*: " "$TMP/err" && echo true || echo false)"
	assert_eq "$c bad profile: no node contacted" false "$([ -e "$TMP/contacted" ] && echo true || echo false)"
done
printf '%s 10.0.0.300\n' "$H1" >"$TMP/badhosts"
fab verify --hosts "$TMP/badhosts" --launcher "$TMP/mark x {host}" "$TMP/p.yaml"
assert_eq "bad hosts file: rc" 2 "$rc"
assert_eq "bad hosts file: no node contacted" false "$([ -e "$TMP/contacted" ] && echo true || echo false)"
# The mark launcher works (the check above can fail):
fab verify --hosts "$TMP/hosts" --launcher "$TMP/mark x {host}" "$TMP/p.yaml"
assert_eq "mark launcher: rc (h4 drifts)" 1 "$rc"
assert_eq "mark launcher: contacted" true "$([ -e "$TMP/contacted" ] && echo true || echo false)"
echo "fleet-verify: all checks passed" >&2
