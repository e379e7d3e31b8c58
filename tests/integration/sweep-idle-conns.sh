#!/bin/bash
# The TCP data-path listener under idle, unauthenticated connections, and
# data-path addresses that are not a node's own (issue 9, items 3 and 8).
#
# 1. A two-host tcp pair with a long bandwidth phase runs once alone, then
#    again while a third party (in the client's namespace) holds 10 idle
#    connections open to the server's listener, found with `ss -ltnp` in
#    the server's namespace while the pair runs.  The pair must still be
#    ok, with figures, and take no longer than alone (+2 s slack): a
#    listener that gives each idle connection its header time in turn
#    (2 s each) is 20 s late or misses its deadline.
# 2. A hosts file naming 0.0.0.0, ::, a multicast or the broadcast address
#    as a data-path address is refused with file:line:col (exit 2), before
#    any node is touched.
# 3. A worker asked to listen on a wildcard address refuses (ok:false)
#    instead of binding every address of the node.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq ss
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=ic$$
N_IDLE=10
tmpdir_with_cleanup
holder=
cleanup_hook() {
	[ -z "$holder" ] || kill "$holder" 2>/dev/null || true
	lab_down --name "$P"
}

run lab_up --name "$P" --hosts 2 --leaves 1 --spines 0 --no-lldp
lab_hostsfile >"$TMP/hosts"
NS1=$(lab_ns h1) NS2=$(lab_ns h2)
q() { jq -r "$@" "$TMP/out"; }
SWEEP=(-j sweep --hosts "$TMP/hosts" --launcher netns --transport tcp --duration 3
	--lat-iters 2000 --timeout 10 --no-retest --no-progress --slow-pct 1 --lat-factor 1000)

# 1a. Alone.
run "$FABRICCTL" "${SWEEP[@]}" >"$TMP/out" || true
q -c '.pairs[0] | {a, b, status, reason, test_s}' >&2
assert_eq "alone: pair ok" ok "$(q '.pairs[0].status')"
alone=$(q '.pairs[0].test_s')

# 1b. With idle connections held open to the listener while the pair runs.
pretty "$FABRICCTL ${SWEEP[*]} (with $N_IDLE idle connections to its listener)"
"$FABRICCTL" "${SWEEP[@]}" >"$TMP/out" 2>"$TMP/err" &
sweep=$!
listener= lns= cns=
for _ in $(seq 1 400); do
	for ns in "$NS1" "$NS2"; do
		# LISTEN 0 68 10.x.y.z:PORT 0.0.0.0:* users:(("fabricctl",pid=..,fd=..))
		listener=$(ip netns exec "$ns" ss -Hltnp 2>/dev/null |
			awk '/"fabricctl"/ { print $4; exit }')
		if [ -n "$listener" ]; then lns=$ns; break 2; fi
	done
	sleep 0.05
done
[ -n "$listener" ] || fail "no fabricctl listener seen in $NS1 or $NS2"
if [ "$lns" = "$NS1" ]; then cns=$NS2; else cns=$NS1; fi
laddr=${listener%:*} lport=${listener##*:}
pretty "listener $laddr port $lport in $lns; $N_IDLE idle connections from $cns"
# The holder opens the connections, says so, then sends nothing until killed.
ip netns exec "$cns" bash -c '
	for i in $(seq 1 '"$N_IDLE"'); do exec {fd}<>"/dev/tcp/'"$laddr"'/'"$lport"'" || exit 1; done
	echo opened >'"$TMP/opened"'
	exec sleep 120' &
holder=$!
for _ in $(seq 1 100); do [ -s "$TMP/opened" ] && break; sleep 0.05; done
assert_eq "idle connections opened while the pair ran" opened "$(cat "$TMP/opened" 2>/dev/null)"
rc=0
wait "$sweep" || rc=$?
kill "$holder" 2>/dev/null || true
wait "$holder" 2>/dev/null || true
holder=
cat "$TMP/err" >&2
q -c '.pairs[0] | {a, b, status, reason, test_s}' >&2
assert_eq "with idle connections: pair ok" ok "$(q '.pairs[0].status')"
assert_eq "with idle connections: figures both ways" true \
	"$(q '.pairs[0].bw_ab.avg_mbps > 0 and .pairs[0].bw_ba.avg_mbps > 0')"
with=$(q '.pairs[0].test_s')
pretty "test time alone ${alone} s, with $N_IDLE idle connections ${with} s"
assert_eq "with idle connections: not delayed (${with} s vs ${alone} s alone, +2 s slack)" true \
	"$(jq -n --argjson a "$alone" --argjson w "$with" '$w < $a + 2')"
assert_eq "sweep rc" 0 "$rc"

# 2. Wildcard, multicast, broadcast data-path addresses in the hosts file.
bad_hosts() { # ADDRESS EXPECTED-MESSAGE-PART
	printf 'h1 %s\n%s  %s\n' "$(lab_addr h1)" "$NS2" "$1" >"$TMP/bad-hosts"
	fab sweep --hosts "$TMP/bad-hosts" --launcher netns --transport tcp
	assert_eq "hosts $1: rc" 2 "$rc"
	assert_eq "hosts $1: file:line:col and why" 1 \
		"$(grep -c -F "$TMP/bad-hosts:2:$((${#NS2} + 3)): address '$1' is $2" "$TMP/err")"
}
bad_hosts 0.0.0.0 "a wildcard address"
bad_hosts :: "the wildcard address"
bad_hosts 224.0.0.5 "a multicast address"
bad_hosts ff02::1 "a multicast address"
bad_hosts 255.255.255.255 "the broadcast address"

# 3. A worker asked to listen on a wildcard address.
for addr in 0.0.0.0 ::; do
	pretty "worker in $NS1: listen on $addr"
	printf '%s\n' '{"v":1,"id":1,"op":"hello","version":1}' \
		'{"v":1,"id":2,"op":"listen","transport":"tcp","addr":"'"$addr"'","dev":"","dev_port":0,"token":"0123456789abcdef0123456789abcdef","plan":{"lat_iters":10,"msg_bytes":64,"duration_ms":100,"interval_ms":100,"streams":1,"bw_fwd":true,"bw_rev":true,"timeout_ms":2000}}' |
		timeout 10 ip netns exec "$NS1" "$FABRICCTL" worker >"$TMP/out" 2>"$TMP/err" || true
	cat "$TMP/out" "$TMP/err" >&2
	assert_eq "worker listen $addr: refused" "false" \
		"$(jq -r 'select(.id == 2 and has("ok")) | .ok' "$TMP/out")"
	assert_eq "worker listen $addr: no endpoint published" "" \
		"$(jq -r 'select(.id == 2 and .event == "ready") | .endpoint.port' "$TMP/out")"
	assert_eq "worker listen $addr: says why" 1 \
		"$(jq -r 'select(.id == 2) | .error // ""' "$TMP/out" | grep -c "will not listen on '$addr'")"
done
echo "sweep-idle-conns: all checks passed" >&2
