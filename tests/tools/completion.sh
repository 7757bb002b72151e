#!/bin/sh
# bash completion of statctl (dist/bash-completion/statctl): commands,
# per-command options, formats, and the segment, table, row and column
# names statctl prints for a live writer's segment.
. "${srcdir:-.}/tests/tools/lib.sh"
need_command bash
bc=/usr/share/bash-completion/bash_completion
[ -f "$bc" ] || skip "$bc missing (Debian: apt-get install bash-completion)"
settled_writer "stctl_compl_$$" 1 10

# complete WORDS...: what <Tab> offers after "statctl WORDS" (the last word
# being completed, "" for a new one), sorted, on one line.
complete_line() {
	bash -c '
		. "$1"; . "$2"; shift 2
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
		_statctl statctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort | tr "\n" " " | sed "s/ $//"
	' bash "$bc" "$srcdir/dist/bash-completion/statctl" "$STATCTL" "$@"
}

check "commands" "check-config diff epoch exporter-config list mib notifications reset show watch" "$(complete_line "")"
check "command prefix" "exporter-config" "$(complete_line ex)"
check "show's long options" "--any-owner --buckets --config --epoch --field --format --help --output --raw --since --slots" "$(complete_line show --)"
check "list's long options" "--any-owner --config --format --help" "$(complete_line list --)"
check "formats" "json prometheus text" "$(complete_line show -f "")"
check "exporter-config options" "-o" "$(complete_line exporter-config -o)"
check "exporter-config's long options" "--config --format --help --if-mib --output --relabel" "$(complete_line exporter-config --)"
check "the segment" "$segment" "$(complete_line show "stctl_compl_")"
check "its tables" "flowStats ifStats stages totals vfStats" "$(complete_line show "$segment" "")"
check "rows of a table, quoted for the shell" 'dp0 dp3 eth\"1 eth\\2' \
	"$(complete_line reset "$segment" ifStats "")"
check "epoch verbs" "list start" "$(complete_line epoch "")"
check "rows by prefix" 'dp0' "$(complete_line reset "$segment" ifStats dp0)"
check "columns of a table" "drops queueDepth rxOctets rxPackets speed txOctets txPackets" \
	"$(complete_line reset "$segment" ifStats dp0 "")"
check "show takes no row" "" "$(complete_line show "$segment" ifStats "")"
finish
