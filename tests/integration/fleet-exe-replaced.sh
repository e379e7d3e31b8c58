#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# The worker command is this binary's path even after an upgrade replaced
# the file under a running controller: /proc/self/exe then reads
# "PATH (deleted)", and the old controller launched exactly that, so every
# node failed ("exited with status 127").  Issue 9, item 9.
# A copy of fabricctl in $TMP/bin is started with a hosts file that is a
# FIFO (it waits there, before any worker is launched); the copy is
# replaced by rename, as package managers do; then the hosts arrive.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd jq mkfifo readlink
need_fabricctl
tmpdir_with_cleanup
cleanup_hook() { [ -n "${ctl:-}" ] && kill "$ctl" 2>/dev/null || true; }

mkdir "$TMP/bin"
run cp "$FABRICCTL" "$TMP/bin/fabricctl"
run mkfifo "$TMP/hosts"
pretty "$TMP/bin/fabricctl -j status --hosts $TMP/hosts --launcher 'env NODE={host}' &"
"$TMP/bin/fabricctl" -j status --hosts "$TMP/hosts" --launcher "env NODE={host}" \
	>"$TMP/out" 2>"$TMP/err" &
ctl=$!
# Ready once the copy runs (exec done); it then blocks on the FIFO.
for _ in $(seq 100); do
	[ "$(readlink "/proc/$ctl/exe" 2>/dev/null)" = "$TMP/bin/fabricctl" ] && break
	sleep 0.02
done
assert_eq "the controller runs the copy" "$TMP/bin/fabricctl" "$(readlink "/proc/$ctl/exe")"
run cp "$FABRICCTL" "$TMP/bin/fabricctl.new"
run mv -f "$TMP/bin/fabricctl.new" "$TMP/bin/fabricctl"
assert_eq "its binary was replaced" "$TMP/bin/fabricctl (deleted)" "$(readlink "/proc/$ctl/exe")"
printf 'n1 127.0.0.1\n' >"$TMP/hosts"
rc=0
wait "$ctl" || rc=$?
ctl=
cat "$TMP/out" "$TMP/err" >&2
assert_eq "status: rc" 0 "$rc"
assert_eq "status: the node answered" "true null" "$(jq -r '.nodes[0] | "\(.ok) \(.error)"' "$TMP/out")"
echo "fleet-exe-replaced: all checks passed" >&2
