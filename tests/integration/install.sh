#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# make install puts the binary, the man pages, the shipped profiles and
# examples (where the man pages point) and the bash completion in place.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_fabricctl
tmpdir_with_cleanup
run make -s -C "$TOP" install DESTDIR="$TMP/root" PREFIX=/usr
for f in usr/sbin/fabricctl usr/share/man/man8/fabricctl.8 usr/share/man/man5/fabricctl-profile.5 \
	 usr/share/fabricctl/profiles/roce-lossless.yaml usr/share/fabricctl/examples/sweep.sbatch \
	 usr/share/bash-completion/completions/fabricctl; do
	[ -f "$TMP/root/$f" ] || fail "make install did not install /$f"
	printf '  ok: /%s\n' "$f" >&2
done
"$TMP/root/usr/sbin/fabricctl" verify --help >/dev/null 2>&1 || true
grep -q 'share/fabricctl/profiles' "$TOP/man/fabricctl.8" || fail "fabricctl(8) does not say where the profiles are installed"
echo "install: ok"
