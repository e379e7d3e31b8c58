# bash completion for fabricctl                              -*- shell-script -*-
# Commands and their options come from the binary itself (`fabricctl help`
# and `fabricctl help COMMAND`), so they cannot drift from what it accepts.
# Installed by `make install` to $(PREFIX)/share/bash-completion/completions.

_fabricctl_cmds() {
	"$1" help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && NF { print $1 }'
}

_fabricctl_opts() { # BIN CMD: every --long option of CMD's synopsis
	"$1" help "$2" 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}

_fabricctl() {
	local cur prev bin=${COMP_WORDS[0]} cmd="" i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--json --pretty --verbose --root --version --help" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_fabricctl_cmds "$bin")" -- "$cur"))
		fi
		return
	fi
	case $prev in
	--hosts | --pairs | --prom | --expect | --save-plan | --load-cache | --ssh-config | \
	--baseline | --from | --policy | --plan | --profile | --csv | --html | -o)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--topology)
		COMPREPLY=($(compgen -W "lldp ib" -- "$cur") $(compgen -f -- "$cur"))
		return ;;
	--launcher)
		COMPREPLY=($(compgen -W "ssh srun kubectl netns collective:" -- "$cur"))
		return ;;
	--transport)
		COMPREPLY=($(compgen -W "tcp verbs" -- "$cur"))
		return ;;
	--checks)
		COMPREPLY=($(compgen -W "all none routes credit-loops balance ids sm" -- "$cur"))
		return ;;
	--format)
		COMPREPLY=($(compgen -W "text json dot ibnetdiscover csv" -- "$cur"))
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_fabricctl_opts "$bin" "$cmd") --help" -- "$cur"))
		return
	fi
	case $cmd in
	status) COMPREPLY=($(compgen -W "$(ls /sys/class/net /sys/class/infiniband 2>/dev/null)" -- "$cur")) ;;
	help) COMPREPLY=($(compgen -W "$(_fabricctl_cmds "$bin")" -- "$cur")) ;;
	apply | verify | report | diagnose) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -F _fabricctl fabricctl
