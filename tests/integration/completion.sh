#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# Bash completion: source completion/fabricctl.bash in bash and complete a
# few words the way bash would (COMP_WORDS/COMP_CWORD, then COMPREPLY).
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_fabricctl
# shellcheck source=../../completion/fabricctl.bash
. "$TOP/completion/fabricctl.bash"

complete_words() { # WORD...: the last one is being completed
	COMP_WORDS=("$FABRICCTL" "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_fabricctl
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

assert_eq "commands after 'sw'" "sweep" "$(complete_words sw)"
assert_eq "commands after 'st'" "status" "$(complete_words st)"
assert_eq "global options after '--ve'" "--verbose --version" "$(complete_words --ve)"
assert_eq "sweep options after '--ho'" "--hosts" "$(complete_words sweep --ho)"
assert_eq "discover options after '--no-'" "--no-counters --no-optics" "$(complete_words discover --no-)"
assert_eq "discover --format values" "ibnetdiscover" "$(complete_words discover --format i)"
assert_eq "sweep --transport values" "tcp verbs" "$(complete_words sweep --transport '')"
assert_eq "help COMMAND" "verify" "$(complete_words help ve)"
assert_eq "status DEVICE" "lo" "$(complete_words status l | tr ' ' '\n' | grep -x lo)"
tmpdir_with_cleanup
touch "$TMP/hosts.txt"
assert_eq "a file after --hosts" "$TMP/hosts.txt" "$(complete_words sweep --hosts "$TMP/ho")"
echo "completion: ok"
