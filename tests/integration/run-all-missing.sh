#!/bin/bash
# tests/run-all must fail on what is missing, never drop it silently: a unit
# source without its binary, an integration script that is not executable,
# an absent VM runner.  Runs a copy of tests/run-all in a scratch tree.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
tmpdir_with_cleanup

S=$TMP/tree
mkdir -p "$S/tests/unit" "$S/tests/integration" "$S/tests/vm" "$S/scripts" "$S/build/san/tests"
cp "$TOP/tests/run-all" "$S/tests/run-all"
for c in check-layers check-calls; do
	printf '#!/bin/sh\nexit 0\n' >"$S/scripts/$c"
	chmod +x "$S/scripts/$c"
done

# unit: one source, no binary
touch "$S/tests/unit/test_thing.c"
rc=0
LOGDIR=$TMP/log TIERS=unit "$S/tests/run-all" >"$TMP/out" 2>&1 || rc=$?
cat "$TMP/out"
assert_eq "unit tier without its binary: exit" 1 "$rc"
grep -q '^FAIL  build/san/tests/test_thing' "$TMP/out" || fail "the missing unit binary is not named"
tail -1 "$TMP/out" | grep -qx '2 passed, 1 failed, 0 skipped' || fail "closing line: $(tail -1 "$TMP/out")"

# ... and with the binary it passes
printf '#!/bin/sh\nexit 0\n' >"$S/build/san/tests/test_thing"
chmod +x "$S/build/san/tests/test_thing"
expect_rc 0 env LOGDIR="$TMP/log" TIERS=unit "$S/tests/run-all"

# integration: a script that is not executable
printf '#!/bin/sh\nexit 0\n' >"$S/tests/integration/x.sh"
rc=0
LOGDIR=$TMP/log TIERS=integration "$S/tests/run-all" >"$TMP/out" 2>&1 || rc=$?
cat "$TMP/out"
assert_eq "non-executable integration script: exit" 1 "$rc"
grep -q 'FAIL  tests/integration/x.sh' "$TMP/out" || fail "the script is not named"

# vm: no runner
rc=0
LOGDIR=$TMP/log TIERS=vm "$S/tests/run-all" >"$TMP/out" 2>&1 || rc=$?
cat "$TMP/out"
assert_eq "absent VM runner: exit" 1 "$rc"
grep -q 'FAIL  tests/vm/run-tests' "$TMP/out" || fail "the runner is not named"
echo "run-all-missing: ok"
