# Shared helpers for fabricctl's shell tests (sourced, not executed).
# Style of the kernel's wireguard netns.sh: set -e, trap cleanup, names
# with $$, every command logged (pretty), exit 77 only when a component is
# truly absent (say which with skip "...").

TOP=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/../.." && pwd)
FABRICCTL=${FABRICCTL:-$TOP/fabricctl}

pretty() { printf '\033[32m+ %s\033[0m\n' "$*" >&2 || true; }
# Run and log a command.
run() { pretty "$*"; "$@"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
skip() { printf 'SKIP: %s\n' "$*" >&2; exit 77; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
need_cmd() { for c in "$@"; do command -v "$c" >/dev/null 2>&1 || skip "$c not installed"; done; }

# assert_eq WHAT EXPECTED ACTUAL
assert_eq() {
	if [ "$2" != "$3" ]; then
		fail "$1: expected '$2', got '$3'"
	fi
	printf '  ok: %s = %s\n' "$1" "$3" >&2
}

# expect_rc EXPECTED CMD...: run CMD, check its exit status.
expect_rc() {
	local want=$1 rc=0
	shift
	pretty "$* (expect rc $want)"
	"$@" || rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want"
}
