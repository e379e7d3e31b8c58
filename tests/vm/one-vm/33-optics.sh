#!/bin/bash
# Modules, FEC and flaps through fabricctl against the kernel's real
# ethtool netlink code (net/ethtool/eeprom.c, fec.c, linkstate.c), on the
# three netdevs of tests/vm/optest (an SFP28, a QSFP28 and a CMIS QSFP-DD
# slot whose pages are spec-built images the test writes through
# debugfs), cross-checked with the VM's ethtool(8):
#  1. every field fabricctl decodes (identity, lengths, temperature,
#     voltage, per-lane bias, Tx and Rx power, the module's thresholds and
#     flags) equals what `ethtool -m` prints for the same module, to the
#     digits ethtool prints; FEC mode and statistics (totals, per lane)
#     equal `ethtool --json -I --show-fec`;
#  2. a changed value changes the verdict as docs/optics.md says: a QSFP28
#     lane to low warning (marginal), to low alarm (failing, --optics exit
#     1), a lane lost; a CMIS module at its temperature high warning; an
#     SFP's bias past its high alarm; and ethtool shows the same flags;
#  3. over a window: a pre-FEC BER above the RS(544,514) limit and within
#     a decade of it, uncorrectable blocks, a flap; `status --prom` parses
#     with the Prometheus client's own parser (python3-prometheus-client).
# Not compared (ethtool 6.1 departs from the specifications, docs/optics.md):
# CMIS per-lane flags, CMIS bias multipliers, SFF-8472 external Rx
# calibration -- the unit tests check those against the specifications.
# Runs inside the VM (tests/vm/run-tests tests/vm/one-vm/33-optics.sh).
set -eu
. "$(dirname "$0")/../../lib/common.sh"
. "$(dirname "$0")/../lib.sh"
vm_need
need_cmd ethtool jq
/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null ||
	skip "python3-prometheus-client not installed (scripts/install-deps)"
need_fabricctl
tmpdir_with_cleanup optics

cleanup_hook() {
	grep -q '^optest ' /proc/modules && rmmod optest
}

# The module and the image writer are built on the host by
# tests/vm/optest/build (the VM has no network to fetch headers).
KO=$TOP/tests/vm/optest/out/$(uname -r)/optest.ko
OPTIMG=$TOP/build/rel/optimg
[ -f "$KO" ] && [ -x "$OPTIMG" ] ||
	fail "optest.ko for $(uname -r) or optimg not built: run tests/vm/optest/build on the host first"
grep -q '^optest ' /proc/modules && run rmmod optest
run insmod "$KO"
mountpoint -q /sys/kernel/debug || run mount -t debugfs none /sys/kernel/debug
D=/sys/kernel/debug/optest

plug() { # KIND: write the spec-built image into opt$KIND's module
	pretty "optimg $1 > $D/opt$1/eeprom"
	"$OPTIMG" "$1" >"$D/opt$1/eeprom"
}
for k in sfp qsfp cmis; do
	plug "$k"
	run ip link set "opt$k" up
done

# poke IF OFFSET HEX...: write bytes into the module's memory (optest.c's layout:
# lower page at 0, upper half of bank B page P at 128 + (B * 256 + P) * 128,
# SFF-8472 A2h at 131200).
poke() {
	local f=$D/$1/eeprom off=$2 b bytes=""
	shift 2
	pretty "poke $f @$off: $*"
	for b in "$@"; do bytes="$bytes\\x$b"; done
	printf "$bytes" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}
A2=131200
up() { echo $((128 + ($1 * 256 + $2) * 128 + $3 - 128)); }	# BANK PAGE OFFSET
# be16 VALUE: the two bytes of a big-endian field
be16() { printf '%02x %02x' $(($1 >> 8 & 255)) $(($1 & 255)); }
# cksum_sfp: A2h's CC_DMI (byte 95) after a change
cksum_sfp() {
	local s
	s=$(dd if="$D/optsfp/eeprom" bs=1 skip=$A2 count=95 status=none | od -An -tu1 -v |
		awk '{ for (i = 1; i <= NF; i++) s += $i } END { print s % 256 }')
	poke optsfp $((A2 + 95)) "$(printf '%02x' "$s")"
}

status_json() { # IF...: fabricctl -j status into $TMP/st.json
	fab -j status "$@"
	[ "$rc" = 0 ] || fail "status -j exited $rc"
	cp "$TMP/out" "$TMP/st.json"
}
mod() { # IF JQ: a field of IF's module entry
	jq -r --arg i "$1" ".modules[] | select(.ifname == \$i) | $2" "$TMP/st.json"
}
# verdict IF CODE: "HEALTH LANE-OF-CODE HINT" in one jq (processes are slow in the VM)
verdict() {
	jq -r --arg i "$1" --arg c "$2" '.modules[] | select(.ifname == $i) | .verdict |
		"\(.health) \([.findings[] | select(.code == $c) | .lane // 0][0]) \(.hint)"' "$TMP/st.json"
}
# ethval FILE LABEL: the value ethtool prints for LABEL (runs of blanks in labels as one)
ethval() {
	awk -v l="$2" '{
		i = index($0, " : "); if (!i) next
		k = substr($0, 1, i - 1); gsub(/^[ \t]+|[ \t]+$/, "", k); gsub(/ +/, " ", k)
		if (k == l) { print substr($0, i + 3); exit }
	}' "$1"
}

# compare IF KIND: `ethtool -m IF` against fabricctl's JSON ($TMP/st.json), every
# field ethtool prints for this kind of module that fabricctl decodes: text
# exactly, numbers to the digits ethtool prints.  One jq does it all (the VM
# is slow at starting processes).
compare() {
	run ethtool -m "$1" >"$TMP/m.$1" || fail "ethtool -m $1 failed"
	jq -n -r --rawfile eth "$TMP/m.$1" --slurpfile st "$TMP/st.json" --arg ifn "$1" \
		--arg kind "$2" '
	def lv: [["high_alarm", "high alarm"], ["low_alarm", "low alarm"],
		 ["high_warning", "high warning"], ["low_warning", "low warning"]];
	def onoff($a; $k): if (($a // []) | index($k)) then "On" else "Off" end;
	def lanes($m; $rx):
		range(0; $m.lanes | length) as $i | $m.lanes[$i] as $l | "Channel \($i + 1)" as $c |
		["Laser tx bias current (\($c))", $l.bias_ma, 3],
		["Transmit avg optical power (\($c))", $l.tx_power_mw, 4],
		["\($rx)(\($c))", $l.rx_power_mw, 4];
	def lane_flags($m):
		range(0; $m.lanes | length) as $i | $m.lanes[$i] as $l | lv[] as [$k, $n] |
		["Laser bias current \($n) (Chan \($i + 1))", onoff($l.bias_flags; $k), "s"],
		["Laser tx power \($n) (Channel \($i + 1))", onoff($l.tx_power_flags; $k), "s"],
		["Laser rx power \($n) (Channel \($i + 1))", onoff($l.rx_power_flags; $k), "s"];
	def hex2: [., 16] | "0x" + ("0123456789abcdef"[(.[0] / 16 | floor):(.[0] / 16 | floor) + 1]) +
		("0123456789abcdef"[(.[0] % 16):(.[0] % 16) + 1]);
	def want($m):
		["Identifier", ($m.id | hex2), "x"],
		["Vendor name", $m.vendor, "s"], ["Vendor PN", $m.pn, "s"], ["Vendor rev", $m.rev, "s"],
		["Vendor SN", $m.sn, "s"], ["Date code", $m.date, "s"], ["Vendor OUI", $m.oui, "s"],
		["Module temperature", $m.temperature_c, 2], ["Module voltage", $m.voltage_v, 4],
		(lv[] as [$k, $n] |
			["Module temperature \($n)", onoff($m.temperature_flags; $k), "s"],
			["Module voltage \($n)", onoff($m.voltage_flags; $k), "s"],
			["Laser bias current \($n) threshold", $m.thresholds.bias_ma[$k], 3],
			["Laser output power \($n) threshold", $m.thresholds.tx_power_mw[$k], 4],
			["Module temperature \($n) threshold", $m.thresholds.temperature_c[$k], 2],
			["Module voltage \($n) threshold", $m.thresholds.voltage_v[$k], 4],
			["Laser rx power \($n) threshold", $m.thresholds.rx_power_mw[$k], 4]),
		(if $kind == "sfp" then
			["Length (OM3)", $m.length_m.om3, 0], ["Length (50um)", $m.length_m.om2, 0],
			["Length (62.5um)", $m.length_m.om1, 0], ["Laser wavelength", $m.wavelength_nm, 0],
			["Laser bias current", $m.lanes[0].bias_ma, 3],
			["Laser output power", $m.lanes[0].tx_power_mw, 4],
			["Receiver signal average optical power", $m.lanes[0].rx_power_mw, 4],
			(lv[] as [$k, $n] |
				["Laser bias current \($n)", onoff($m.lanes[0].bias_flags; $k), "s"],
				["Laser output power \($n)", onoff($m.lanes[0].tx_power_flags; $k), "s"],
				["Laser rx power \($n)", onoff($m.lanes[0].rx_power_flags; $k), "s"])
		elif $kind == "qsfp" then
			["Length (OM3 50um)", $m.length_m.om3, 0], ["Laser wavelength", $m.wavelength_nm, 3],
			lanes($m; "Rcvr signal avg optical power"), lane_flags($m)
		else
			["Length (OM4)", $m.length_m.om4, 0], ["Length (OM3 50/125um)", $m.length_m.om3, 0],
			["Laser wavelength", $m.wavelength_nm, 3],
			["Module State", "0x03 (\($m.state))", "s"],
			["Revision compliance", "Rev. \($m.spec_rev | ltrimstr("CMIS "))", "s"],
			lanes($m; "Rcvr signal avg optical power ")
		end);
	($eth | split("\n") | map(select(index(" : ")) | index(" : ") as $i |
		{key: (.[0:$i] | gsub("^[ \t]+|[ \t]+$"; "") | gsub(" +"; " ")), value: .[$i + 3:]}) |
		from_entries) as $e |
	($st[0].modules[] | select(.ifname == $ifn) | .module) as $m |
	[want($m) as [$lbl, $v, $d] | $e[$lbl] as $got |
		if $got == null then "\($ifn): ethtool -m printed no \"\($lbl)\""
		elif $d == "s" then (if $got == $v then empty else
			"\($ifn): \($lbl): ethtool \"\($got)\", fabricctl \"\($v)\"" end)
		elif $d == "x" then (if ($got | .[0:4]) == $v then empty else
			"\($ifn): \($lbl): ethtool \"\($got)\", fabricctl \($v)" end)
		elif $v == null then "\($ifn): \($lbl): ethtool \"\($got)\", fabricctl null"
		else ($got | split(" ")[0] | sub("[a-zA-Z%]+$"; "") | tonumber) as $g |
			if (($g - $v) | fabs) <= 0.5 * pow(10; -$d) + 1e-9 then empty else
			"\($ifn): \($lbl): ethtool \"\($got)\", fabricctl \($v)" end
		end] as $bad |
	($bad[] | "FAIL: " + .), "  \($ifn): \([want($m)] | length - ($bad | length)) fields equal to ethtool -m"
	' >"$TMP/cmp.$1" || fail "$1: the comparison did not run"
	cat "$TMP/cmp.$1" >&2
	! grep -q '^FAIL' "$TMP/cmp.$1" || fail "$1: fabricctl and ethtool -m differ (above)"
}

compare_fec() { # IF: ethtool --show-fec and fabricctl agree (counters held still)
	run ethtool --json -I --show-fec "$1" >"$TMP/fec.$1"
	jq -n -r --slurpfile e "$TMP/fec.$1" --slurpfile st "$TMP/st.json" --arg ifn "$1" '
		($st[0].modules[] | select(.ifname == $ifn) | .link.fec) as $f | $e[0][0] as $t |
		if $t.active[0] != $f.active then "FAIL: active \($t.active) \($f.active)" else empty end,
		(["corrected_blocks", "uncorrectable_blocks", "corrected_bits"][] as $c |
		 if $t.statistics[$c].total != $f[$c].total or ($t.statistics[$c].lanes // []) != $f[$c].lanes
		 then "FAIL: \($c): ethtool \($t.statistics[$c]), fabricctl \($f[$c])" else empty end),
		"  \($ifn): FEC \($f.active), \($f.corrected_blocks.total) corrected, \($f.uncorrectable_blocks.total) uncorrectable blocks, \($f.corrected_bits.total) bits, as ethtool"
	' >"$TMP/fcmp.$1"
	cat "$TMP/fcmp.$1" >&2
	! grep -q '^FAIL' "$TMP/fcmp.$1" || fail "$1: FEC differs from ethtool --show-fec"
}

# --- 1. every field, healthy modules ---------------------------------------
status_json optsfp optqsfp optcmis
for k in sfp qsfp cmis; do compare "opt$k" "$k"; done
assert_eq "verdicts" "healthy healthy healthy" "$(jq -r '[.modules[].verdict.health] | join(" ")' "$TMP/st.json")"
for k in sfp qsfp cmis; do
	echo 1234 >"$D/opt$k/corrected_blocks"
	echo 7 >"$D/opt$k/uncorrectable_blocks"
	echo 987654 >"$D/opt$k/corrected_bits"
done
status_json optsfp optqsfp optcmis
for k in sfp qsfp cmis; do compare_fec "opt$k"; done
assert_eq "optcmis speed, lanes" "400000 8" "$(mod optcmis '"\(.link.speed_mbps) \(.link.lanes)"')"

# The worker's "optics" op carries the same pages raw (for diagnose and accept)
pretty "fabricctl worker <<< optics [optcmis]"
echo '{"v":1,"id":1,"op":"optics","ifnames":["optcmis"]}' | "$FABRICCTL" worker >"$TMP/w.json"
assert_eq "worker optics: pages, speed, first page" "5 400000 18" "$(jq -r '.result.ports[0] |
	"\(.module.pages | length) \(.link.speed_mbps) \(.module.pages[0].data[0:2])"' "$TMP/w.json")"

# --- 2. a changed value changes the verdict --------------------------------
# QSFP28 lane 2 Rx 0.07 mW, below its low warning (0.0871), flag set (byte 9 bit 0)
poke optqsfp 36 $(be16 700)
poke optqsfp 9 01
status_json optqsfp
compare optqsfp qsfp
assert_eq "lane 2 at low warning" "marginal 2 inspect and clean the connectors at both ends" \
	"$(verdict optqsfp rx_power_low_warning)"
assert_eq "ethtool flag" On "$(ethval "$TMP/m.optqsfp" "Laser rx power low warning (Channel 2)")"
# to 0.03 mW, below the low alarm (0.0437), alarm flag too: failing, status --optics exits 1
poke optqsfp 36 $(be16 300)
poke optqsfp 9 05
status_json optqsfp
assert_eq "lane 2 at low alarm" "failing 2 inspect and clean the connectors at both ends" \
	"$(verdict optqsfp rx_power_low_alarm)"
expect_rc 1 "$FABRICCTL" status --optics optqsfp
# lose lane 3: no light, loss of signal (byte 3 bit 2)
plug qsfp
poke optqsfp 38 00 00
poke optqsfp 3 04
status_json optqsfp
assert_eq "lane 3 lost" "failing 3 inspect and clean the connectors at both ends" \
	"$(verdict optqsfp lane_lost)"
plug qsfp

# CMIS: temperature 72 C, past its high warning (70), flag (lower byte 9 bit 2)
poke optcmis 14 $(be16 $((72 * 256)))
poke optcmis 9 04
status_json optcmis
compare optcmis cmis
assert_eq "cmis temperature warning" "marginal 0 check airflow, then replace the optic" \
	"$(verdict optcmis temperature_high_warning)"
assert_eq "ethtool flag" On "$(ethval "$TMP/m.optcmis" "Module temperature high warning")"
plug cmis

# SFP: bias 13 mA, past its high alarm (12), alarm flag (A2h 112 bit 3)
poke optsfp $((A2 + 100)) $(be16 6500)
poke optsfp $((A2 + 112)) 08
cksum_sfp
status_json optsfp
compare optsfp sfp
assert_eq "sfp bias alarm" "failing 1 replace the optic" "$(verdict optsfp bias_high_alarm)"
assert_eq "ethtool flag" On "$(ethval "$TMP/m.optsfp" "Laser bias current high alarm")"
plug sfp

# --- 3. over a window: BER, uncorrectable blocks, a flap -------------------
# 400G: 4e11 bits/s; 1.2e8 corrected bits/s = 3e-4 > 2.4e-4 (RS(544,514))
echo 120000000 >"$D/optcmis/corrected_bits_rate"
echo 1 >"$D/optqsfp/uncorrectable_blocks_rate"
fab -j status --window 2 optcmis optqsfp optsfp &
sleep 0.5
echo 0 >"$D/optsfp/carrier"
echo 1 >"$D/optsfp/carrier"
wait $! || true
cp "$TMP/out" "$TMP/st.json"
assert_eq "cmis BER" "failing 0 RS(544,514) true" "$(mod optcmis \
	'"\(.verdict.health) \(.verdict.findings[0].lane // 0) \(.verdict.fec_code) \(.verdict.pre_fec_ber > 2.4e-4 and .verdict.pre_fec_ber < 3.6e-4)"')"
assert_eq "qsfp uncorrectable" "failing 0 inspect and clean the connectors at both ends" \
	"$(verdict optqsfp fec_uncorrectable)"
assert_eq "sfp flap" "marginal 1" "$(mod optsfp '"\(.verdict.health) \(.verdict.flaps)"')"
# Prometheus: the client's own parser reads every family; values as in the JSON
run "$FABRICCTL" status --prom "$TMP/optics.prom" optcmis optqsfp optsfp
/usr/bin/python3 - "$TMP/optics.prom" <<'EOF'
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
def val(name, **lab):
    got = [s.value for f in fams.values() for s in f.samples
           if s.name == name and all(s.labels.get(k) == v for k, v in lab.items())]
    assert len(got) == 1, (name, lab, got)
    return got[0]
assert abs(val("fabricctl_module_rx_power_dbm", ifname="optqsfp", lane="1") - -0.9691) < 1e-3
assert val("fabricctl_module_bias_milliamperes", ifname="optcmis", lane="8") == 8.7
assert val("fabricctl_module_temperature_celsius", ifname="optsfp") == 41.5
assert val("fabricctl_module_health", ifname="optcmis") == 0
assert val("fabricctl_link_fec_uncorrectable_blocks_total", ifname="optqsfp") >= 7
n = sum(len(f.samples) for f in fams.values())
assert len(fams) == 16 and n > 100, (len(fams), n)
print("  ok: Prometheus: %d families, %d samples parse with prometheus_client" % (len(fams), n),
      file=sys.stderr)
EOF
# within a decade of the limit: 2e7 bits/s = 5e-5
echo 20000000 >"$D/optcmis/corrected_bits_rate"
status_json --window 1 optcmis
assert_eq "cmis BER marginal" marginal "$(mod optcmis .verdict.health)"
echo "optics: ok"
