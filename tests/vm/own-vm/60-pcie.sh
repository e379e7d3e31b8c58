#!/bin/bash
# PCIe inside the node against qemu's PCIe ports and the VM kernel's own
# sysfs, ACPI NUMA and ACS handling (issue 29).  Run on the host: it boots
# its own VM (tests/vm/run --qemu ...) with
#
#   pxb-pcie pci0000:40, NUMA node 0 (socket 0):
#     pcie-root-port x-speed=8  x-width=16  virtio-net-pci (conventional PCI)  NIC A
#     pcie-root-port x-speed=5  x-width=4   e1000 (conventional PCI)           NIC B
#     pcie-root-port x-speed=16 x-width=8   e1000e (a PCIe x1 2.5GT/s endpoint) NIC C
#     pcie-root-port                        bochs-display (class 0x0380): the GPU
#   pxb-pcie pci0000:80, NUMA node 1 (socket 1):
#     pcie-root-port x-speed=16 x-width=16  e1000                                NIC D
#   intel-iommu, kernel intel_iommu=on iommu=pt
#
# and re-runs itself inside it.  What qemu 7.2 gives: a root port's link
# status is its x-speed/x-width when the function below is conventional
# PCI, and the endpoint's own x1 2.5GT/s when it is PCIe (so the
# configured current link is read on NICs A, B, D, the slot's maximum on
# C).  pcie-root-port has an ACS capability (cap 0x005f); ioh3420 and the
# xio3130 switch ports have none, so ACS on a switch is tested on the
# fixture (tests/unit/test_pcie_read.c), not here.  With the IOMMU on, the
# kernel itself turns ACS on at every root port (ctl 0x001d: SV RR CR UF).
set -eu
. "$(dirname "$0")/../../lib/common.sh"

if [ "${FABVM:-}" != 1 ]; then
	need_cmd qemu-system-x86_64
	need_fabricctl
	Q=()
	for a in -device intel-iommu \
		-smp 2,sockets=2,cores=1,threads=1 \
		-object memory-backend-ram,id=m0,size=384M -object memory-backend-ram,id=m1,size=384M \
		-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
		-device pxb-pcie,id=pxb0,bus_nr=0x40,numa_node=0,bus=pcie.0,addr=0x10 \
		-device pxb-pcie,id=pxb1,bus_nr=0x80,numa_node=1,bus=pcie.0,addr=0x11 \
		-device pcie-root-port,id=rpa,chassis=1,bus=pxb0,addr=0x0,x-speed=8,x-width=16 \
		-device virtio-net-pci,bus=rpa,mac=52:54:00:fa:29:0a,x-disable-pcie=on \
		-device pcie-root-port,id=rpb,chassis=2,bus=pxb0,addr=0x1,x-speed=5,x-width=4 \
		-device e1000,bus=rpb,mac=52:54:00:fa:29:0b \
		-device pcie-root-port,id=rpc,chassis=3,bus=pxb0,addr=0x2,x-speed=16,x-width=8 \
		-device e1000e,bus=rpc,mac=52:54:00:fa:29:0c \
		-device pcie-root-port,id=rpg,chassis=4,bus=pxb0,addr=0x3 \
		-device bochs-display,bus=rpg,romfile= \
		-device pcie-root-port,id=rpd,chassis=5,bus=pxb1,addr=0x0,x-speed=16,x-width=16 \
		-device e1000,bus=rpd,mac=52:54:00:fa:29:0d; do
		Q+=(--qemu "$a")
	done
	export VM_APPEND="${VM_APPEND:-} intel_iommu=on iommu=pt"
	exec "$TOP/tests/vm/run" --smp 2 --mem 768 --timeout 300 "${Q[@]}" -- \
		"$(realpath "$0")"
fi

. "$TOP/tests/vm/lib.sh"
vm_need
need_cmd jq od dd
need_fabricctl
vm_modprobe e1000
vm_modprobe e1000e

# nic MAC: the netdev with that address (the kernel names them in probe order).
nic() {
	local i
	for i in /sys/class/net/*; do
		[ "$(cat "$i/address")" = "$1" ] && { basename "$i"; return 0; }
	done
	return 1
}
for m in 0a 0b 0c 0d; do
	vm_wait_for "the NIC with address 52:54:00:fa:29:$m" 20 nic "52:54:00:fa:29:$m"
done
A=$(nic 52:54:00:fa:29:0a)
B=$(nic 52:54:00:fa:29:0b)
C=$(nic 52:54:00:fa:29:0c)
D=$(nic 52:54:00:fa:29:0d)
echo "nics: A=$A B=$B C=$C D=$D" >&2

# Few processes: each costs a lot under TCG.  status -j flattened once
# into S[path]=value ("nics.2.link.width"); X[name] is the NIC's index.
js=/tmp/pcie.$$.json
run "$FABRICCTL" status -j >"$js"
"$FABRICCTL" status >&2
declare -A S X
# (files, not <(...): the VM has no /dev/fd)
jq -r '.pcie | paths(type != "object" and type != "array") as $p | "\($p | map(tostring) | join("."))=\(getpath($p))"' \
	"$js" >"$js.flat"
while IFS= read -r line; do
	S[${line%%=*}]=${line#*=}
done <"$js.flat"
for i in 0 1 2 3; do X[${S[nics.$i.netdevs.0]}]=$i; done
v() { printf '%s' "${S[nics.${X[$1]}.$2]-(absent)}"; }
sysfs() { local x; read -r x <"$1"; printf '%s' "$x"; }

# The configured current links, read exactly.
for x in "$A:8.0:16" "$B:5.0:4" "$D:16.0:16"; do
	IFS=: read -r nd s w <<<"$x"
	assert_eq "$nd current speed" "${s%.0}" "$(v "$nd" link.speed_gts)"
	assert_eq "$nd current width" "$w" "$(v "$nd" link.width)"
	assert_eq "$nd link from its port (conventional PCI)" true "$(v "$nd" link_from_port)"
	rp=$(v "$nd" bridges.0.bdf)
	assert_eq "$nd port's sysfs speed" "$s GT/s PCIe" \
		"$(sysfs "/sys/bus/pci/devices/$rp/current_link_speed")"
	assert_eq "$nd port's sysfs width" "$w" "$(sysfs "/sys/bus/pci/devices/$rp/current_link_width")"
done
# A PCIe endpoint: its own x1 link, in an x8 16GT/s slot.
assert_eq "$C speed" 2.5 "$(v "$C" link.speed_gts)"
assert_eq "$C width" 1 "$(v "$C" link.width)"
assert_eq "$C slot max speed" 16 "$(v "$C" slot.max_speed_gts)"
assert_eq "$C slot max width" 8 "$(v "$C" slot.max_width)"
assert_eq "$C at its best (an x1 card)" false "$(v "$C" degraded)"
assert_eq "$C driver" e1000e "$(v "$C" driver)"

# NUMA and sockets from ACPI (_PXM of the pxb host bridges, SRAT).
assert_eq "numa nodes" 2 "${S[numa_nodes]}"
assert_eq "$A node" 0 "$(v "$A" numa_node)"
assert_eq "$D node" 1 "$(v "$D" numa_node)"
assert_eq "$D socket" 1 "$(v "$D" socket)"
assert_eq "$D host bridge" pci0000:80 "$(v "$D" host_bridge)"
assert_eq "one gpu" "" "${S[gpus.1.bdf]-}"
G=${S[gpus.0.bdf]}
assert_eq "gpu class" 0x038000 "${S[gpus.0.class]}"
assert_eq "gpu node" 0 "${S[gpus.0.numa_node]}"
assert_eq "$A to the gpu" host_bridge "$(v "$A" near_gpus.distance)"
assert_eq "$D to the gpu" cross_socket "$(v "$D" near_gpus.distance)"
assert_eq "$A iommu" identity "$(v "$A" iommu)"
assert_eq "gpudirect ready" false "${S[gpudirect.ready]}"

# ACS: the kernel turned it on at the root ports; compare with config space.
acs_off() { # BDF: offset of the ACS capability, walking the extended list
	local d=/sys/bus/pci/devices/$1 off=256 h
	while [ "$off" -ne 0 ]; do
		h=$(od -A n -t x4 -j "$off" -N 4 "$d/config" | tr -d ' ')
		[ "$((0x$h & 0xffff))" = 13 ] && { echo "$off"; return; }
		off=$(( (0x$h >> 20) & 0xffc ))
	done
	fail "$1: no ACS capability"
}
rpa=$(v "$A" bridges.0.bdf)
rpg=${S[gpus.0.bridges.0.bdf]}
acs=$(acs_off "$rpa")
assert_eq "$rpa type" root_port "$(v "$A" bridges.0.type)"
assert_eq "$rpa acs cap" 0x005f "$(v "$A" bridges.0.acs.cap)"
assert_eq "$rpa acs ctl = config space" \
	"0x$(od -A n -t x2 -j $((acs + 6)) -N 2 "/sys/bus/pci/devices/$rpa/config" | tr -d ' ')" \
	"$(v "$A" bridges.0.acs.ctl)"
assert_eq "$rpa acs ctl (kernel, iommu on)" 0x001d "$(v "$A" bridges.0.acs.ctl)"
assert_eq "$A path redirects at" "$rpa $rpg" \
	"$(v "$A" near_gpus.acs.p2p_redirect.0) $(v "$A" near_gpus.acs.p2p_redirect.1)"

# verify: one jq per run, R["interface field"]="wanted found".
declare -A R
verify() {
	local out=/tmp/pcie-verify.$$.json line
	expect_rc 1 sh -c "'$FABRICCTL' -j verify '$prof' >'$out'"
	R=()
	jq -r '.drift[] | "\(.interface) \(.field)=\(.wanted) \(.found)"' "$out" >"$out.flat"
	while IFS= read -r line; do
		R[${line%%=*}]=${line#*=}
	done <"$out.flat"
	rm -f "$out" "$out.flat"
}

# A NIC below the minimum is named with its figure.
prof=/tmp/pcie.$$.yaml
cat >"$prof" <<EOF
nics:
  - match: [$A, $B, $C, $D]
    pcie_width: 8
    pcie_speed: 8
  - match: [$A, $B, $C, $D]
    pcie_width: max
    pcie_speed: max
EOF
verify
assert_eq "$B width" "x8 x4" "${R[$B pcie.width]-}"
assert_eq "$B speed" "8GT/s 5GT/s" "${R[$B pcie.speed]-}"
assert_eq "$C width" "x8 x1" "${R[$C pcie.width]-}"
assert_eq "$C speed" "8GT/s 2.5GT/s" "${R[$C pcie.speed]-}"
assert_eq "drifts (nobody below its max)" 4 "${#R[@]}"

cat >"$prof" <<EOF
nics:
  - match: [$A, $B, $C, $D]
    acs: off
    numa: local
EOF
verify
assert_eq "$A acs" "off on at $rpa (ctl 0x001d) and more" "${R[$A pcie.acs]-}"
assert_eq "$D numa" "local (node 1) gpu $G on node 0" "${R[$D pcie.numa]-}"
assert_eq "$A numa" "" "${R[$A pcie.numa]-}"
assert_eq "drifts" 5 "${#R[@]}"

# ACS off at every root port (what setpci ECAP_ACS+6.w=0 does): no ACS drift.
for k in "${!S[@]}"; do
	case $k in *bridges.*.bdf) echo "${S[$k]}" ;; esac
done | sort -u >/tmp/pcie-ports.$$
while read -r bdf; do
	printf '\000\000' | dd of="/sys/bus/pci/devices/$bdf/config" bs=1 seek=$((acs + 6)) \
		conv=notrunc status=none
done </tmp/pcie-ports.$$
assert_eq "root ports cleared" 5 "$(wc -l </tmp/pcie-ports.$$)"
verify
assert_eq "drift after ACS off: the far NUMA node only" "$D pcie.numa" "${!R[*]}"
"$FABRICCTL" status | grep -F "nic $A " -A1 | grep -q "acs off on the path (2 bridges)" ||
	fail "status text does not say acs off for $A"
rm -f "$js" "$js.flat" "$prof" /tmp/pcie-ports.$$
echo "pcie vm: ok" >&2
