# shellcheck shell=bash
# disasm.sh - functions of a compiled program, for the contract checks on
# the inline fast paths (hist_nolock.sh, cpu_nolock.sh).  Source it with
# $bin naming the program and, optionally, CLOSURE_SKIP listing the
# out-of-line functions closure() does not follow.

# insns NAME: the instructions of function NAME, "ADDRESS<TAB>TEXT".
insns() {
	objdump -d --no-show-raw-insn --disassemble="$1" "$bin" |
		awk -F'\t' '/^ *[0-9a-f]+:\t/ { sub(/^ */, "", $1); sub(/:$/, "", $1); print $1 "\t" $2 }'
}

# closure NAME: NAME and every function it calls or tail-calls,
# transitively, but those in CLOSURE_SKIP.
closure() {
	local todo=("$1") seen=" " f callee
	while [ "${#todo[@]}" -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		case $seen in *" $f "*) continue ;; esac
		seen="$seen$f "
		echo "$f"
		for callee in $(insns "$f" | sed -n 's/.*\(call\|jmp\) *[0-9a-f]* <\([^>+]*\)>$/\2/p' | sort -u); do
			case " ${CLOSURE_SKIP:-} " in *" $callee "*) ;; *) todo+=("$callee") ;; esac
		done
	done
}

# locked FUNCTIONS...: their lock-prefixed and xchg instructions (the
# 2-byte nop "xchg %ax,%ax" aside).
locked() {
	local f
	for f in "$@"; do
		insns "$f" | awk -F'\t' -v f="$f" \
			'$2 ~ /^lock / || ($2 ~ /^xchg/ && $2 !~ /^xchg +%ax,%ax$/) { print f ": " $1 ": " $2 }'
	done
}
