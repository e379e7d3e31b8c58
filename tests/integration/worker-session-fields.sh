#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# The worker's session fields are checked, not wrapped: a listen with
# "dev_port" -5 (once taken as port 4294967291), 256 or a string is refused
# with ok:false naming the field, and no listener is opened; a valid
# dev_port (absent, 0, 1) is accepted.  Issue 9, item 11.  The listener of
# the valid ones binds 127.0.0.1 and is never connected to.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd jq
need_fabricctl
tmpdir_with_cleanup

listen() { # DEV_PORT-JSON-FIELD (e.g. ',"dev_port":-5' or '')
	printf '%s\n' '{"v":1,"id":1,"op":"hello","version":1}' \
		'{"v":1,"id":2,"op":"listen","transport":"tcp","addr":"127.0.0.1","dev":""'"$1"',"token":"0123456789abcdef0123456789abcdef","plan":{"lat_iters":10,"msg_bytes":64,"duration_ms":100,"interval_ms":100,"streams":1,"bw_fwd":true,"bw_rev":true,"timeout_ms":2000}}' |
		timeout 10 "$FABRICCTL" worker >"$TMP/out" 2>"$TMP/err" || true
	cat "$TMP/out" "$TMP/err" >&2
}
first_answer() { jq -r 'select(.id == 2) | if has("ok") then "ok:\(.ok) \(.error // "")" else "event:\(.event)" end' "$TMP/out" | head -1; }

for bad in -5 256 4294967296 '"1"' 1.5; do
	pretty "listen with dev_port $bad"
	listen ",\"dev_port\":$bad"
	assert_eq "dev_port $bad refused" 'ok:false protocol: "dev_port" must be an integer 0..255' "$(first_answer)"
done
for good in '' ',"dev_port":0' ',"dev_port":1'; do
	pretty "listen with '${good:-no dev_port}'"
	listen "$good"
	assert_eq "'${good:-no dev_port}' accepted" "event:ready" "$(first_answer)"
done
echo "worker-session-fields: all checks passed" >&2
