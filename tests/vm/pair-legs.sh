# shellcheck shell=bash
# The sweep's dual-homed legs between the two VMs of tests/vm/pair
# (docs/sweep.md "Dual-homed legs"; sourced by two-vm/50-pair-bond.sh, run
# after its own checks on the same boot: the pair's boot and LACP are the
# costly part).  pair_legs BOND ADDR_A ADDR_B, on both nodes, each with an
# 802.3ad bond BOND (xmit_hash_policy layer3+4, LACP converged) holding
# ADDR_A in a and ADDR_B in b:
#
# every member shaped to $LEGS_RATE (20mbit) with tbf (TCG fills it
# steadily); fabricctl sweep runs in a, its workers dial back (docs/scale.md
# "Launch"): the collective launcher, a script, hands b the worker command
# and the token through the pair's shared folder and runs a's worker, and b
# runs its own (one worker per node, each in its own VM, as on real hosts).
#  1. No fault: exit 0, both workers joined; pairs[0].legs has both
#     directions, each leg of both bonds found (a port each, the two
#     members on two ports), measured and ok, and carrying its flow: the
#     member's tx_bytes over the leg's flow (the sweep's reading) is at
#     least 90 % of the leg's bytes, and the member's counter read here
#     from sysfs around the whole sweep (in a, and in b around its worker)
#     grew by at least the leg's bytes.
#  2. b's second member slowed with tbf to $LEGS_SLOW (4mbit): exit 1, that
#     leg slow and named ("slow leg: vmb MEMBER: 4 of 19 Mbit/s"), the
#     three others ok, one finding.
# With LEGS_RATED=1 (by hand, not in CI: two more sweeps, ~40 s;
# VM_ENV=LEGS_RATED LEGS_RATED=1 tests/vm/pair -- tests/vm/two-vm/50-pair-bond.sh),
# b's first member slowed too, so both of b's legs are equally slow:
#  3. no rating: the legs check sees them level, exit 0 (one pair: nothing
#     to compare it with either; docs/sweep.md "Dual-homed legs");
#  4. rate_gbps=0.02 on both hosts: both of b's legs "slow leg: vmb
#     MEMBER: 4 of 20 Mbit/s rated", a's legs ok, exit 1.
# Needs common.sh and lib.sh sourced, jq, tc, $FABRICCTL built.

# pair_legs_tx MEMBER: its tx_bytes here.
pair_legs_tx() { cat "/sys/class/net/$1/statistics/tx_bytes"; }

pair_legs() {
	local bond=$1 ip_a=$2 ip_b=$3 m sh=/run/vm/shared
	local rate=${LEGS_RATE:-20mbit} slow=${LEGS_SLOW:-4mbit}
	local -a mem
	read -r -a mem <"/sys/class/net/$bond/bonding/slaves"
	[ ${#mem[@]} = 2 ] || fail "legs: $bond has ${#mem[@]} members (${mem[*]}), want 2"
	echo "${mem[*]}" >"$sh/legs.members.$VM_NODE"
	modprobe sch_tbf 2>/dev/null || true
	for m in "${mem[@]}"; do
		run tc qdisc replace dev "$m" root tbf rate "$rate" burst 16kb latency 100ms
	done
	TMP=$(mktemp -d /tmp/pair-legs.XXXXXX)	# in the VM's RAM: gone at power-off
	vm_barrier legs-shaped 60
	if [ "$VM_NODE" = b ]; then
		pair_legs_worker 1 "${mem[@]}"
		vm_barrier legs-clean-done 300
		run tc qdisc replace dev "${mem[1]}" root tbf rate "$slow" burst 16kb latency 100ms
		vm_barrier legs-fault-set 60
		pair_legs_worker 2 "${mem[@]}"
		vm_barrier legs-checked 300
		if [ "${LEGS_RATED:-0}" = 1 ]; then
			run tc qdisc replace dev "${mem[0]}" root tbf rate "$slow" burst 16kb latency 100ms
			vm_barrier legs-both-slow 60
			pair_legs_worker 3 "${mem[@]}"
			pair_legs_worker 4 "${mem[@]}"
			vm_barrier legs-rated-checked 300
		fi
	else
		pair_legs_controller "$ip_a" "$ip_b"
	fi
}

# pair_legs_worker K M1 M2 (in b): run the worker command of a's K-th
# launch (the launcher writes $sh/legs.launch.K: the token, then the
# command, NUL-separated) and record M1's and M2's tx_bytes growth over it
# in $sh/legs.tx.b.K.
pair_legs_worker() {
	local k=$1 m1=$2 m2=$3 sh=/run/vm/shared t1 t2 tok wrc=0
	local -a args
	vm_wait_for "a's launch $k" 120 sh -c "[ -e $sh/legs.launch.$k ] || [ -e $sh/abort.a ]"
	[ ! -e "$sh/abort.a" ] || fail "a failed before its launch $k"
	mapfile -d '' args <"$sh/legs.launch.$k"
	tok=${args[0]}
	args=("${args[@]:1}")
	t1=$(pair_legs_tx "$m1") t2=$(pair_legs_tx "$m2")
	pretty "FABRICCTL_NODE=vmb ${args[*]}"
	FABRICCTL_TOKEN=$tok FABRICCTL_NODE=vmb "${args[@]}" 2>"$TMP/worker.$k.err" || wrc=$?
	echo "$(($(pair_legs_tx "$m1") - t1)) $(($(pair_legs_tx "$m2") - t2))" >"$sh/legs.tx.b.$k"
	[ "$wrc" = 0 ] || { cat "$TMP/worker.$k.err" >&2; fail "legs: b's worker $k exited $wrc"; }
}

# pair_legs_sweep K ADDR_A (in a): the K-th sweep, JSON in $TMP/out, exit
# status in $rc; PL_T[DIR.MEMBER] each member's growth over it (ab: a's,
# read here; ba: b's, read there around its worker).
declare -A PL_T
pair_legs_sweep() {
	local k=$1 ip_a=$2 sh=/run/vm/shared t0=$SECONDS a1 a2 b1 b2
	a1=$(pair_legs_tx "$PL_A1") a2=$(pair_legs_tx "$PL_A2")
	LEGS_SH=$sh LEGS_K=$k fab -j -v sweep --hosts "$TMP/${PL_HOSTS:-hosts}" \
		--launcher "collective:$TMP/launch.sh" --listen "$ip_a" \
		--transport tcp --duration 0.5 --lat-iters 100 --slow-pct 50
	PL_T[ab.$PL_A1]=$(($(pair_legs_tx "$PL_A1") - a1))
	PL_T[ab.$PL_A2]=$(($(pair_legs_tx "$PL_A2") - a2))
	vm_wait_for "b's counters of sweep $k" 60 test -e "$sh/legs.tx.b.$k"
	read -r b1 b2 <"$sh/legs.tx.b.$k"
	PL_T[ba.$PL_B1]=$b1 PL_T[ba.$PL_B2]=$b2
	echo "legs sweep $k: $((SECONDS - t0)) s; members grew: a $PL_A1 +${PL_T[ab.$PL_A1]}" \
		"$PL_A2 +${PL_T[ab.$PL_A2]}, b $PL_B1 +$b1 $PL_B2 +$b2" >&2
}

# pair_legs_read: one jq (each process costs under TCG) reads $TMP/out into
# PL[DIR.MEMBER.FIELD] (verdict sport bytes tx_bytes bw_mbps finding) and
# PL[head] (legs.bad, the findings' count, workers joined, ab's sender,
# ba's sender, ab's mode/policy).
declare -A PL
pair_legs_read() {
	vm_legs_read PL '"\(.legs.bad) \(.legs.findings | length) \(.launch.joined) \(.pairs[0].legs.ab.node)" +
		" \(.pairs[0].legs.ba.node) \(.pairs[0].legs.ab.mode)/\(.pairs[0].legs.ab.xmit_hash_policy)"'
}

pair_legs_controller() {
	local ip_a=$1 ip_b=$2 sh=/run/vm/shared dm m bytes own legs
	read -r PL_A1 PL_A2 <"$sh/legs.members.a"
	read -r PL_B1 PL_B2 <"$sh/legs.members.b"
	printf 'vma %s\nvmb %s\n' "$ip_a" "$ip_b" >"$TMP/hosts"
	# The collective launcher: the token and worker command for b, then a's worker.
	cat >"$TMP/launch.sh" <<'EOF'
#!/bin/bash
printf '%s\0' "$FABRICCTL_TOKEN" "$@" >"$LEGS_SH/legs.launch.$LEGS_K.tmp"
mv "$LEGS_SH/legs.launch.$LEGS_K.tmp" "$LEGS_SH/legs.launch.$LEGS_K"
FABRICCTL_NODE=vma exec "$@"
EOF
	chmod +x "$TMP/launch.sh"
	legs="ab.$PL_A1 ab.$PL_A2 ba.$PL_B1 ba.$PL_B2"

	# --- 1. no fault: every leg found, carried a flow, ok
	pair_legs_sweep 1 "$ip_a"
	[ "$rc" = 0 ] || fail "legs, no fault: sweep exit $rc (want 0)"
	pair_legs_read
	assert_eq "legs, no fault: bad, findings, joined, senders, policy" \
		"0 0 2 vma vmb 802.3ad/layer3+4" "${PL[head]}"
	for dm in $legs; do
		m=${dm#*.}
		assert_eq "legs, no fault: leg $dm" ok "${PL[$dm.verdict]}"
		[ "${PL[$dm.sport]}" != null ] || fail "legs, no fault: leg $dm has no port"
		bytes=${PL[$dm.bytes]} own=${PL[$dm.tx_bytes]}
		[ "$bytes" -gt 100000 ] || fail "legs, no fault: leg $dm: $bytes bytes received"
		# the sweep's reading over the leg's flow, and sysfs around the sweep
		[ $((own * 100)) -ge $((bytes * 90)) ] || fail "legs, no fault: leg $dm: tx +$own of $bytes"
		[ "${PL_T[$dm]}" -ge "$bytes" ] ||
			fail "legs, no fault: member $dm grew +${PL_T[$dm]}, under its leg's $bytes"
		echo "legs, no fault: $dm port ${PL[$dm.sport]} ${PL[$dm.bw_mbps]} Mbit/s, tx +$own of $bytes: ok" >&2
	done
	[ "${PL[ab.$PL_A1.sport]}" != "${PL[ab.$PL_A2.sport]}" ] || fail "legs: a's members on one port"
	[ "${PL[ba.$PL_B1.sport]}" != "${PL[ba.$PL_B2.sport]}" ] || fail "legs: b's members on one port"
	vm_barrier legs-clean-done 60

	# --- 2. b's second member slowed: that leg named, exit 1
	vm_barrier legs-fault-set 60
	pair_legs_sweep 2 "$ip_a"
	[ "$rc" = 1 ] || fail "legs, fault: sweep exit $rc (want 1)"
	pair_legs_read
	assert_eq "legs, fault: leg ba.$PL_B2" slow "${PL[ba.$PL_B2.verdict]}"
	for dm in "ab.$PL_A1" "ab.$PL_A2" "ba.$PL_B1"; do
		assert_eq "legs, fault: leg $dm" ok "${PL[$dm.verdict]}"
	done
	echo "legs, fault: ${PL[ba.$PL_B2.finding]}" >&2
	case ${PL[ba.$PL_B2.finding]} in
	"slow leg: vmb $PL_B2: "*) ;;
	*) fail "legs, fault: b's $PL_B2 finding '${PL[ba.$PL_B2.finding]}'" ;;
	esac
	assert_eq "legs, fault: bad, findings, joined" "1 1 2" "$(echo "${PL[head]}" | cut -d' ' -f1-3)"
	vm_barrier legs-checked 60
	[ "${LEGS_RATED:-0}" = 1 ] || return 0

	# --- 3., 4. both of b's legs equally slow: level without a rating, named with one
	vm_barrier legs-both-slow 60
	pair_legs_sweep 3 "$ip_a"
	[ "$rc" = 0 ] || fail "legs, both slow, no rating: sweep exit $rc (want 0)"
	pair_legs_read
	for dm in $legs; do
		assert_eq "legs, both slow, no rating: leg $dm" ok "${PL[$dm.verdict]}"
	done
	printf 'vma %s rate_gbps=0.02\nvmb %s rate_gbps=0.02\n' "$ip_a" "$ip_b" >"$TMP/hosts.rated"
	PL_HOSTS=hosts.rated pair_legs_sweep 4 "$ip_a"
	[ "$rc" = 1 ] || fail "legs, both slow, rated: sweep exit $rc (want 1)"
	pair_legs_read
	for m in "$PL_B1" "$PL_B2"; do
		assert_eq "legs, both slow, rated: leg ba.$m" slow "${PL[ba.$m.verdict]}"
		case ${PL[ba.$m.finding]} in
		"slow leg: vmb $m: "[0-9]*" of 20 Mbit/s rated") ;;
		*) fail "legs, both slow, rated: b's $m finding '${PL[ba.$m.finding]}'" ;;
		esac
		echo "legs, both slow, rated: ${PL[ba.$m.finding]}" >&2
	done
	for dm in "ab.$PL_A1" "ab.$PL_A2"; do
		assert_eq "legs, both slow, rated: leg $dm" ok "${PL[$dm.verdict]}"
	done
	vm_barrier legs-rated-checked 60
}
