#!/bin/bash
# Issue 35's contract in compiled code: the snapshot loops load each slot
# cell once.  In the vector loops of sum_slots() (lib/snapshot.c, every
# group size, with and without rows), no memory operand is loaded into a
# vector register twice with the same base and index registers unchanged
# in between: GCC 12 -O2 once loaded cells j, j+1 of a source twice, for
# the row and for the sum, and a writer's store between the two loads left
# a torn full snapshot.  Positive control: the detector finds a duplicated
# load planted in a copy of the listing.
set -euo pipefail
top_builddir=${top_builddir:-.}
STYLE_NAME=once_loads
. "${top_srcdir:-$(dirname "$0")/../..}/tests/style/lib.sh"
lib=$top_builddir/lib/.libs/libstatctr.so

command -v objdump >/dev/null || skip "objdump not found (Debian: apt-get install binutils)"
command -v python3 >/dev/null || skip "python3 not found"
[ -f "$lib" ] || fail "$lib not built"
if [ "${SANITIZER:-none}" != none ]; then
	echo "note: $SANITIZER build: its instrumented loops are not what users get; checked in plain builds"
	exit 0
fi

listing=$(mktemp)
trap 'rm -f "$listing" "$listing.planted"' EXIT
objdump -d --no-show-raw-insn --disassemble=sum_slots "$lib" >"$listing"
[ "$(grep -c 'movdqu\|movups\|ldr\s*q' "$listing")" -gt 20 ] ||
	fail "sum_slots has no vector loop in $lib"

# dup_loads FILE: each pair of indexed vector loads (cells, not the source
# pointers) of one address in one straight run of instructions, whose
# registers were not written between them.
dup_loads() {
	python3 - "$1" <<'PY'
import re, sys
regs = re.compile(r'%([re]?[a-z0-9]+)')
def canon(r):
    r = {'eax': 'rax', 'ebx': 'rbx', 'ecx': 'rcx', 'edx': 'rdx', 'esi': 'rsi',
         'edi': 'rdi', 'ebp': 'rbp', 'esp': 'rsp'}.get(r, r)
    return re.sub(r'[dwb]$', '', r) if re.match(r'r[0-9]+[dwb]$', r) else r
defs, seen = {}, {}
for n, line in enumerate(open(sys.argv[1])):
    parts = line.rstrip('\n').split('\t')
    if len(parts) < 2 or not re.match(r'\s*[0-9a-f]+:', parts[0]):
        continue
    ins = parts[1].split(None, 1)
    op, ops = ins[0], ins[1] if len(ins) > 1 else ''
    if op.startswith(('call', 'ret', 'j')):
        seen.clear()  # another path: compare loads within a straight run
        continue
    m = re.match(r'(\S*\(%\w+,%\w+.*\)),%xmm\d+$', ops)  # indexed: a cell
    if op in ('movdqu', 'movdqa', 'movups', 'movaps', 'movq') and m:
        key = (m.group(1), tuple(defs.get(canon(r), -1) for r in regs.findall(m.group(1))))
        if key in seen:
            print('%s | %s' % (seen[key][1], line.strip()))
        seen[key] = (n, line.strip())
    if ',' in ops:
        dst = regs.match(ops.rsplit(',', 1)[1].strip())
        if dst:
            defs[canon(dst.group(1))] = n
PY
}

found=$(dup_loads "$listing")
[ -z "$found" ] || fail "sum_slots loads a cell twice:"$'\n'"$found"
# Positive control: a second load of the first source load's address.
awk '{ print } /movdqu \(%r[a-z0-9]+,%r[a-z0-9]+(,8)?\),%xmm/ && !done { sub(/%xmm[0-9]+$/, "%xmm15"); print; done = 1 }' \
	"$listing" >"$listing.planted"
[ -n "$(dup_loads "$listing.planted")" ] ||
	fail "the detector missed a planted duplicate load"
echo "PASS: once_loads: sum_slots loads each cell once ($(grep -c 'movdqu' "$listing") vector loads)"
