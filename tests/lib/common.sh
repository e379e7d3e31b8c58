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

need_fabricctl() { [ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make)"; }

# tmpdir_with_cleanup [NAME]: a private temporary directory in $TMP and the
# EXIT trap: it calls the script's cleanup_hook RC, if the script defines
# one (stop its processes, take down its lab; RC is the exit status so
# far), then removes $TMP and exits with RC.  With KEEP_TMP=DIR a failed
# test's $TMP is copied into DIR first (its sweeps' JSON and stderr).
tmpdir_with_cleanup() {
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/${1:-fabricctl-test}.$$.XXXXXX")
	trap _cleanup EXIT
}
_cleanup() {
	local rc=$?
	if declare -F cleanup_hook >/dev/null; then cleanup_hook "$rc" || true; fi
	if [ "$rc" != 0 ] && [ -n "${KEEP_TMP:-}" ]; then
		mkdir -p "$KEEP_TMP" && cp -a "$TMP" "$KEEP_TMP/" || true
	fi
	rm -rf "$TMP"
	exit "$rc"
}

# fab [ARGS...]: run fabricctl; stdout in $TMP/out, stderr in $TMP/err
# (both logged), exit status in $rc.  fab_ns NS ARGS...: the same inside
# network namespace NS.
rc=0
fab() {
	pretty "$FABRICCTL $*"
	rc=0
	"$FABRICCTL" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/out" "$TMP/err" >&2
}
fab_ns() {
	local ns=$1
	shift
	pretty "ip netns exec $ns $FABRICCTL $*"
	rc=0
	ip netns exec "$ns" "$FABRICCTL" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/out" "$TMP/err" >&2
}
