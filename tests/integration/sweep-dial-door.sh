#!/bin/bash
# The dial-back door (issue 22, items 1-3; docs/scale.md "Launch").
#
# In a network namespace of its own (loopback only), hosts dbh1..dbh8 on
# 127.1.0.2..9, each address also put on lo as a /32 so that a worker
# that dials its own address dials FROM it (the source address is what
# binds a join to its host).  The controller listens on 0.0.0.0 (an
# ephemeral port); the worker command is w.sh, which runs
# `fabricctl worker --connect OWN-ADDRESS:PORT` (FROM=dbhK: K's address).
#
# 1. Flood: before the real workers start, flood.py (on 127.0.0.2..21,
#    never more than 300 connections open, at most 30000 connects in all,
#    at most 30 s) opens 300 connections that never send a word and
#    reopens each one the listener closes at once, until the listener is
#    gone or its bounds are reached.
#    Every real worker joins and every pair is measured (28 of 28, none
#    failed, exit 0); the flood was seen (connections refused as idle).
# 2. Impostor: a worker with the launch token that claims dbh2 from
#    dbh1's address is refused ("may not join from 127.1.0.2"), counted
#    as wrong_source (JSON and text), and exits non-zero; the real dbh2
#    joins (no duplicate), every pair measured.  With dial=127.0.0.8,
#    127.0.0.9 on its line, dbh4 joins from 127.0.0.9 (worker --source);
#    a dial= label that is not an address: exit 2, no launcher started.
# 4. (Run before 3.)  The worker's retry against a stand-in controller:
#    turned away twice ("retry": true), it joins on its third try and
#    says so at -v; refused for good (wrong token), it stops after one.
# 3. A signal in the middle of the join (the launcher started one of
#    eight workers and waits): sweep SIGTERM -> 143, sweep SIGHUP -> 129,
#    `status --hosts` (no flag of its own: the join catches the signal,
#    cleans up, raises it again) SIGTERM -> 143.  Each time: the token
#    file's directory ({token_file}, 0600) is gone, and the launcher and
#    everything in its process group are gone.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq python3 pgrep
need_fabricctl
export FABRICCTL

N=8
NS=dd$$
tmpdir_with_cleanup
CTL=
cleanup_hook() {
	[ -z "$CTL" ] || kill -KILL "$CTL" 2>/dev/null || true
	[ ! -s "$TMP/launcher.pid" ] || kill -KILL -- "-$(cat "$TMP/launcher.pid")" 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
}
run ip netns add "$NS"
run ip -n "$NS" link set lo up
for i in $(seq 1 "$N"); do
	echo "dbh$i 127.1.0.$((i + 1))"
	ip -n "$NS" addr add "127.1.0.$((i + 1))/32" dev lo
done >"$TMP/hosts"
head -4 "$TMP/hosts" >"$TMP/hosts4"

# w.sh --connect PORT [ARGS...]: the worker, dialling from its own address.
cat >"$TMP/w.sh" <<'EOF'
#!/bin/bash
port=$2
shift 2
name=${FROM:-$FABRICCTL_NODE}
if [ -n "${SOURCE:-}" ]; then	# dial from another address of the node's
	exec "$FABRICCTL" worker --connect "127.0.0.1:$port" --source "$SOURCE" "$@"
fi
exec "$FABRICCTL" worker --connect "127.1.0.$((${name#dbh} + 1)):$port" "$@"
EOF
# launch.sh N PORT TOKEN-FILE WORKER-COMMAND...: the collective launcher; $MODE
# flood, impostor or hang adds its part before (or instead of) the real workers.
cat >"$TMP/launch.sh" <<'EOF'
#!/bin/bash
n=$1 port=$2
dir=$(dirname "$0")
echo "$3" >"$dir/tokpath"
shift 3
echo "$$" >"$dir/launcher.pid"
case ${MODE:-} in
flood)
	python3 "$dir/flood.py" "$port" "$dir/flood.ready" 2>"$dir/flood.err" &
	for _ in $(seq 600); do [ -e "$dir/flood.ready" ] && break; read -r -t 0.05 <> <(:) || true; done
	;;
impostor)
	(FROM=dbh1 FABRICCTL_NODE=dbh2 "$@" 2>"$dir/impostor.err"; echo $? >"$dir/impostor.rc") &
	for _ in $(seq 200); do [ -e "$dir/impostor.rc" ] && break; read -r -t 0.05 <> <(:) || true; done
	;;
label)	# dbh4 dials from 127.0.0.9, its dial= address
	for i in 1 2 3; do FABRICCTL_NODE=dbh$i "$@" & done
	FABRICCTL_NODE=dbh4 SOURCE=127.0.0.9 "$@" &
	wait
	exit 0
	;;
hang)	# one worker joins; the others never come
	FABRICCTL_NODE=dbh1 "$@" &
	sleep 120 &
	echo started >"$dir/ready"
	wait
	exit 0
	;;
esac
for i in $(seq 1 "$n"); do
	FABRICCTL_NODE=dbh$i "$@" &
done
wait
EOF
# flood.py PORT READY-FILE: idle connections to the listener (bounded).
cat >"$TMP/flood.py" <<'EOF'
import errno, selectors, socket, sys, time
port, ready = int(sys.argv[1]), sys.argv[2]
# Bounded: this many open at once, from this many addresses, connects in all, seconds.
OPEN, SOURCES, CONNECTS_MAX, SECONDS_MAX = 300, 20, 30000, 30
sel = selectors.DefaultSelector()
connects = closed = 0
t0 = time.monotonic()
def opener(k):
    global connects
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.%d" % (2 + k % SOURCES), 0))
    s.setblocking(False)
    connects += 1
    rc = s.connect_ex(("127.0.0.1", port))
    if rc not in (0, errno.EINPROGRESS):
        s.close()
        return False
    sel.register(s, selectors.EVENT_READ, k)
    return True
gone = False
for k in range(OPEN):
    if not opener(k):
        gone = True
        break
open(ready, "w").write("%d\n" % connects)
while not gone and connects < CONNECTS_MAX and time.monotonic() - t0 < SECONDS_MAX:
    for key, _ in sel.select(timeout=0.5):
        s = key.fileobj
        sel.unregister(s)
        refused = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == errno.ECONNREFUSED
        s.close()
        closed += 1
        if refused or not opener(key.data):
            gone = True
            break
for key in list(sel.get_map().values()):
    key.fileobj.close()
print("flood: %d connects, %d closed by the listener, %.1f s, %s" %
      (connects, closed, time.monotonic() - t0,
       "until the listener was gone" if gone else "stopped at its bound"), file=sys.stderr)
EOF
chmod +x "$TMP/w.sh" "$TMP/launch.sh"

LAUNCH=(--launcher "collective:$TMP/launch.sh {n} {port} {token_file}" --listen 0.0.0.0
	--worker-cmd "$TMP/w.sh --connect {port}")
SWEEP=(-j sweep "${LAUNCH[@]}" --transport tcp --duration 0 --lat-iters 20 --timeout 20
	--no-retest --no-progress --lat-factor 1000)
q() { jq -r "$@" "$TMP/out"; }
sweep() { # MODE HOSTS
	rm -f "$TMP/launcher.pid"
	pretty "MODE=$1 ip netns exec $NS $FABRICCTL ${SWEEP[*]} --hosts $2"
	rc=0
	MODE=$1 ip netns exec "$NS" "$FABRICCTL" "${SWEEP[@]}" --hosts "$2" >"$TMP/out" 2>"$TMP/err" || rc=$?
	grep -v '^launcher: ' "$TMP/err" >&2 || true
	jq -c '{launch, summary}' "$TMP/out" >&2 || fail "$1: no JSON: $(head -c 300 "$TMP/out")"
}
# The launcher is gone, nothing is left in its process group, the token's directory is removed.
assert_cleaned() {
	local pid tokdir left=
	pid=$(cat "$TMP/launcher.pid")
	tokdir=$(dirname "$(cat "$TMP/tokpath")")
	case $tokdir in */fabricctl-dial.*) ;; *) fail "$1: token file not in its own directory: $tokdir" ;; esac
	# An orphan is reaped by init, not at once: a bounded look.
	for _ in $(seq 40); do
		left=$(pgrep -g "$pid" || true)
		[ -z "$left" ] && ! kill -0 "$pid" 2>/dev/null && break
		read -r -t 0.05 <> <(:) || true
	done
	assert_eq "$1: launcher $pid and its group gone" "" "$(pgrep -g "$pid" | tr '\n' ' ')$(kill -0 "$pid" 2>/dev/null && echo "$pid running")"
	assert_eq "$1: token directory removed" absent "$([ -e "$tokdir" ] && echo "present: $(ls -l "$tokdir")" || echo absent)"
}

# PARTS: which of flood, impostor, retry, join to run (all by default).
PARTS=" ${PARTS:-flood impostor retry join} "
# --- 1. The flood -------------------------------------------------------------------
if [[ $PARTS == *" flood "* ]]; then
sweep flood "$TMP/hosts"
cat "$TMP/flood.err" >&2 || true
assert_eq "flood: joined" "$N" "$(q .launch.joined)"
assert_eq "flood: pairs" "$((N * (N - 1) / 2))" "$(q .summary.pairs)"
assert_eq "flood: failed pairs" 0 "$(q .summary.failed)"
assert_eq "flood: every pair measured" true "$(q '[.pairs[] | .lat_ns.samples == 20] | all')"
assert_eq "flood: seen by the listener (300 or more connections refused as idle)" true "$(q '.launch.refused.idle >= 300')"
assert_eq "flood: exit status" 0 "$rc"
assert_cleaned flood
fi

# --- 2. The impostor ----------------------------------------------------------------
if [[ $PARTS == *" impostor "* ]]; then
sweep impostor "$TMP/hosts4"
cat "$TMP/impostor.err" >&2 || true
assert_eq "impostor: refused as wrong source" 1 "$(q .launch.refused.wrong_source)"
assert_eq "impostor: the real dbh2 not taken for a duplicate" 0 "$(q .launch.refused.duplicate)"
assert_eq "impostor: joined" 4 "$(q .launch.joined)"
assert_eq "impostor: failed pairs" 0 "$(q .summary.failed)"
assert_eq "impostor: pairs" 6 "$(q .summary.pairs)"
grep -q "refused: host 'dbh2' may not join from 127.1.0.2 (hosts file: 127.1.0.3)" "$TMP/impostor.err" ||
	fail "impostor: not told why: $(cat "$TMP/impostor.err")"
assert_eq "impostor: worker exit status" 3 "$(cat "$TMP/impostor.rc")"
grep -q "refused 1 connection: 0 wrong token, 0 unknown host, 1 wrong source, 0 duplicate" "$TMP/err" ||
	fail "impostor: no refusal summary on stderr"
assert_eq "impostor: exit status" 0 "$rc"
pretty "text output, an impostor again"
rm -f "$TMP/impostor.rc"
rc=0
MODE=impostor ip netns exec "$NS" "$FABRICCTL" "${SWEEP[@]:1}" --hosts "$TMP/hosts4" >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out" >&2
grep -q "^launch: collective, 4 joined; refused 0 wrong token, 0 unknown host, 1 wrong source, 0 duplicate" "$TMP/out" ||
	fail "impostor: no launch line in the text output"
assert_eq "impostor, text: exit status" 0 "$rc"

# A dial= label: dbh4 joins from 127.0.0.9, not its hosts-file address.
sed 's/^dbh4 .*/& dial=127.0.0.8,127.0.0.9/' "$TMP/hosts4" >"$TMP/hosts4d"
sweep label "$TMP/hosts4d"
assert_eq "dial= label: joined" 4 "$(q .launch.joined)"
assert_eq "dial= label: wrong source" 0 "$(q .launch.refused.wrong_source)"
assert_eq "dial= label: failed pairs" 0 "$(q .summary.failed)"
# A bad one: refused before anything starts.
sed 's/^dbh2 .*/& dial=127.0.0.8,nohost/' "$TMP/hosts4" >"$TMP/hosts4b"
rm -f "$TMP/launcher.pid"
fab status --hosts "$TMP/hosts4b" "${LAUNCH[@]}"
assert_eq "bad dial= label: exit status" 2 "$rc"
grep -q "host 'dbh2': dial=127.0.0.8,nohost: 'nohost' is not a numeric address" "$TMP/err" ||
	fail "bad dial= label: not said"
[ ! -e "$TMP/launcher.pid" ] || fail "bad dial= label: the launcher ran"
fi

# --- 4. The worker's retry, against a stand-in controller ---------------------------
# fake.py ANSWERS...: listens on 127.0.0.1 (ephemeral port, written to
# fake.port), answers the join line of the k-th connection with ANSWERS[k]
# (retry: turned away, "retry": true; refuse: refused for good; ok), then
# closes; writes the join lines it got to fake.joins.
cat >"$TMP/fake.py" <<'EOF'
import json, socket, sys
dir, answers = sys.argv[1], sys.argv[2:]
ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen(8)
ls.settimeout(30)
open(dir + "/fake.port.tmp", "w").write("%d\n" % ls.getsockname()[1])
__import__("os").rename(dir + "/fake.port.tmp", dir + "/fake.port")
joins = []
for a in answers:
    c, _ = ls.accept()
    c.settimeout(10)
    line = b""
    while not line.endswith(b"\n"):
        b = c.recv(1)
        if not b:
            break
        line += b
    j = json.loads(line)
    joins.append("%s %s" % (j.get("op"), j.get("host")))
    m = {"v": 1, "id": 0, "ok": a == "ok"}
    if a == "ok":
        m["result"] = {}
    else:
        m["error"] = "refused: too many connections waiting to join (try again)" if a == "retry" else "refused: wrong token"
        if a == "retry":
            m["retry"] = True
    c.sendall((json.dumps(m) + "\n").encode())
    c.close()
open(dir + "/fake.joins", "w").write("\n".join(joins) + "\n")
EOF
fake_worker() { # ANSWERS...: the worker against fake.py; $rc, $TMP/err, $TMP/fake.joins
	rm -f "$TMP/fake.port" "$TMP/fake.joins"
	ip netns exec "$NS" python3 "$TMP/fake.py" "$TMP" "$@" &
	local fake=$!
	for _ in $(seq 200); do [ -s "$TMP/fake.port" ] && break; read -r -t 0.05 <> <(:) || true; done
	[ -s "$TMP/fake.port" ] || fail "retry: the stand-in controller did not start"
	pretty "ip netns exec $NS $FABRICCTL -v worker --connect 127.0.0.1:$(cat "$TMP/fake.port") --name dbh1  (answers: $*)"
	rc=0
	FABRICCTL_TOKEN=0123456789abcdef0123456789abcdef ip netns exec "$NS" "$FABRICCTL" -v worker \
		--connect "127.0.0.1:$(cat "$TMP/fake.port")" --name dbh1 </dev/null >/dev/null 2>"$TMP/err" || rc=$?
	wait "$fake" || fail "retry: the stand-in controller failed"
	cat "$TMP/err" >&2
}
if [[ $PARTS == *" retry "* ]]; then
fake_worker retry retry ok
assert_eq "retry: joins seen (two turned away, then ok)" "join dbh1,join dbh1,join dbh1" "$(paste -sd, "$TMP/fake.joins")"
assert_eq "retry: worker exit status" 0 "$rc"
assert_eq "retry: tries said" 2 "$(grep -c 'worker: join try [12]: .*too many connections waiting to join (try again); again in [0-9]* ms' "$TMP/err")"
fake_worker refuse
assert_eq "refused for good: one join only" "join dbh1" "$(paste -sd, "$TMP/fake.joins")"
assert_eq "refused for good: worker exit status" 3 "$rc"
grep -q "refused: wrong token" "$TMP/err" || fail "refused for good: not said"
fi

# --- 3. A signal in the middle of the join ------------------------------------------
midjoin() { # SIGNAL EXPECTED-RC COMMAND...
	local sig=$1 want=$2
	shift 2
	rm -f "$TMP/ready" "$TMP/launcher.pid" "$TMP/tokpath"
	pretty "MODE=hang ip netns exec $NS $FABRICCTL $* (then SIG$sig once the launcher runs)"
	MODE=hang ip netns exec "$NS" "$FABRICCTL" "$@" >"$TMP/out" 2>"$TMP/err" &
	CTL=$!
	for _ in $(seq 400); do
		[ -e "$TMP/ready" ] && break
		kill -0 "$CTL" 2>/dev/null || break
		read -r -t 0.05 <> <(:) || true
	done
	[ -e "$TMP/ready" ] || { cat "$TMP/err" >&2; fail "SIG$sig: the launcher never started"; }
	[ -e "$(cat "$TMP/tokpath")" ] || fail "SIG$sig: no token file while joining"
	kill "-$sig" "$CTL"
	rc=0
	wait "$CTL" || rc=$?
	CTL=
	cat "$TMP/err" >&2
	assert_eq "SIG$sig in the join ($2): exit status" "$want" "$rc"
	assert_cleaned "SIG$sig in the join ($2)"
}
if [[ $PARTS == *" join "* ]]; then
midjoin TERM 143 -j sweep --hosts "$TMP/hosts" "${LAUNCH[@]}" --transport tcp --no-progress
grep -q "interrupted by SIGTERM while joining (.* of 8 workers joined)" "$TMP/err" || fail "SIGTERM: not said"
midjoin HUP 129 -j sweep --hosts "$TMP/hosts" "${LAUNCH[@]}" --transport tcp --no-progress
grep -q "interrupted by SIGHUP while joining" "$TMP/err" || fail "SIGHUP: not said"
midjoin TERM 143 -j status --hosts "$TMP/hosts" "${LAUNCH[@]}"
fi
echo "sweep-dial-door: all checks passed" >&2
