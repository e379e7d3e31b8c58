#!/bin/bash
# Dial-back launch (issue 15, item 3; docs/scale.md "Launch").
#
# In a network namespace of its own (loopback only), N local workers
# (default 24) are started by ONE collective command, a script that
# backgrounds `fabricctl worker --connect ADDR:PORT` once per host; each
# dials back to the controller's --listen address with the sweep's token
# and joins as its hosts-file name.  Data-path addresses are spread over
# 127.0.0.0/8 (one per worker, so the pairs' connections do not share
# one address's ports).
#
# 1. All-pairs TCP sweep through the collective launcher: every pair ok
#    or slow, 0 failed; JSON "launch" says N joined.  Before the real
#    workers, the script sends a worker with a wrong token, one with a
#    name not in the hosts file, one idle connection that never sends a
#    line, and a second worker with an existing name: each is refused
#    and counted by reason (JSON and the stderr summary); the refused
#    workers exit saying why.
# 2. The token is in no process's argv (a `ps -eo args` taken by the
#    launcher while every worker runs does not contain it).
# 3. After the sweep nothing listens in the namespace (`ss -ltn`), and
#    the launcher and its workers are gone.
# 4. The token as a 0600 file ({token_file}, --worker-cmd ... --token-file):
#    a 4-host sweep with FABRICCTL_TOKEN unset works; the file was 0600
#    and is removed afterwards.
# 5. Bad input: a collective launcher without --listen, with {host}, a
#    wildcard --listen with the default worker command: exit 2, clear
#    message, nothing started.  A per-node launcher past the hard
#    RLIMIT_NOFILE: exit 2 naming the limit and what is needed; past the
#    soft limit only, it is raised and the command runs.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq ss
need_fabricctl

N=${N:-24}
NS=h15d-dial$$
tmpdir_with_cleanup
cleanup_hook() {
	[ ! -s "$TMP/pid" ] || kill -- "-$(cat "$TMP/pid")" 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
}
run ip netns add "$NS"
run ip -n "$NS" link set lo up

# Hosts dbh1..dbhN on 127.1.X.Y; each worker dials from its own address
# (worker --source): a join is bound to its host's address.
addr_of() { echo "127.1.$(($1 / 200)).$(($1 % 200 + 1))"; }
for i in $(seq 1 "$N"); do
	echo "dbh$i $(addr_of "$i")"
done >"$TMP/hosts"

# The collective command: launch.sh N PORT ADDR WORKER-COMMAND...
cat >"$TMP/launch.sh" <<'EOF'
#!/bin/bash
n=$1 port=$2 addr=$3
shift 3
dir=$(dirname "$0")
addr_of() { echo "127.1.$(($1 / 200)).$(($1 % 200 + 1))"; }
echo "$port" >"$dir/port"
echo "$$" >"$dir/pid"
printf '%s' "${FABRICCTL_TOKEN:-}" >"$dir/token"	# the test's own check only
if [ -z "${ONLY_GOOD:-}" ]; then
	# Refused, one after the other (each exits once answered).
	FABRICCTL_TOKEN=0123456789abcdef0123456789abcdef FABRICCTL_NODE=dbh1 "$@" 2>>"$dir/bad.err"
	FABRICCTL_NODE=nosuch "$@" 2>>"$dir/bad.err"
	# Idle: connects, never says a word; prints what it was told.
	(exec 3<>"/dev/tcp/$addr/$port" && read -r -t 60 -u 3 line; echo "$line" >"$dir/idle.out") &
	FABRICCTL_NODE=dbh1 "$@" --source "$(addr_of 1)" &
	sleep 2
	FABRICCTL_NODE=dbh1 "$@" --source "$(addr_of 1)" 2>>"$dir/bad.err" &	# a second dbh1
	sleep 0.5
	first=2
else
	first=1
fi
for i in $(seq "$first" "$n"); do
	FABRICCTL_NODE=dbh$i "$@" --source "$(addr_of "$i")" &
done
ps -eo args >"$dir/ps"
wait
EOF
chmod +x "$TMP/launch.sh"

# 1. The sweep.
pretty "ip netns exec $NS $FABRICCTL -j sweep --hosts ($N hosts) --launcher collective:... --listen 127.0.0.1"
t0=$(date +%s.%N)
rc=0
ip netns exec "$NS" "$FABRICCTL" -j sweep --hosts "$TMP/hosts" \
	--launcher "collective:$TMP/launch.sh {n} {port} {addr}" --listen 127.0.0.1 \
	--transport tcp --duration 0 --lat-iters 20 --timeout 20 --no-retest --no-progress --lat-factor 1000 \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
t1=$(date +%s.%N)
grep -v '^launcher: ' "$TMP/err" >&2 || true
jq -c '{launch, summary, wall_s}' "$TMP/out" >&2 || fail "no JSON: $(cat "$TMP/out")"
q() { jq -r "$@" "$TMP/out"; }
assert_eq "pairs" "$((N * (N - 1) / 2))" "$(q .summary.pairs)"
assert_eq "failed pairs" 0 "$(q .summary.failed)"
assert_eq "joined" "$N" "$(q .launch.joined)"
assert_eq "refused: wrong token" 1 "$(q .launch.refused.wrong_token)"
assert_eq "refused: unknown host" 1 "$(q .launch.refused.unknown_host)"
assert_eq "refused: duplicate" 1 "$(q .launch.refused.duplicate)"
assert_eq "refused: idle" 1 "$(q .launch.refused.idle)"
assert_eq "refused: wrong source" 0 "$(q .launch.refused.wrong_source)"
grep -q "dial-back: $N of $N workers joined; refused 4 connections: 1 wrong token, 1 unknown host, 0 wrong source, 1 duplicate, 0 not a join request, 1 idle" "$TMP/err" ||
	fail "no refusal summary on stderr"
grep -q 'refused: wrong token' "$TMP/bad.err" || fail "the wrong-token worker did not say why: $(cat "$TMP/bad.err")"
grep -q "refused: host 'nosuch' is not in the hosts file" "$TMP/bad.err" || fail "unknown host: $(cat "$TMP/bad.err")"
grep -q "refused: host 'dbh1' has already joined" "$TMP/bad.err" || fail "duplicate: $(cat "$TMP/bad.err")"
grep -Eq 'refused: (joining is over|no join request in time)' "$TMP/idle.out" ||
	fail "the idle connection was not answered: $(cat "$TMP/idle.out")"
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "sweep of %d hosts: %.1f s\n", '"$N"', b - a }' >&2
assert_eq "exit status" 0 "$rc"

# 2. The token: 32 hex digits, in no argv.
tok=$(cat "$TMP/token")
assert_eq "token length" 32 "${#tok}"
grep -q -- "--connect 127.0.0.1:$(cat "$TMP/port")" "$TMP/ps" || fail "ps snapshot has no worker"
! grep -q "$tok" "$TMP/ps" || fail "the token is visible in ps"

# 3. Nothing listens; the launcher and its workers are gone.
port=$(cat "$TMP/port")
listening=$(ip netns exec "$NS" ss -Hltn)
[ -z "$listening" ] || fail "still listening after the sweep: $listening"
! kill -0 "$(cat "$TMP/pid")" 2>/dev/null || fail "launcher still running"
! pgrep -f -- "--connect 127.0.0.1:$port" >/dev/null || fail "workers still running"
pretty "port $port: nothing listens, launcher and workers gone"

# 4. The token from a 0600 file, not the environment.
head -4 "$TMP/hosts" >"$TMP/hosts4"
cat >"$TMP/wcmd.sh" <<'EOF'
#!/bin/bash
# worker command: the token file's mode is recorded, the environment's token dropped
f=$1
shift
stat -c %a "$f" >"$(dirname "$0")/tokmode"
echo "$f" >"$(dirname "$0")/tokpath"
unset FABRICCTL_TOKEN
exec "$@" --token-file "$f"
EOF
chmod +x "$TMP/wcmd.sh"
rm -f "$TMP/pid"
pretty "token file sweep"
rc=0
ONLY_GOOD=1 ip netns exec "$NS" "$FABRICCTL" -j sweep --hosts "$TMP/hosts4" \
	--launcher "collective:$TMP/launch.sh {n} {port} {addr}" --listen 127.0.0.1:0 \
	--worker-cmd "$TMP/wcmd.sh {token_file} $FABRICCTL worker" \
	--transport tcp --duration 0 --lat-iters 20 --no-retest --no-progress --lat-factor 1000 \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/err" >&2
assert_eq "token file: exit status" 0 "$rc"
assert_eq "token file: failed pairs" 0 "$(q .summary.failed)"
assert_eq "token file: joined" 4 "$(q .launch.joined)"
assert_eq "token file mode" 600 "$(cat "$TMP/tokmode")"
tokdir=$(dirname "$(cat "$TMP/tokpath")")
case $tokdir in */fabricctl-dial.*) ;; *) fail "token file not in its own directory: $tokdir" ;; esac
[ ! -e "$tokdir" ] || fail "token directory left behind: $tokdir"

# 5. Bad input.
rm -f "$TMP/pid"
fab status --hosts "$TMP/hosts4" --launcher "collective:$TMP/launch.sh {n}"
assert_eq "no --listen: exit" 2 "$rc"
grep -q 'needs --listen ADDR' "$TMP/err" || fail "no --listen: message"
fab status --hosts "$TMP/hosts4" --launcher "collective:srun -w {host}" --listen 127.0.0.1
assert_eq "{host}: exit" 2 "$rc"
grep -q '{host} in a collective launcher' "$TMP/err" || fail "{host}: message"
fab status --hosts "$TMP/hosts4" --launcher "collective:$TMP/launch.sh {n}" --listen 0.0.0.0
assert_eq "wildcard: exit" 2 "$rc"
grep -q 'a wildcard is no address to dial' "$TMP/err" || fail "wildcard: message"
[ ! -e "$TMP/pid" ] || fail "a launcher ran on bad input"
pretty "per-node launcher over the hard RLIMIT_NOFILE"
rc=0
(ulimit -n 100 && exec "$FABRICCTL" status --hosts "$TMP/hosts" --launcher 'env X={host}') \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/err" >&2
assert_eq "nofile: exit" 2 "$rc"
grep -q "need $((3 * N + 64)) open files; RLIMIT_NOFILE (ulimit -n) is 100, hard limit 100" "$TMP/err" ||
	fail "nofile: message"
pretty "per-node launcher over the soft RLIMIT_NOFILE, under the hard one: raised"
rc=0
(ulimit -Sn 60 && exec "$FABRICCTL" -v -j status --hosts "$TMP/hosts4" --launcher 'env X={host}') \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
grep launcher "$TMP/err" >&2 || true
assert_eq "soft nofile: exit" 0 "$rc"
grep -q "raising RLIMIT_NOFILE from 60 to 76" "$TMP/err" || fail "soft nofile: not raised"
echo "PASS: sweep-dialback ($N workers)"
