#!/bin/bash
# Bonding through fabricctl against the kernel's bonding driver (inside
# the VM; the host kernel has none).  Dual-homing is modelled by two veth
# pairs between the VM's root namespace (this "node", bond A) and a second
# namespace (the "switch pair" side, bond B, also made by fabricctl), so
# 802.3ad really negotiates LACP across the two links.
#  1. 802.3ad bond with miimon/lacp_rate/xmit_hash_policy/min_links: apply
#     on both sides, LACP converges (both links in one aggregator, partner
#     known), `ip -d -j link` reads back every option, verify passes, a
#     second apply changes nothing;
#  2. a member loses its link: the adapter reads it down, verify reports
#     the degraded bond (exit 1); link back, verify passes again;
#  3. active-backup: options read back, an active member exists; the active
#     member's link fails, the bond fails over, verify reports it degraded;
#  4. rollback when enslaving fails: a member already enslaved elsewhere
#     (refused with EBUSY: the kernel would silently move it) and a member
#     that does not exist: the new bond is deleted, the member enslaved
#     before is released, the other bond is untouched.
# Runs inside the VM (tests/vm/run-tests tests/vm/one-vm/40-bond.sh).
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need
need_cmd ip jq
[ -x "$FABRICCTL" ] || fail "$FABRICCTL not built (run make)"
FABNL=$TOP/build/rel/fabnl

p=$$
NSB=fabbond$p
A=bnda$p B=bndb$p C=bndc$p D=bndd$p E=bnde$p
TMP=$(mktemp -d)
cleanup() {
	set +e
	ip netns del "$NSB" 2>/dev/null
	for l in "$A" "$C" "$D" "$E"; do ip link del "$l" 2>/dev/null; done
	for i in 0 1 2 3 4; do ip link del "ba$p$i" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

fab() { # fab [--ns NS] ARGS...: sets rc; stdout $TMP/out, stderr $TMP/err
	local pre=()
	if [ "$1" = --ns ]; then pre=(ip netns exec "$2"); shift 2; fi
	pretty "${pre[*]} $FABRICCTL $*"
	rc=0
	"${pre[@]}" "$FABRICCTL" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/out" "$TMP/err" >&2
}
info() { # info [-n NS] DEV JQ: a field of `ip -d -j link show`
	local ns=()
	if [ "$1" = -n ]; then ns=(-n "$2"); shift 2; fi
	ip "${ns[@]}" -d -j link show "$1" | jq -r ".[0].$2"
}
master_of() { ip -j link show "$1" | jq -r '.[0].master // "none"'; }
# A failed check that should not hide the ones after it: reported, and the
# test fails at the end.
late=()
late_fail() { printf 'FAIL (continuing): %s\n' "$*" >&2; late+=("$*"); }

grep -q '^bonding ' /proc/modules || vm_modprobe bonding max_bonds=0
vm_modprobe veth
run ip netns add "$NSB"
for i in 0 1 2 3 4; do
	run ip link add "ba$p$i" type veth peer name "bb$p$i"
done
for i in 0 1; do run ip link set "bb$p$i" netns "$NSB"; done
for i in 2 3 4; do run ip link set "bb$p$i" up; done

bond_profile() { # file name mode members... (802.3ad options when mode is 802.3ad)
	local f=$1 name=$2 mode=$3
	shift 3
	{
		echo "bonds:"
		echo "  - name: $name"
		echo "    mode: $mode"
		echo "    miimon: 100"
		if [ "$mode" = 802.3ad ]; then
			echo "    lacp_rate: fast"
			echo "    xmit_hash_policy: layer3+4"
			echo "    min_links: 1"
		fi
		echo "    members: [$(echo "$@" | sed 's/ /, /g')]"
	} >"$f"
}

# --- 1. 802.3ad, both sides by fabricctl, LACP converges --------------------
bond_profile "$TMP/a.yaml" "$A" 802.3ad "ba${p}0" "ba${p}1"
bond_profile "$TMP/b.yaml" "$B" 802.3ad "bb${p}0" "bb${p}1"
fab verify "$TMP/a.yaml"
assert_eq "verify before apply: exit status" 1 "$rc"
fab apply "$TMP/a.yaml"
assert_eq "apply $A: exit status" 0 "$rc"
fab --ns "$NSB" apply "$TMP/b.yaml"
assert_eq "apply $B (peer namespace): exit status" 0 "$rc"

assert_eq "$A mode" 802.3ad "$(info "$A" linkinfo.info_data.mode)"
assert_eq "$A miimon" 100 "$(info "$A" linkinfo.info_data.miimon)"
assert_eq "$A lacp_rate" fast "$(info "$A" linkinfo.info_data.ad_lacp_rate)"
assert_eq "$A xmit_hash_policy" layer3+4 "$(info "$A" linkinfo.info_data.xmit_hash_policy)"
assert_eq "$A min_links" 1 "$(info "$A" linkinfo.info_data.min_links)"
assert_eq "ba${p}0 master" "$A" "$(master_of "ba${p}0")"
assert_eq "ba${p}1 master" "$A" "$(master_of "ba${p}1")"

# Converged: both members in the bond's active aggregator, partner known.
lacp_ok() { # [-n NS] bond m0 m1
	local ns=() agg
	if [ "$1" = -n ]; then ns=(-n "$2"); shift 2; fi
	agg=$(info "${ns[@]}" "$1" linkinfo.info_data.ad_info.aggregator)
	[ "$agg" != null ] || return 1
	[ "$(info "${ns[@]}" "$1" linkinfo.info_data.ad_info.partner_mac)" != 00:00:00:00:00:00 ] || return 1
	[ "$(info "${ns[@]}" "$2" linkinfo.info_slave_data.ad_aggregator_id)" = "$agg" ] || return 1
	[ "$(info "${ns[@]}" "$3" linkinfo.info_slave_data.ad_aggregator_id)" = "$agg" ] || return 1
	[ "$(info "${ns[@]}" "$2" linkinfo.info_slave_data.state)" = ACTIVE ] || return 1
	[ "$(info "${ns[@]}" "$3" linkinfo.info_slave_data.state)" = ACTIVE ] || return 1
}
t0=$(date +%s%N)
vm_wait_for "LACP on $A" 30 lacp_ok "$A" "ba${p}0" "ba${p}1"
vm_wait_for "LACP on $B" 30 lacp_ok -n "$NSB" "$B" "bb${p}0" "bb${p}1"
printf '  ok: LACP converged in %s ms\n' $(( ($(date +%s%N) - t0) / 1000000 )) >&2
assert_eq "$A partner is $B" "$(ip -n "$NSB" -j link show "$B" | jq -r '.[0].address')" \
	"$(info "$A" linkinfo.info_data.ad_info.partner_mac)"
run "$FABNL" bond-read "$A" | tee "$TMP/nl" >&2
assert_eq "adapter: members up+active" "2" "$(grep -c '^member .* up=1 active=1 ' "$TMP/nl")"
fab -j verify "$TMP/a.yaml"
assert_eq "verify $A: exit status" 0 "$rc"
fab -j apply "$TMP/a.yaml"
assert_eq "second apply: exit status" 0 "$rc"
assert_eq "second apply: no steps" 0 "$(jq -r '.steps | length' "$TMP/out")"

# Options change in place; a mode change while the bond has members is refused.
sed 's/miimon: 100/miimon: 200/' "$TMP/a.yaml" >"$TMP/a200.yaml"
fab apply "$TMP/a200.yaml"
assert_eq "apply miimon 200: exit status" 0 "$rc"
assert_eq "$A miimon after apply" 200 "$(info "$A" linkinfo.info_data.miimon)"
assert_eq "$A members kept" "$A $A" "$(master_of "ba${p}0") $(master_of "ba${p}1")"
sed 's/mode: 802.3ad/mode: balance-xor/' "$TMP/a.yaml" >"$TMP/axor.yaml"
fab apply "$TMP/axor.yaml"
assert_eq "apply mode change with members: exit status" 3 "$rc"
grep -qF "bond: $A: mode 802.3ad -> balance-xor needs the bond without members (it has 2)" "$TMP/err" ||
	fail "mode change: message"
assert_eq "$A mode unchanged" 802.3ad "$(info "$A" linkinfo.info_data.mode)"
assert_eq "$A miimon back to the profile's after the rollback" 200 "$(info "$A" linkinfo.info_data.miimon)"
fab apply "$TMP/a.yaml"
assert_eq "apply miimon 100 again: exit status" 0 "$rc"
assert_eq "$A miimon" 100 "$(info "$A" linkinfo.info_data.miimon)"

# --- 2. a member loses its link: degraded ----------------------------------
run ip -n "$NSB" link set "bb${p}1" down
vm_wait_for "ba${p}1 mii down" 10 sh -c "[ \"\$(ip -d -j link show ba${p}1 | jq -r '.[0].linkinfo.info_slave_data.mii_status')\" = DOWN ]"
run "$FABNL" bond-read "$A" | tee "$TMP/nl" >&2
grep -q "^member ba${p}1 up=0 " "$TMP/nl" || fail "adapter: ba${p}1 not read as down"
fab -j verify "$TMP/a.yaml"
if [ "$rc" = 1 ]; then
	printf '  ok: verify degraded %s: exit status 1\n' "$A" >&2
	jq -e --arg m "ba${p}1" '[.drift[] | select((.interface + .field + .found) | contains($m))] | length > 0' "$TMP/out" >/dev/null ||
		late_fail "verify: no drift names the failed member ba${p}1"
else
	late_fail "verify degraded $A: exit status: expected '1', got '$rc' (member ba${p}1 is down)"
fi
run ip -n "$NSB" link set "bb${p}1" up
vm_wait_for "LACP on $A again" 30 lacp_ok "$A" "ba${p}0" "ba${p}1"
fab verify "$TMP/a.yaml"
assert_eq "verify after the link came back: exit status" 0 "$rc"

# --- 3. active-backup --------------------------------------------------------
bond_profile "$TMP/c.yaml" "$C" active-backup "ba${p}2" "ba${p}3"
fab apply "$TMP/c.yaml"
assert_eq "apply $C: exit status" 0 "$rc"
assert_eq "$C mode" active-backup "$(info "$C" linkinfo.info_data.mode)"
assert_eq "$C miimon" 100 "$(info "$C" linkinfo.info_data.miimon)"
vm_wait_for "$C active member" 10 sh -c "ip -d -j link show $C | jq -e '.[0].linkinfo.info_data.active_slave' >/dev/null"
act=$(info "$C" linkinfo.info_data.active_slave)
case $act in "ba${p}2"|"ba${p}3") ;; *) fail "$C active member is '$act'" ;; esac
fab verify "$TMP/c.yaml"
assert_eq "verify $C: exit status" 0 "$rc"
peer=bb${act#ba}
run ip link set "$peer" down
vm_wait_for "$C fails over from $act" 10 sh -c "[ \"\$(ip -d -j link show $C | jq -r '.[0].linkinfo.info_data.active_slave')\" != $act ]"
pretty "$C active member now $(info "$C" linkinfo.info_data.active_slave)"
fab -j verify "$TMP/c.yaml"
[ "$rc" = 1 ] || late_fail "verify degraded $C: exit status: expected '1', got '$rc' (member $act is down)"
run ip link set "$peer" up

# --- 4. rollback when enslaving fails ----------------------------------------
bond_profile "$TMP/d.yaml" "$D" active-backup "ba${p}4" "ba${p}0"
fab apply "$TMP/d.yaml"
assert_eq "apply $D (ba${p}0 is in $A): exit status" 3 "$rc"
grep -qF "bond: $D: enslave ba${p}0: already enslaved to $A" "$TMP/err" || fail "apply $D: message"
ip link show "$D" >/dev/null 2>&1 && fail "$D still exists after the rollback"
assert_eq "ba${p}4 master after the rollback" none "$(master_of "ba${p}4")"
assert_eq "ba${p}0 master untouched" "$A" "$(master_of "ba${p}0")"
bond_profile "$TMP/e.yaml" "$E" active-backup "ba${p}4" "nosuch$p"
fab apply "$TMP/e.yaml"
assert_eq "apply $E (nosuch$p): exit status" 3 "$rc"
grep -qF "nosuch$p" "$TMP/err" || fail "apply $E: message does not name nosuch$p"
ip link show "$E" >/dev/null 2>&1 && fail "$E still exists after the rollback"
assert_eq "ba${p}4 master after the second rollback" none "$(master_of "ba${p}4")"
[ ${#late[@]} = 0 ] || fail "${#late[@]} check(s) failed: ${late[*]}"
echo "40-bond: all checks passed"
