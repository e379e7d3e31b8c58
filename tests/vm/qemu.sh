# shellcheck shell=bash
# Host-side helpers for tests/vm/run, run-tests and pair (sourced).
# One VM = one qemu process under TCG with the host's / shared read-only
# over 9p (tag fabroot) and a per-VM output directory shared rw (fabout),
# see tests/vm/initramfs for what happens inside.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_TOP=$(cd "$VM_DIR/../.." && pwd)
QEMU=${QEMU:-qemu-system-x86_64}

vm_log() { printf '\033[32m+ %s\033[0m\n' "$*" >&2 || true; }
vm_run() { vm_log "$*"; "$@"; }
vm_die() { printf '%s: %s\n' "${0##*/}" "$*" >&2; exit 3; }

# Single-quote each argument for dash.
vm_quote() {
	local a out=
	for a in "$@"; do
		out="$out '${a//\'/\'\\\'\'}'"
	done
	printf '%s' "${out# }"
}

vm_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# vm_prepare: kernel + initramfs (cached); sets VM_KVER VM_KERNEL VM_MODROOT VM_INITRD.
vm_prepare() {
	local t0 t1 t2
	command -v "$QEMU" >/dev/null || vm_die "$QEMU not installed (qemu-system-x86)"
	t0=$(vm_ms)
	eval "$("$VM_DIR/kernel" | grep -E '^VM_[A-Z]+=')"
	t1=$(vm_ms)
	eval "$("$VM_DIR/initramfs" "$VM_MODROOT" "$VM_KVER" | grep -E '^VM_[A-Z]+=')"
	t2=$(vm_ms)
	[ -n "${VM_KERNEL:-}" ] && [ -n "${VM_INITRD:-}" ] || vm_die "kernel/initramfs preparation failed"
	printf 'vm: kernel %s (%sms), initramfs (%sms)\n' "$VM_KVER" $((t1 - t0)) $((t2 - t1)) >&2
}

# vm_env_lines: "export VAR='value'" for the host variables the VM should
# see: FABRICCTL and every name in $VM_ENV that is set.
vm_env_lines() {
	local v
	for v in FABRICCTL ${VM_ENV:-}; do
		[ -n "${!v+x}" ] || continue
		printf 'export %s=%s\n' "$v" "$(vm_quote "${!v}")"
	done
}

# vm_cmd_file OUTDIR CMD...: write the command the VM runs (dash, cwd = repo root).
vm_cmd_file() {
	local out=$1
	shift
	{
		vm_env_lines
		printf 'cd %s || exit 125\n' "$(vm_quote "$VM_TOP")"
		printf 'exec %s\n' "$(vm_quote "$@")"
	} >"$out/cmd"
}

# vm_qemu_argv NAME OUTDIR SMP MEM [EXTRA...]: fills array VM_ARGV.
vm_qemu_argv() {
	local name=$1 out=$2 smp=$3 mem=$4 accel=tcg
	shift 4
	[ "$smp" -gt 1 ] && accel=tcg,thread=multi
	VM_ARGV=("$QEMU" -name "$name" -accel "$accel" -M q35 -cpu max -smp "$smp" -m "$mem"
		-nodefaults -no-user-config -display none -no-reboot
		-chardev stdio,id=con,signal=off -serial chardev:con
		-kernel "$VM_KERNEL" -initrd "$VM_INITRD"
		-append "console=ttyS0 quiet panic=-1 mitigations=off fabvm.moddir=$VM_MODROOT fabvm.name=$name ${VM_APPEND:-}"
		-virtfs "local,path=/,mount_tag=fabroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$out,mount_tag=fabout,security_model=none,multidevs=remap"
		-device virtio-rng-pci
		"$@")
}

# vm_status OUTDIR TIMEDOUT(0/1) QEMU_RC: the command's exit status.
#   rc file written by the VM -> that; hard timeout -> 124; else 125.
vm_status() {
	if [ -s "$1/rc" ]; then
		cat "$1/rc"
	elif [ "$2" = 1 ]; then
		echo 124
	else
		echo 125
	fi
}

# vm_start NAME OUTDIR SMP MEM TIMEOUT_S [EXTRA QEMU ARGS...]: start a VM in
# the background under `timeout`, console on our stdout (with VM_PREFIX:
# each line prefixed, and a copy appended to VM_CONSOLE_LOG).  Sets VM_PID and
# records it for vm_kill_all (call that from the caller's EXIT trap).
VM_PIDS=()
vm_start() {
	local name=$1 out=$2 smp=$3 mem=$4 tmo=$5
	shift 5
	vm_qemu_argv "$name" "$out" "$smp" "$mem" "$@"
	vm_log "${VM_ARGV[*]}"
	if [ -n "${VM_PREFIX:-}" ]; then
		# Console prefixed (tests/vm/pair runs two VMs on one stdout) and saved.
		timeout -k 5 "$tmo" "${VM_ARGV[@]}" </dev/null 2>&1 \
			> >(tee -a "${VM_CONSOLE_LOG:-/dev/null}" | sed -u "s/^/$VM_PREFIX/") &
	else
		timeout -k 5 "$tmo" "${VM_ARGV[@]}" </dev/null &
	fi
	VM_PID=$!
	VM_PIDS+=("$VM_PID")
}

# vm_wait PID: wait for a VM; sets VM_RC to qemu's exit status (124: timeout).
vm_wait() {
	VM_RC=0
	wait "$1" || VM_RC=$?
}

vm_kill_all() {
	local p killed=
	for p in "${VM_PIDS[@]}"; do
		if kill -0 "$p" 2>/dev/null; then
			vm_log "kill $p (VM still running)"
			kill "$p" 2>/dev/null || true
			killed=1
		fi
	done
	[ -z "$killed" ] && return 0
	sleep 1
	for p in "${VM_PIDS[@]}"; do
		pkill -9 -P "$p" 2>/dev/null || true
		kill -9 "$p" 2>/dev/null || true
	done
}
