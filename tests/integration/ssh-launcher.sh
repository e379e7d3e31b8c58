#!/bin/bash
# The built-in ssh launcher against a real sshd on loopback: key-based, in
# this test's own temp dir (own host key, own authorized_keys, sshd -f own
# config on a port chosen at run time), a temp known_hosts with strict host
# key checking, through `--ssh-config`.  Three "nodes" are aliases of
# 127.0.0.1 (ssh's HostName), each with its own loopback address for the
# data path (127.0.0.1-3: a hosts file gives every node its own).  Checks:
# sweep and status --hosts over ssh; a node whose host key does not match
# fails with ssh's reason while the others still run.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq ssh ssh-keygen
SSHD=$(command -v sshd || echo /usr/sbin/sshd)
[ -x "$SSHD" ] || skip "sshd not installed (openssh-server)"
need_fabricctl

tmpdir_with_cleanup
SSHD_PID=
cleanup_hook() {
	[ -z "$SSHD_PID" ] || kill "$SSHD_PID" 2>/dev/null || true
	[ -z "$SSHD_PID" ] || wait "$SSHD_PID" 2>/dev/null || true
}

run ssh-keygen -q -t ed25519 -N '' -f "$TMP/host_key"
run ssh-keygen -q -t ed25519 -N '' -f "$TMP/id"
run ssh-keygen -q -t ed25519 -N '' -f "$TMP/other_host_key"
cp "$TMP/id.pub" "$TMP/authorized_keys"
mkdir -p /run/sshd	# privilege separation directory sshd insists on

# Start sshd on a free port: try random ephemeral ports until one binds;
# readiness is sshd's own "Server listening" line, not a sleep.
start_sshd() {
	local port tries=0
	while [ $tries -lt 20 ]; do
		tries=$((tries + 1))
		port=$((32768 + RANDOM % 28000))
		cat >"$TMP/sshd_config" <<-CONF
		ListenAddress 127.0.0.1:$port
		HostKey $TMP/host_key
		AuthorizedKeysFile $TMP/authorized_keys
		PidFile $TMP/sshd.pid
		StrictModes no
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		PermitRootLogin prohibit-password
		UsePAM no
		LogLevel INFO
		CONF
		: >"$TMP/sshd.log"
		pretty "$SSHD -D -e -f $TMP/sshd_config"
		"$SSHD" -D -e -f "$TMP/sshd_config" 2>"$TMP/sshd.log" &
		SSHD_PID=$!
		for _ in $(seq 200); do
			if grep -q "Server listening on 127.0.0.1 port $port" "$TMP/sshd.log"; then
				PORT=$port
				return 0
			fi
			kill -0 "$SSHD_PID" 2>/dev/null || break
			read -r -t 0.05 <> <(:) || true
		done
		cat "$TMP/sshd.log" >&2
		kill "$SSHD_PID" 2>/dev/null || true
		wait "$SSHD_PID" 2>/dev/null || true
		SSHD_PID=
	done
	fail "sshd did not start"
}
start_sshd
echo "sshd on 127.0.0.1 port $PORT" >&2

printf '[127.0.0.1]:%s %s\n' "$PORT" "$(cut -d' ' -f1,2 "$TMP/host_key.pub")" >"$TMP/known_hosts"
printf '[127.0.0.1]:%s %s\n' "$PORT" "$(cut -d' ' -f1,2 "$TMP/other_host_key.pub")" >"$TMP/bad_known_hosts"
# ssh takes the first value it finds: badnode's known_hosts comes before the shared block.
cat >"$TMP/ssh_config" <<CONF
Host badnode
	UserKnownHostsFile $TMP/bad_known_hosts
Host node1 node2 node3 badnode
	HostName 127.0.0.1
	Port $PORT
	User root
	IdentityFile $TMP/id
	IdentitiesOnly yes
	UserKnownHostsFile $TMP/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
CONF
run ssh -F "$TMP/ssh_config" -T -o BatchMode=yes node1 true

printf 'node1 127.0.0.1\nnode2 127.0.0.2\nnode3 127.0.0.3\n' >"$TMP/hosts"
q() { jq -r "$@" "$TMP/out"; }

rc=0
run "$FABRICCTL" -j sweep --hosts "$TMP/hosts" --launcher ssh --ssh-config "$TMP/ssh_config" \
	--duration 0.3 --lat-iters 300 >"$TMP/out" || rc=$?
jq -c '.summary, (.pairs[] | [.a, .b, .status, .reason, .bw_ab.avg_mbps, .lat_ns.p50])' "$TMP/out" >&2
assert_eq "ssh sweep: rc" 0 "$rc"
assert_eq "ssh sweep: launcher" ssh "$(q .launcher)"
assert_eq "ssh sweep: pairs ok" 3 "$(q '[.pairs[] | select(.status == "ok" and .bw_ab.avg_mbps > 0 and .bw_ba.avg_mbps > 0 and .lat_ns.samples == 300)] | length')"
assert_eq "ssh sweep: logins in sshd's log" true "$([ "$(grep -c 'Accepted publickey for root' "$TMP/sshd.log")" -ge 3 ] && echo true || echo false)"

rc=0
run "$FABRICCTL" -j status --hosts "$TMP/hosts" --launcher ssh --ssh-config "$TMP/ssh_config" >"$TMP/out" || rc=$?
assert_eq "ssh status: rc" 0 "$rc"
assert_eq "ssh status: nodes ok" "3" "$(q '.summary.ok')"
assert_eq "ssh status: lo on every node" 3 "$(q '[.nodes[].status.links[] | select(.name == "lo")] | length')"

# A node whose host key does not match: strict checking refuses it.
printf 'node1 127.0.0.1\nnode2 127.0.0.2\nbadnode 127.0.0.3\n' >"$TMP/hosts"
rc=0
run "$FABRICCTL" -j sweep --hosts "$TMP/hosts" --launcher ssh --ssh-config "$TMP/ssh_config" \
	--duration 0.2 --lat-iters 100 >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/err" >&2
jq -c '.pairs[] | [.a, .b, .status, .reason]' "$TMP/out" >&2
assert_eq "bad host key: rc" 1 "$rc"
assert_eq "bad host key: node1-node2 ok" ok "$(q '.pairs[] | select(.a == "node1" and .b == "node2") | .status')"
# The reason names the launcher, ssh's exit status and ssh's own last words.
assert_eq "bad host key: badnode's pairs failed with the launcher, its status and ssh's message" true \
	"$(q '[.pairs[] | select(.a == "badnode" or .b == "badnode") | .status == "failed" and (.reason | contains("worker badnode did not start: launcher ssh: exited with status 255: Host key verification failed."))] | all')"
# ssh's stderr is relayed under the node's name, not left unattributed.
grep -qx "badnode: Host key verification failed." "$TMP/err" || fail "bad host key: ssh's stderr not attributed to badnode"
grep -qx "Host key verification failed." "$TMP/err" && fail "bad host key: ssh's stderr unattributed"

rc=0
run "$FABRICCTL" -j status --hosts "$TMP/hosts" --launcher ssh --ssh-config "$TMP/ssh_config" >"$TMP/out" 2>"$TMP/err" || rc=$?
assert_eq "bad host key, status --hosts: badnode's error" \
	"launcher ssh: exited with status 255: Host key verification failed." \
	"$(q '.nodes[] | select(.node == "badnode") | .error')"
echo "ssh-launcher: all checks passed" >&2
