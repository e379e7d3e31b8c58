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
# integration scripts that judge no time run beside the vm tier: each
# counted once, a failure there still fails the run, and BESIDE_VM=0 runs
# them in the integration turn.
chmod +x "$S/tests/integration/x.sh"
printf '#!/bin/sh\n# run-all: beside-vm (test)\nexit 0\n' >"$S/tests/integration/y.sh"
printf '#!/bin/sh\n# run-all: beside-vm (test)\nexit 1\n' >"$S/tests/integration/z.sh"
chmod +x "$S/tests/integration/y.sh" "$S/tests/integration/z.sh"
mkdir -p "$S/tests/vm/one-vm"
printf '#!/bin/sh\nexit 0\n' >"$S/tests/vm/one-vm/v.sh"
cat >"$S/tests/vm/run-tests" <<'RUNNER'
#!/bin/sh
# stand-in VM runner: one result line per script
[ "$1" = --results ] && res=$2 && shift 2
for t in "$@"; do echo "$t 0 0" >>"$res"; done
RUNNER
chmod +x "$S/tests/vm/run-tests" "$S/tests/vm/one-vm/v.sh"
# a test with a VM of its own runs in the job beside, after the scripts
mkdir -p "$S/tests/vm/own-vm"
printf '#!/bin/sh\nexit 0\n' >"$S/tests/vm/own-vm/w.sh"
chmod +x "$S/tests/vm/own-vm/w.sh"
# ... and after it the second shared boot (tests/vm/one-vm-b/)
mkdir -p "$S/tests/vm/one-vm-b"
printf '#!/bin/sh\nexit 0\n' >"$S/tests/vm/one-vm-b/u.sh"
chmod +x "$S/tests/vm/one-vm-b/u.sh"
rc=0
LOGDIR=$TMP/log TIERS="unit integration vm" "$S/tests/run-all" >"$TMP/out" 2>&1 || rc=$?
cat "$TMP/out"
assert_eq "beside the vm tier, one failing: exit" 1 "$rc"
grep -q '2 scripts that judge no time go beside the vm tier' "$TMP/out" || fail "the scripts moved are not said"
grep -qx '== tier unit: beside the vm tier' "$TMP/out" || fail "the unit tier moved is not said"
assert_eq "y.sh counted once" 1 "$(grep -c 'PASS  tests/integration/y.sh' "$TMP/out")"
assert_eq "z.sh failed once" 1 "$(grep -c 'FAIL  tests/integration/z.sh' "$TMP/out")"
# the one-VM boot's lane records its boot, the own-VM test and the second
# boot; the unit tier, then y.sh and z.sh, run beside, are recorded after them
assert_eq "order: vm, the own-VM test, the second boot, then the unit tier and the scripts beside" \
	"tests/vm/one-vm/v.sh tests/vm/own-vm/w.sh tests/vm/one-vm-b/u.sh scripts/check-layers scripts/check-calls build/san/tests/test_thing tests/integration/y.sh tests/integration/z.sh" \
	"$(awk '/^(PASS|FAIL)/ && $2 != "tests/integration/x.sh" { printf "%s%s", s, $2; s = " " }' "$TMP/out")"
assert_eq "w.sh counted once" 1 "$(grep -c 'PASS  tests/vm/own-vm/w.sh' "$TMP/out")"
assert_eq "u.sh counted once" 1 "$(grep -c 'PASS  tests/vm/one-vm-b/u.sh' "$TMP/out")"
assert_eq "test_thing counted once" 1 "$(grep -c 'PASS  build/san/tests/test_thing' "$TMP/out")"
tail -1 "$TMP/out" | grep -qx '8 passed, 1 failed, 0 skipped' || fail "closing line: $(tail -1 "$TMP/out")"
# UNIT_WITH_VM=0: the unit tier in its own turn, first
rc=0
LOGDIR=$TMP/log UNIT_WITH_VM=0 TIERS="unit integration vm" "$S/tests/run-all" >"$TMP/out" 2>&1 || rc=$?
assert_eq "UNIT_WITH_VM=0: exit" 1 "$rc"
assert_eq "UNIT_WITH_VM=0: the unit tier first" "scripts/check-layers scripts/check-calls build/san/tests/test_thing tests/integration/x.sh" \
	"$(awk '/^(PASS|FAIL)/ { printf "%s%s", s, $2; s = " " }' "$TMP/out" | cut -d' ' -f1-4)"
# a failing unit binary beside the vm tier still fails the run
printf '#!/bin/sh\nexit 1\n' >"$S/build/san/tests/test_thing"
rc=0
LOGDIR=$TMP/log BESIDE_VM=0 TIERS="unit vm" "$S/tests/run-all" >"$TMP/out" 2>&1 || rc=$?
assert_eq "a unit failure beside the vm tier: exit" 1 "$rc"
grep -q '^FAIL  build/san/tests/test_thing' "$TMP/out" || fail "the failing unit binary beside the vm tier is not named"
printf '#!/bin/sh\nexit 0\n' >"$S/build/san/tests/test_thing"
rc=0
LOGDIR=$TMP/log BESIDE_VM=0 TIERS="integration vm" "$S/tests/run-all" >"$TMP/out" 2>&1 || rc=$?
assert_eq "BESIDE_VM=0: exit" 1 "$rc"
assert_eq "BESIDE_VM=0: in the integration turn" "tests/integration/x.sh tests/integration/y.sh tests/integration/z.sh tests/vm/one-vm/v.sh tests/vm/own-vm/w.sh tests/vm/one-vm-b/u.sh" \
	"$(awk '/^(PASS|FAIL)/ { printf "%s%s", s, $2; s = " " }' "$TMP/out")"
echo "run-all-missing: ok"
