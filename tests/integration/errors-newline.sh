#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# Every error ends with a newline (issue 21): a shell prompt, a log line or
# the next message never glues onto it.  Runs refusals and failures of
# every command that can fail before touching a node (bad input, missing
# files, a plan with no path between its leaves, a launcher that starts no
# worker) and checks the last byte of stderr, that stderr's last line names
# fabricctl (or is the usage line after one that does), and that a JSON
# document on stdout, when there is one, ends with a newline too.  Then the
# same with stderr on a pty (script(1)), where progress lines are drawn:
# the error starts a line of its own.  No root, no namespace, no traffic.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd od
need_fabricctl
tmpdir_with_cleanup errors-newline

printf 'interfaces: [\n' >"$TMP/bad.yaml"
printf 'interfaces:\n  - match: "eth0"\n    mtu: 1500\n' >"$TMP/p.yaml"
printf '{"schema": "fabricctl.sweep/1", "pairs": [}\n' >"$TMP/bad.json"
printf 'h1 127.0.0.1\nh2 127.0.0.2\n' >"$TMP/hosts"
# A plan whose two leaves share no spine: no path between them.
cat >"$TMP/plan.yaml" <<'EOF'
version: 1
nodes:
  - { name: leaf0, type: switch }
  - { name: leaf1, type: switch }
links:
  - [ "h1:eth0", "leaf0:swp1" ]
  - [ "h2:eth0", "leaf1:swp1" ]
EOF

n=0
# check WANT_RC ARGS...: run fabricctl ARGS, exit status WANT_RC, stderr ends with "\n".
check() {
	local want=$1 last
	shift
	fab "$@"
	assert_eq "fabricctl $*: exit status" "$want" "$rc"
	[ -s "$TMP/err" ] || fail "fabricctl $*: nothing on stderr"
	last=$(tail -c 1 "$TMP/err" | od -An -c | tr -d ' ')
	[ "$last" = '\n' ] || fail "fabricctl $*: stderr does not end with a newline (last byte '$last'): $(tail -c 120 "$TMP/err")"
	grep -q '^fabricctl' "$TMP/err" || fail "fabricctl $*: no line of stderr names fabricctl"
	if [ -s "$TMP/out" ]; then
		last=$(tail -c 1 "$TMP/out" | od -An -c | tr -d ' ')
		[ "$last" = '\n' ] || fail "fabricctl $*: stdout does not end with a newline"
	fi
	n=$((n + 1))
}
check 2 nosuch
check 2 status --bogus
check 2 apply
check 2 apply "$TMP/nonexistent.yaml"
check 2 apply "$TMP/bad.yaml"
check 2 -j apply "$TMP/bad.yaml"
check 2 verify "$TMP/bad.yaml"
check 2 apply --dry-run --try 5 "$TMP/p.yaml"
check 2 discover --lldp --expect "$TMP/nonexistent"
check 2 discover --lldp --format ibnetdiscover
check 2 discover --load-cache "$TMP/nonexistent.cache"
check 2 -j discover --load-cache "$TMP/nonexistent.cache"
check 2 report "$TMP/bad.json" -o "$TMP/x.html"
check 2 report "$TMP/bad.json"
check 2 sweep --hosts "$TMP/nonexistent"
check 2 sweep --hosts "$TMP/hosts" --duration abc
check 2 diagnose --from "$TMP/nonexistent"
check 2 accept --hosts "$TMP/nonexistent"
check 2 confirm extra
check 2 help nosuch
# Failures after the input was read: no path in the plan; no worker started.
check 3 sweep --hosts "$TMP/hosts" --topology "$TMP/plan.yaml" --launcher 'false {host}'
check 3 -j sweep --hosts "$TMP/hosts" --topology "$TMP/plan.yaml" --launcher 'false {host}'
check 3 verify --hosts "$TMP/hosts" --launcher 'false {host}' "$TMP/p.yaml"
check 3 -j status --hosts "$TMP/hosts" --launcher 'false {host}'
echo "  ok: $n error paths end stderr with a newline" >&2

# On a pty: progress lines are drawn and the error still starts its own line and ends with one.
# on_tty ARGS...: fabricctl ARGS with stdin/stdout/stderr on a pty; all output in $TMP/tty.
on_tty() {
	local q last
	q=$(printf '%q ' "$FABRICCTL" "$@")
	pretty "script -qec '$q' /dev/null"
	rc=0
	script -qec "$q" /dev/null >"$TMP/tty" 2>&1 </dev/null || rc=$?
	cat -A "$TMP/tty" | tail -5 >&2
	assert_eq "on a pty, $1: exit status" 3 "$rc"
	last=$(tail -c 1 "$TMP/tty" | od -An -c | tr -d ' ')
	[ "$last" = '\n' ] || fail "on a pty, $*: the output does not end with a newline"
	# Every message begins a line: nothing drawn before it on the same line.
	if tr '\r' '\n' <"$TMP/tty" | grep -E '.fabricctl( [a-z]+)?: ' >&2; then
		fail "on a pty, $*: a message glued to another line"
	fi
	grep -q 'fabricctl' "$TMP/tty" || fail "on a pty, $*: no message"
	# A progress line names its command ("verify: 2 of 2 nodes ..."), never ": 2 of 2".
	if tr '\r' '\n' <"$TMP/tty" | grep -E '^: ' >&2; then fail "on a pty, $*: a progress line without its name"; fi
}
if command -v script >/dev/null 2>&1; then
	on_tty verify --hosts "$TMP/hosts" --launcher 'false {host}' "$TMP/p.yaml"
	on_tty sweep --hosts "$TMP/hosts" --topology "$TMP/plan.yaml" --launcher 'false {host}'
	on_tty status --hosts "$TMP/hosts" --launcher 'false {host}'
	echo "  ok: on a pty too" >&2
fi
echo "errors-newline: all checks passed" >&2
