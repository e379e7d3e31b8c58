# Signals sent to a running sweep, for the tests that check what a signal
# keeps (sourced after common.sh and the netns lab; the caller has built a
# 4-host lab $P, written $TMP/hosts and set cleanup_hook to kill
# $SWEEP_PID).

now_ms() { local s ns; read -r s ns < <(date '+%s %N'); echo $((s * 1000 + 10#$ns / 1000000)); }

# interrupt SIGNAL [LABEL:]ROUND OUTFLAGS...: start a sweep in the
# background, send SIGNAL once the progress line shows "LABEL: round ROUND"
# (LABEL sweep or retest), wait; $rc, $TMP/out, $TMP/err, $stop_ms (signal
# to exit).  $EXTRA: more sweep options; $PRE: a command to run it under
# (nohup).  --prom goes to $TMP/prom; $TMP/prom and $TMP/csv are removed
# first.
EXTRA=
PRE=
SWEEP_PID=
interrupt() {
	local sig=$1 round=${2#*:} label=sweep t0
	case $2 in *:*) label=${2%%:*} ;; esac
	shift 2
	# The last run's stderr goes first: the wait below must not read its
	# progress line while this run's redirection has not yet truncated
	# the file (the signal then came during the workers' start: no
	# report; a chance failure seen under load).
	rm -f "$TMP/prom" "$TMP/csv" "$TMP/out" "$TMP/err"
	pretty "$PRE $FABRICCTL $* sweep --hosts $TMP/hosts --launcher netns --duration 1 --lat-iters 1000 --progress --prom $TMP/prom $EXTRA  (then $sig in $label round $round)"
	# shellcheck disable=SC2086  # $PRE and $EXTRA are word lists
	$PRE "$FABRICCTL" "$@" sweep --hosts "$TMP/hosts" --launcher netns --transport tcp \
		--duration 1 --lat-iters 1000 --progress --prom "$TMP/prom" ${EXTRA:+$EXTRA} >"$TMP/out" 2>"$TMP/err" &
	SWEEP_PID=$!
	for _ in $(seq 600); do
		grep -qs "$label: round $round of" "$TMP/err" && break
		kill -0 "$SWEEP_PID" 2>/dev/null || break
		read -r -t 0.05 <> <(:) || true
	done
	grep -q "$label: round $round of" "$TMP/err" || { cat "$TMP/err" >&2; fail "$sig: the sweep never reached $label round $round"; }
	# The round's sessions are open: a worker listens in some namespace.
	t0=$(now_ms)
	kill "-$sig" "$SWEEP_PID"
	rc=0
	wait "$SWEEP_PID" || rc=$?
	stop_ms=$(( $(now_ms) - t0 ))
	SWEEP_PID=
	tr '\r' '\n' <"$TMP/err" >&2
	echo "$sig: exit $rc, $stop_ms ms after the signal" >&2
}

# Nothing of the sweep is left in the lab: no process, no listening socket.
assert_lab_clean() {
	local h ns procs=0 socks=0
	for h in h1 h2 h3 h4; do
		ns=$(lab_ns "$h")
		procs=$((procs + $(ip netns pids "$ns" | wc -l)))
		socks=$((socks + $(ip netns exec "$ns" ss -Hltn | wc -l)))
	done
	assert_eq "$1: processes left in the host namespaces" 0 "$procs"
	assert_eq "$1: listening sockets left in the host namespaces" 0 "$socks"
}
