#!/bin/bash
# Fault tolerance of the sweep controller, with a custom launcher template
# pointing at a script that starts the real worker in the host's namespace
# and, for one victim host, misbehaves once the worker has finished its
# first pair (after its hello and one final "ok" reply):
#   kill     the worker and its launcher die (SIGKILL) mid-sweep
#   hang     the worker is stopped (SIGSTOP): alive, pipes open, silent
#   garbage  a line that is not protocol is sent to the controller
#   kill-in-test  the worker dies while serving its first test as server
#   no-bond  the worker answers the "bond" request as an older one does
#            (test-only FABRICCTL_TEST_UNKNOWN_OPS=bond): every pair ok,
#            exit 0, and the victim's legs said not measured, with why
# Each time: the sweep finishes, exits 1, the victim's later pairs are
# failed with a reason naming it, its first pair keeps its figures, and
# every pair without the victim is ok with figures.  Also: a launcher that
# cannot start at all, and a "worker" that is not one.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd ip jq mkfifo
need_fabricctl
# shellcheck source=../lab/netns
. "$TOP/tests/lab/netns"

P=sf$$
tmpdir_with_cleanup
cleanup_hook() { lab_down --name "$P"; }

run lab_up --name "$P" --hosts 4 --leaves 2 --spines 1 --no-lldp
lab_hostsfile >"$TMP/hosts"
V=$(lab_ns h2)

# The launcher: launch MODE VICTIM HOST WORKER-ARGV...
cat >"$TMP/launch" <<'SCRIPT'
#!/bin/bash
mode=$1 victim=$2 host=$3
shift 3
[ "$host" = "$victim" ] || exec ip netns exec "$host" "$@"
[ "$mode" = no-bond ] && exec env FABRICCTL_TEST_UNKNOWN_OPS=bond ip netns exec "$host" "$@"
if [ "$mode" = hello-garbage ]; then
	echo 'HTTP/1.1 400 Bad Request'
	exec cat >/dev/null
fi
fifo=$(mktemp -u)
mkfifo "$fifo"
ip netns exec "$host" "$@" <&0 >"$fifo" &
wpid=$!
exec 3<"$fifo"
rm -f "$fifo"
n=0
while IFS= read -r line <&3; do
	printf '%s\n' "$line"
	if [ "$mode" = kill-in-test ]; then
		# Serving a test (armed: the client is about to connect): die now.
		case $line in *'"event":"armed"'*) kill -KILL "$wpid"; kill -KILL $$ ;; esac
		continue
	fi
	case $line in *'"ok":true'*) n=$((n + 1)) ;; esac
	[ "$n" = 2 ] || continue
	n=3
	case $mode in
	kill) kill -KILL "$wpid"; kill -KILL $$ ;;
	hang) kill -STOP "$wpid" ;;
	garbage) echo '{"v":1,"id":"not a number" garbage' ;;
	esac
done
SCRIPT
chmod +x "$TMP/launch"

# fault MODE: sweep with the misbehaving launcher; JSON in $TMP/out, rc in $rc.
# This test is about failures: slowness judging is switched off (--slow-pct 1,
# --lat-factor 1000) so that a pair slowed by a loaded 2-core box cannot turn
# "ok" into "slow" (sweep-netns.sh is the test of the judging).
fault() {
	local start end
	pretty "sweep with launcher mode $1, victim $V"
	rc=0
	start=$(date +%s)
	"$FABRICCTL" -j sweep --hosts "$TMP/hosts" --launcher "$TMP/launch $1 $V {host}" \
		--duration 0.3 --lat-iters 300 --timeout 2 \
		--slow-pct 1 --lat-factor 1000 >"$TMP/out" 2>"$TMP/err" || rc=$?
	end=$(date +%s)
	cat "$TMP/err" >&2
	jq -c '.pairs[] | [.a, .b, .round, .status, .reason, .bw_ab.avg_mbps]' "$TMP/out" >&2
	assert_eq "$1: finished in time" true "$([ $((end - start)) -lt 60 ] && echo true || echo false)"
}
q() { jq -r "$@" "$TMP/out"; }

# check MODE REASON-REGEX: the victim's first pair ok, its later ones failed
# with a reason matching REGEX, everything else ok.
check() {
	assert_eq "$1: rc" 1 "$rc"
	assert_eq "$1: pairs" 6 "$(q '.pairs | length')"
	assert_eq "$1: pairs without the victim ok, with figures" 3 \
		"$(q --arg v "$V" '[.pairs[] | select(.a != $v and .b != $v) | select(.status == "ok" and .bw_ab.avg_mbps > 0 and .bw_ba.avg_mbps > 0 and .lat_ns.p50 > 0)] | length')"
	assert_eq "$1: victim's first pair kept its figures" "ok" \
		"$(q --arg v "$V" '[.pairs[] | select(.a == $v or .b == $v)] | sort_by(.round) | .[0] | if .bw_ab.avg_mbps > 0 and .bw_ba.avg_mbps > 0 then .status else "no figures" end')"
	assert_eq "$1: victim's later pairs failed" "failed,failed" \
		"$(q --arg v "$V" '[.pairs[] | select(.a == $v or .b == $v)] | sort_by(.round) | .[1:] | map(.status) | join(",")')"
	assert_eq "$1: reasons name the victim" true \
		"$(q --arg v "$V" --arg re "$2" '[.pairs[] | select(.status == "failed") | .reason | (contains($v) and test($re))] | all')"
	assert_eq "$1: failed pairs have no figures" true \
		"$(q '[.pairs[] | select(.status == "failed") | .bw_ab == null and .lat_ns == null] | all')"
}

fault kill
check kill "killed by signal 9|exited"
fault hang
check hang "hung"
fault garbage
check garbage "garbage"

# Killed in the middle of a test: h2 serves only in its last pair (h1, h2),
# so its first two pairs keep their figures and the last one fails.
fault kill-in-test
assert_eq "kill-in-test: rc" 1 "$rc"
assert_eq "kill-in-test: victim's pairs by round" "ok,ok,failed" \
	"$(q --arg v "$V" '[.pairs[] | select(.a == $v or .b == $v)] | sort_by(.round) | map(.status) | join(",")')"
assert_eq "kill-in-test: first two kept their figures" true \
	"$(q --arg v "$V" '[.pairs[] | select((.a == $v or .b == $v) and .status == "ok") | .bw_ab.avg_mbps > 0 and .lat_ns.p50 > 0] | all')"
assert_eq "kill-in-test: the reason names the victim" true \
	"$(q --arg v "$V" '[.pairs[] | select(.status == "failed") | .reason | contains($v)] | all')"
assert_eq "kill-in-test: others ok" 3 "$(q --arg v "$V" '[.pairs[] | select(.a != $v and .b != $v and .status == "ok")] | length')"

# A victim that answers its hello with garbage: all its pairs fail, the rest run.
fault hello-garbage
assert_eq "hello-garbage: rc" 1 "$rc"
assert_eq "hello-garbage: victim's pairs failed" "failed,failed,failed" \
	"$(q --arg v "$V" '[.pairs[] | select(.a == $v or .b == $v) | .status] | join(",")')"
assert_eq "hello-garbage: reason" true \
	"$(q --arg v "$V" '[.pairs[] | select(.status == "failed") | .reason | (contains($v) and contains("garbage") and contains("HTTP/1.1"))] | all')"
assert_eq "hello-garbage: others ok" 3 "$(q '[.pairs[] | select(.status == "ok")] | length')"
assert_eq "hello-garbage: the victim is the top suspect" "$V" "$(q '.suspects[0].node')"

# A victim that does not answer the bond request (an older worker): its pairs are
# measured, its legs are said not measured, with the worker's reason (~3 s).
fault no-bond
assert_eq "no-bond: rc" 0 "$rc"
assert_eq "no-bond: pairs ok" 6 "$(q '[.pairs[] | select(.status == "ok")] | length')"
assert_eq "no-bond: legs not measured" \
	"$V: legs not measured: worker did not answer the bond request: unknown op 'bond'" \
	"$(q '.legs.not_measured[] | "\(.node): \(.note)"')"
assert_eq "no-bond: no legs ran" "0 0" "$(q '"\(.legs.pairs) \(.legs.bad)"')"
# diagnose --from reads the hosts not measured back and says them as the sweep did.
# (A sweep without a topology: --from wants one, the lab's plan, and --hosts.)
cp "$TMP/out" "$TMP/saved.json"
lab_planfile >"$TMP/plan.yaml"
rc=0
run "$FABRICCTL" diagnose --from "$TMP/saved.json" --hosts "$TMP/hosts" --topology "$TMP/plan.yaml" \
	>"$TMP/diag.text" || rc=$?
cat "$TMP/diag.text" >&2
assert_eq "no-bond: diagnose --from: rc" 0 "$rc"
rc=0
run "$FABRICCTL" -j diagnose --from "$TMP/saved.json" --hosts "$TMP/hosts" --topology "$TMP/plan.yaml" \
	>"$TMP/diag.json" || rc=$?
assert_eq "no-bond: diagnose --from -j: rc" 0 "$rc"
grep -qF "; legs of 1 host not measured" "$TMP/diag.text" ||
	fail "no-bond: diagnose --from: no 'legs of 1 host not measured' in the headline"
grep -qxF "  $V: legs not measured: worker did not answer the bond request: unknown op 'bond'" \
	"$TMP/diag.text" || fail "no-bond: diagnose --from: the host not measured is not listed"
assert_eq "no-bond: diagnose --from: JSON legs.not_measured" \
	"$(q -c '.legs.not_measured')" "$(jq -c '.legs.not_measured' "$TMP/diag.json")"

# A launcher that does not exist: one clear error up front, exit 2, no pair run.
rc=0
run "$FABRICCTL" -j sweep --hosts "$TMP/hosts" --launcher "/nonexistent/launcher {host}" \
	--duration 0.1 --lat-iters 10 >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/err" >&2
assert_eq "no launcher: rc" 2 "$rc"
assert_eq "no launcher: stdout" "" "$(cat "$TMP/out")"
grep -qF "launcher '/nonexistent/launcher {host}': /nonexistent/launcher: not an executable file" "$TMP/err" ||
	fail "no launcher: not the one clear error"

# A launcher template without {host} is bad input: exit 2, nothing started.
expect_rc 2 "$FABRICCTL" sweep --hosts "$TMP/hosts" --launcher "ip netns exec"
echo "sweep-faults: all checks passed" >&2
