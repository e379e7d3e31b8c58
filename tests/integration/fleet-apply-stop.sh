#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# apply --hosts never SIGKILLs a node's worker in the middle of its plan:
# past --timeout the worker is asked to stop (SIGTERM to its process
# group), and its answer (the rolled-back plan) is awaited and reported.
# The old controller SIGKILLed it at the deadline (and again 2 s into
# fleet_fini): the node's rollback never ran, its answer was lost.  Issue 9,
# item 13.
#
# Node h1 is a real worker in a network namespace.  Node h2 is a slow node
# played by a script speaking the worker protocol (no real apply can be
# made to take seconds here): it answers hello, takes the apply request and
# works on it until SIGTERM, then answers with a rolled-back apply document
# (as the worker's node layer does) and records that it did.  Then a node
# that ignores SIGTERM: SIGKILLed after the 30 s grace, not before.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl

P=as$$
tmpdir_with_cleanup
cleanup_hook() {
	ip netns del "$P-h1" 2>/dev/null || true
	[ -s "$TMP/slow.pid" ] && kill "$(cat "$TMP/slow.pid")" 2>/dev/null || true
	local p
	for p in $(pgrep -f "${TAG:-none}" || true); do kill -9 "$p" 2>/dev/null || true; done
}
run ip netns add "$P-h1"
run ip -n "$P-h1" link add eth0 mtu 1500 type veth peer name p0
printf '%s 10.0.0.1\n%s 10.0.0.2\n' "$P-h1" "$P-h2" >"$TMP/hosts"
printf 'interfaces:\n  - match: eth0\n    mtu: 9000\n' >"$TMP/p.yaml"

cat >"$TMP/slow-node" <<'SCRIPT'
#!/bin/bash
# slow-node DIR: a worker whose apply runs until it is asked to stop.
dir=$1
echo $$ >"$dir/slow.pid"
apply_id=
stopped() {
	[ -n "$apply_id" ] || exit 0
	printf '{"v":1,"id":%s,"ok":true,"result":{"schema":"fabricctl.apply/1","dry_run":false,"ok":false,"rolled_back":true,"error":"stopped by SIGTERM at step 1; rolled back, the node is as before","steps":[{"object":"eth0","field":"mtu","from":"1500","to":"9000","status":"undone"}]}}\n' "$apply_id"
	echo answered >"$dir/slow.term"
	exit 0
}
trap stopped TERM
while read -r line; do
	id=$(jq -r .id <<<"$line")
	case $(jq -r .op <<<"$line") in
	hello) printf '{"v":1,"id":%s,"ok":true,"result":{"version":1}}\n' "$id" ;;
	apply)
		apply_id=$id
		echo busy >"$dir/slow.busy"
		sleep 300 &
		wait $! ;;
	esac
done
SCRIPT
chmod +x "$TMP/slow-node"
cat >"$TMP/launch" <<SCRIPT
#!/bin/bash
host=\$1
shift
[ "\$host" = "$P-h2" ] && exec "$TMP/slow-node" "$TMP"
exec env FABRICCTL_RUNDIR="$TMP/run-\$host" ip netns exec "\$host" "\$@"
SCRIPT
chmod +x "$TMP/launch"

start=$(date +%s)
fab -j apply --hosts "$TMP/hosts" --launcher "$TMP/launch {host}" --timeout 2 "$TMP/p.yaml"
took=$(( $(date +%s) - start ))
q() { jq -r "$@" "$TMP/out"; }
assert_eq "rc (h2 failed)" 3 "$rc"
assert_eq "h2 was busy with the apply" busy "$(cat "$TMP/slow.busy" 2>/dev/null || echo none)"
assert_eq "h2 was asked to stop and answered" answered "$(cat "$TMP/slow.term" 2>/dev/null || echo killed)"
assert_eq "h2: failed with its own rollback" "false true stopped by SIGTERM at step 1; rolled back, the node is as before" \
	"$(q --arg n "$P-h2" '.nodes[] | select(.node == $n) | "\(.ok) \(.apply.rolled_back) \(.error)"')"
assert_eq "h2: its undone step" "$P-h2 eth0 mtu undone" \
	"$(q --arg n "$P-h2" '.changes[] | select(.node == $n) | "\(.node) \(.object) \(.field) \(.status)"')"
assert_eq "h1 applied" "true 9000" \
	"$(q --arg n "$P-h1" '.nodes[] | select(.node == $n) | .ok') $(ip -n "$P-h1" -j link show eth0 | jq -r '.[0].mtu')"
assert_eq "the stop is said" true \
	"$(grep -q "$P-h2: no answer to apply within 2000 ms; asking it to stop (SIGTERM)" "$TMP/err" && echo true || echo false)"
[ "$took" -lt 20 ] || fail "took $took s: the answer after SIGTERM was not taken at once"
pretty "took $took s"

# 2. A node that ignores SIGTERM is killed (SIGKILL) 30 s after it, with
#    the reason, and nothing of it is left.
cat >"$TMP/deaf-node" <<'SCRIPT'
#!/bin/bash
# deaf-node DIR TAG: a worker whose apply never ends and that ignores SIGTERM.
trap '' TERM
while read -r line; do
	id=$(jq -r .id <<<"$line")
	case $(jq -r .op <<<"$line") in
	hello) printf '{"v":1,"id":%s,"ok":true,"result":{"version":1}}\n' "$id" ;;
	apply) echo busy >"$1/deaf.busy"
		while :; do (exec -a "$2" sleep 1); done ;;
	esac
done
SCRIPT
chmod +x "$TMP/deaf-node"
TAG=fabdeaf$$x$RANDOM
sed -i "s|exec \"$TMP/slow-node\" \"$TMP\"|exec \"$TMP/deaf-node\" \"$TMP\" $TAG|" "$TMP/launch"
grep -q deaf-node "$TMP/launch" || fail "launcher not switched to the deaf node"
start=$(date +%s)
fab -j apply --hosts "$TMP/hosts" --launcher "$TMP/launch {host}" --timeout 1 "$TMP/p.yaml"
took=$(( $(date +%s) - start ))
assert_eq "deaf: rc" 3 "$rc"
assert_eq "deaf: h2 was busy" busy "$(cat "$TMP/deaf.busy" 2>/dev/null || echo none)"
assert_eq "deaf: h2's reason" "no answer to apply within 1000 ms; still running 30000 ms after SIGTERM" \
	"$(q --arg n "$P-h2" '.nodes[] | select(.node == $n) | .error')"
[ "$took" -ge 30 ] && [ "$took" -lt 45 ] || fail "deaf: took $took s, expected the 30 s grace"
pretty "deaf: took $took s"
assert_eq "deaf: nothing of h2 left" 0 "$(pgrep -f "$TAG" | wc -l)"

# --timeout is for --hosts, and a number of seconds.
fab apply --timeout 5 "$TMP/p.yaml"
assert_eq "--timeout without --hosts: rc" 2 "$rc"
fab apply --hosts "$TMP/hosts" --timeout 0 "$TMP/p.yaml"
assert_eq "--timeout 0: rc" 2 "$rc"
echo "fleet-apply-stop: all checks passed" >&2
