#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# Terminal escapes from the nodes never reach the admin's terminal raw: a
# launcher's stderr is relayed line by line with the node's name, and every
# string in a worker's answers (interface names, error messages) has its
# control characters shown as \xNN.  The old controller passed the
# launcher's stderr through and printed node strings as they came: an ESC
# or BEL byte on our stdout/stderr.  Issue 9, item 7.
# Node: a network namespace whose veth is named ESC "[2J" (clear screen),
# a real worker launched by a script that first prints an OSC title
# sequence and a colour on stderr.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq od
need_fabricctl

P=es$$
tmpdir_with_cleanup
cleanup_hook() { ip netns del "$P-h1" 2>/dev/null || true; }
run ip netns add "$P-h1"
run ip -n "$P-h1" link add name $'e\e[2J' mtu 1500 type veth peer name p0
printf '%s 10.0.0.1\n' "$P-h1" >"$TMP/hosts"
cat >"$TMP/launch" <<SCRIPT
#!/bin/bash
host=\$1
shift
printf 'launcher says \033]0;owned\007 \033[31mred\n' >&2
exec env FABRICCTL_RUNDIR="$TMP/run-\$host" ip netns exec "\$host" "\$@"
SCRIPT
chmod +x "$TMP/launch"
LAUNCH="$TMP/launch {host}"

# raw_ctl FILE: the number of ESC, BEL and CSI (C1) bytes in FILE.
raw_ctl() { od -An -v -tx1 "$1" | tr ' ' '\n' | grep -c -E '^(1b|07|9b)$' || true; }

# 1. status --hosts, text: the interface's name is shown escaped.
fab status --hosts "$TMP/hosts" --launcher "$LAUNCH"
assert_eq "status: rc" 0 "$rc"
assert_eq "status: control bytes on stdout" 0 "$(raw_ctl "$TMP/out")"
assert_eq "status: control bytes on stderr" 0 "$(raw_ctl "$TMP/err")"
assert_eq "status: the name, escaped" 1 "$(grep -c -F 'e\x1b[2J' "$TMP/out" || true)"
assert_eq "status: the launcher's line, named and escaped" 1 \
	"$(grep -c -F "$P-h1: launcher says \\x1b]0;owned\\x07 \\x1b[31mred" "$TMP/err" || true)"

# 2. apply --hosts, text: PFC on a veth fails; the error names the interface.
printf 'interfaces:\n  - match: "e*"\n    mtu: 1600\n    pfc: {enable: [3]}\n' >"$TMP/pfc.yaml"
fab apply --hosts "$TMP/hosts" --launcher "$LAUNCH" "$TMP/pfc.yaml"
assert_eq "apply: rc" 3 "$rc"
assert_eq "apply: control bytes on stdout" 0 "$(raw_ctl "$TMP/out")"
assert_eq "apply: control bytes on stderr" 0 "$(raw_ctl "$TMP/err")"
assert_eq "apply: the error names the interface, escaped" true \
	"$(grep -q -F 'e\x1b[2J' "$TMP/out" && echo true || echo false)"
assert_eq "apply: the mtu step rolled back" 1500 \
	"$(ip netns exec "$P-h1" cat /sys/class/net/$'e\e[2J'/mtu)"

# 3. The JSON carries the same cleaned text (no ESC inside the strings).
fab -j status --hosts "$TMP/hosts" --launcher "$LAUNCH"
assert_eq "json: interface names" 'e\x1b[2J,lo,p0' \
	"$(jq -r '[.nodes[0].status.links[].name] | sort | join(",")' "$TMP/out")"
echo "fleet-escapes: all checks passed" >&2
