#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# First run on a fresh clone (issue 9, items 16 and 17), with the heavy
# parts replaced by stubs in a scratch copy of the scripts:
#   - the README's two commands carry no sudo (a minimal Debian 12 run as
#     root has none) and run as written with a PATH that has no sudo;
#   - .ci/run runs exactly those two commands, in the README's order, and
#     fails when either fails (and still runs the other);
#   - scripts/demo's VM part works without tests/vm/cache/ (git-ignored,
#     absent on a fresh clone): its script exists when the VM runs it and
#     is gone afterwards.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd awk
tmpdir_with_cleanup first-run

# The README's block of two commands, comments stripped.
cmds=$(awk '
	/^## The two commands/ { sect = 1; next }
	sect && /^## / { exit }
	sect && /^```sh/ { inblk = 1; next }
	inblk && /^```/ { exit }
	inblk { sub(/[ \t]*#.*$/, ""); if ($0 != "") print }
' "$TOP/README.md")
printf '%s\n' "$cmds" >&2
assert_eq "README: two commands" 2 "$(printf '%s\n' "$cmds" | grep -c .)"
assert_eq "README: no sudo in them" 0 "$(printf '%s\n' "$cmds" | grep -c -w sudo || true)"
assert_eq "README: the demo and the test command" "./scripts/demo ./scripts/check" \
	"$(printf '%s\n' "$cmds" | awk '{ print $1 }' | paste -sd' ')"

# A scratch tree: the real README and .ci/run, stub demo and check that
# log their call and exit with $DEMO_RC / $CHECK_RC.  PATH has no sudo.
T=$TMP/tree
mkdir -p "$T/.ci" "$T/scripts" "$TMP/bin"
cp "$TOP/README.md" "$T/"
cp "$TOP/.ci/run" "$T/.ci/run"
for s in demo check; do
	printf '#!/bin/sh\necho %s >>"%s/calls"\nexit "${%s_RC:-0}"\n' \
		"$s" "$TMP" "$(echo "$s" | tr a-z A-Z)" >"$T/scripts/$s"
	chmod +x "$T/scripts/$s"
done
for c in sh awk grep date cat dirname; do ln -s "$(command -v "$c")" "$TMP/bin/$c"; done
ci() { # DEMO_RC CHECK_RC: run the scratch .ci/run; rc in $rc, calls in $calls
	rc=0
	: >"$TMP/calls"
	DEMO_RC=$1 CHECK_RC=$2 PATH=$TMP/bin "$T/.ci/run" >&2 || rc=$?
	calls=$(paste -sd' ' "$TMP/calls")
}
ci 0 0
assert_eq ".ci/run: runs both" "demo check" "$calls"
assert_eq ".ci/run: rc when both pass" 0 "$rc"
ci 1 0
assert_eq ".ci/run, demo fails: both still ran" "demo check" "$calls"
assert_eq ".ci/run, demo fails: fails" true "$([ "$rc" != 0 ] && echo true || echo false)"
ci 0 3
assert_eq ".ci/run, check fails: fails" true "$([ "$rc" != 0 ] && echo true || echo false)"

# scripts/demo, VM part only, in a tree without tests/vm/cache/: stub
# install-deps and make, and a tests/vm/run that checks the script is there.
D=$TMP/demo
mkdir -p "$D/scripts" "$D/tests/vm" "$D/tests/lib" "$TMP/dbin"
cp "$TOP/scripts/demo" "$D/scripts/demo"
printf '#!/bin/sh\nexit 0\n' >"$D/scripts/install-deps"
cat >"$D/tests/vm/run" <<'STUB'
#!/bin/sh
# stub: tests/vm/run --timeout N -- bash SCRIPT
for a; do last=$a; done
[ -s "$last" ] || { echo "stub vm/run: $last missing" >&2; exit 1; }
echo "ran $last" >>"$(dirname "$0")/../../vm-calls"
STUB
chmod +x "$D/scripts/demo" "$D/scripts/install-deps" "$D/tests/vm/run"
printf '#!/bin/sh\nexit 0\n' >"$TMP/dbin/make"
chmod +x "$TMP/dbin/make"
rc=0
(cd "$D" && DEMO_PARTS=vm PATH=$TMP/dbin:$PATH ./scripts/demo) >&2 || rc=$?
assert_eq "demo VM part on a fresh tree: rc" 0 "$rc"
assert_eq "demo VM part: the VM ran its script" "ran tests/vm/cache/demo-vm.sh" "$(cat "$D/vm-calls" 2>/dev/null)"
assert_eq "demo VM part: script removed afterwards" false \
	"$([ -e "$D/tests/vm/cache/demo-vm.sh" ] && echo true || echo false)"
echo "first-run: all checks passed" >&2
