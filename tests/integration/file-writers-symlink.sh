#!/bin/bash
# Files an admin names are replaced, never written through a symlink
# (issue 9, items 4 and 11): `report -o`, `sweep --prom` and `discover
# --save-plan` all write a fresh temporary file beside FILE and rename it.
# Each command is started by `sh -c '...; exec fabricctl ...'`, so the
# shell knows fabricctl's pid in advance and plants a symlink at the
# temporary name it would use (FILE.tmp.PID) before fabricctl runs; FILE
# itself is a symlink to a second victim.  Afterwards both victims keep
# their bytes, FILE is a regular file with the output, the planted link is
# still a link, and no temporary file is left.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"
# shellcheck source=../lab/ibsim
. "$TOP/tests/lab/ibsim"

P=h9ffw$$
tmpdir_with_cleanup
cleanup_hook() { ibsim_stop; lab_down --name "$P"; }

# planted NAME FILE CMD...: run CMD (fabricctl ARGS, with FILE its output)
# with symlinks planted at FILE and FILE.tmp.PID; then check the victims.
planted() {
	local name=$1 f=$2
	shift 2
	printf 'victim one\n' >"$TMP/victim1"
	printf 'victim two\n' >"$TMP/victim2"
	rm -f "$f" "$f".tmp.*
	ln -s "$TMP/victim1" "$f"
	pretty "$name: $*"
	rc=0
	# shellcheck disable=SC2016
	"${WRAP[@]}" sh -c 'ln -s "$1" "$2.tmp.$$" && shift 2 && exec "$@"' sh \
		"$TMP/victim2" "$f" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/err" >&2
	assert_eq "$name: exit" 0 "$rc"
	assert_eq "$name: victim behind FILE" "victim one" "$(cat "$TMP/victim1")"
	assert_eq "$name: victim behind FILE.tmp.PID" "victim two" "$(cat "$TMP/victim2")"
	if [ ! -f "$f" ] || [ -L "$f" ]; then fail "$name: $f is not a regular file now"; fi
	[ -s "$f" ] || fail "$name: $f is empty"
	assert_eq "$name: planted link left alone" 1 "$(find "$(dirname "$f")" -maxdepth 1 -name "$(basename "$f").tmp.*" -type l | wc -l)"
	assert_eq "$name: no temporary file left" 0 "$(find "$(dirname "$f")" -maxdepth 1 -name "$(basename "$f").tmp.*" ! -type l | wc -l)"
}
WRAP=()

# 1. report -o (no lab needed).
planted "report -o" "$TMP/page.html" "$FABRICCTL" report "$TOP/tests/golden/discover.json" -o "$TMP/page.html"
grep -q '<html' "$TMP/page.html" || fail "report -o: no HTML written"

# 2. sweep --prom, two hosts in the netns lab.
run lab_up --name "$P" --hosts 2 --leaves 1 --spines 0 --no-lldp
lab_hostsfile >"$TMP/hosts"
planted "sweep --prom" "$TMP/sweep.prom" "$FABRICCTL" sweep --hosts "$TMP/hosts" --launcher netns \
	--duration 0.2 --lat-iters 100 --prom "$TMP/sweep.prom"
grep -q '^fabricctl_sweep_' "$TMP/sweep.prom" || fail "sweep --prom: no metrics written"

# 3. discover --save-plan, on a small simulated InfiniBand fabric.
if command -v ibsim >/dev/null && [ -r "$IBSIM_UMAD2SIM" ] &&
	[ -f /usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca ]; then
	ibsim_start /usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
	WRAP=(ibsim_run)
	planted "discover --save-plan" "$TMP/plan.topo" "$FABRICCTL" discover --ib --no-counters \
		--save-plan "$TMP/plan.topo"
	WRAP=()
	grep -q '^Switch' "$TMP/plan.topo" || fail "discover --save-plan: no topology written"
	ibsim_stop
else
	echo "SKIP: discover --save-plan part (ibsim-utils not installed)" >&2
fi
echo "file-writers-symlink: all checks passed"
