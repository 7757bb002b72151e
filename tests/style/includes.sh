#!/bin/bash
# No include circle (issue 39): a module (x.c with its x.h) of lib/ or agent/
# must not reach itself through the #include graph, nor, in lib/, through
# the link graph of its objects (module A uses a symbol module B defines:
# every lib/ source includes internal.h, so only the objects show who calls
# whom).  Prints every circle found (a strongly connected set of modules,
# with one path round it).  A circle fails unless KNOWN lists it, and a
# listed one that is gone fails too (take it off the list).  x_int.h, the
# internal header x.c shares with its parts (agent/aggregate_int.h), is
# module x's own.
set -euo pipefail
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
STYLE_NAME=includes
. "$top_srcdir/tests/style/lib.sh"

command -v python3 >/dev/null || skip "python3 not found (Debian: apt-get install python3)"
command -v nm >/dev/null || skip "nm not found (Debian: apt-get install binutils)"

# Circles not yet opened (one per line, the modules sorted and joined by
# spaces): none.
KNOWN=${INCLUDES_KNOWN-""}

# The link graph's edges of lib/, "A B" per line: A's object uses a symbol
# B's defines (the convenience library's objects, as make builds them).
objs=("$top_builddir"/lib/libstatctr_core_la-*.o)
[ -f "${objs[0]}" ] || fail_later "no lib/ object under $top_builddir/lib (build first)"
link_edges() {
	local o m
	for o in "${objs[@]}"; do
		m=${o##*/libstatctr_core_la-}
		nm --defined-only -g "$o" | awk -v m="lib/${m%.o}" 'NF == 3 {print $3, m}'
	done | sort >"$TMP/defs"
	for o in "${objs[@]}"; do
		m=${o##*/libstatctr_core_la-}
		nm -u "$o" | awk '{print $2}' | sort -u | join - "$TMP/defs" |
			awk -v m="lib/${m%.o}" '$2 != m {print m, $2}'
	done
}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/statctr-includes.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
[ -f "${objs[0]}" ] && link_edges >"$TMP/link"
touch "$TMP/link"

out=$(python3 - "$top_srcdir" "$TMP/link" "$KNOWN" <<'EOF'
import os, re, sys

top, link, known = sys.argv[1], sys.argv[2], set(k for k in sys.argv[3].split('\n') if k)
# make check's top_srcdir is abs_top_srcdir: BUILD/.. in a build folder; the
# include paths below are normalized, so the top must be too.
top = os.path.normpath(top)
inc = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)

def module(rel):
    """x.c, x.h and x_int.h are module x."""
    m = rel[:-2]
    return m[:-4] if m.endswith('_int') else m

def include_edges(folder):
    """module -> modules whose header it includes, resolved as the compiler
    does (the including file's folder first, then the folder's root)."""
    edges, base = {}, os.path.join(top, folder)
    for root, _, files in os.walk(base):
        for f in files:
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(root, f)
            mod = module(os.path.relpath(path, top))
            edges.setdefault(mod, set())
            for name in inc.findall(open(path, errors='replace').read()):
                for d in (root, base):
                    hit = os.path.normpath(os.path.join(d, name))
                    if os.path.isfile(hit) and hit.startswith(base + os.sep):
                        to = module(os.path.relpath(hit, top))
                        if to != mod:
                            edges[mod].add(to)
                        break
    return edges

def circles(edges):
    """Tarjan's strongly connected sets of more than one module."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1
        stack.append(v); on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop(); on.discard(w); scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                out.append(sorted(scc))
    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out

def path_round(edges, scc):
    """One circle through the set's first module, by breadth-first search."""
    start, inside = scc[0], set(scc)
    prev, todo = {start: None}, [start]
    for v in todo:
        for w in sorted(edges.get(v, ())):
            if w == start:
                p = [v]
                while prev[p[-1]] is not None:
                    p.append(prev[p[-1]])
                return ' -> '.join(reversed(p)) + ' -> ' + start
            if w in inside and w not in prev:
                prev[w] = v; todo.append(w)
    return ''

graphs = [('#include', include_edges(d)) for d in ('lib', 'agent')]
for d, (_, edges) in zip(('lib', 'agent'), graphs):
    if not any(edges.values()):
        print('EMPTY %s/ has no #include edge' % d)
le = {}
for line in open(link):
    a, b = line.split()
    le.setdefault(a, set()).add(b)
graphs.append(('link', le))
seen, nedges = set(), 0
for kind, edges in graphs:
    nedges += sum(len(v) for v in edges.values())
    for scc in circles(edges):
        key = ' '.join(scc)
        seen.add(key)
        verdict = 'known' if key in known else 'NEW'
        print('%s %s circle: %s (%s)' % (verdict, kind, path_round(edges, scc), key))
for key in sorted(known - seen):
    print('GONE known circle: %s' % key)
print('edges %d' % nedges)
EOF
)
echo "$out" | grep -v '^edges ' || true
edges=$(echo "$out" | sed -n 's/^edges //p')
[ "${edges:-0}" -gt 0 ] || fail_later "no include or link edge found under $top_srcdir (wrong top_srcdir?)"
while IFS= read -r line; do
	case $line in
	NEW*) fail_later "an include circle: ${line#NEW }" ;;
	EMPTY*) fail_later "${line#EMPTY } (wrong top_srcdir?)" ;;
	GONE*) fail_later "${line#GONE } is gone: take it off KNOWN in $0" ;;
	esac
done <<<"$out"
[ "$test_failures" -eq 0 ] && echo "ok: no new circle in $edges edges of lib/ and agent/ (#include) and lib/ (link)"
style_finish
