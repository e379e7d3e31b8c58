# shellcheck shell=bash
# Helpers of the fabricctl accept integration tests (sourced after
# common.sh; the script sets ARGS, the accept arguments every run shares).

# accept_summary FILE: a fabricctl.accept/1 document as lines on stderr
# (verdict, every stage with its note, every finding).
accept_summary() {
	jq -r '"  verdict \(.verdict), failed stage \(.failed_stage)", (.stages[] | "  \(.stage) \(.name): \(.status): \(.note)"),
		(.findings[] | "    \(.code) \(.node // "") \(.link // ""): \(.evidence)")' "$1" >&2 || true
}

# accept [ARGS...]: fabricctl -j accept "${ARGS[@]}" ARGS...: JSON in
# $TMP/out (summarised), stderr in $TMP/err (its last 5 lines logged),
# exit status in $rc (read by the script).
# shellcheck disable=SC2034
accept() {
	pretty "$FABRICCTL -j accept ${ARGS[*]} $*"
	rc=0
	"$FABRICCTL" -j accept "${ARGS[@]}" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	tail -n 5 "$TMP/err" >&2
	accept_summary "$TMP/out"
}

# q JQ-ARGS...: jq -r on the last run's document.
q() { jq -r "$@" "$TMP/out"; }
