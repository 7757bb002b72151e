#!/bin/bash
# The installed libraries export only the statctr_ prefix (STYLE.md): an
# internal helper with a global generic name (set_error, meta_init, ...)
# would collide with a static user's own function of that name.  The shared
# object is shaped by its symbol list, the archive by the partial link in
# lib/local.mk; `make install` copies both from lib/.libs.  A static link
# of a program that defines the internal names itself must succeed and keep
# the program's definitions.
set -euo pipefail
top_srcdir=${top_srcdir:-$(dirname "$0")/../..}
top_builddir=${top_builddir:-.}
STYLE_NAME=exports
. "$top_srcdir/tests/style/lib.sh"
libs=$top_builddir/lib/.libs

command -v nm >/dev/null || skip "nm not found (Debian: apt-get install binutils)"
[ -f "$libs/libstatctr.a" ] || skip "no $libs/libstatctr.a (configured with --disable-static?)"

# check LABEL NM-OPTION FILE: every defined global is statctr_*, and the
# public API is there (a stripped or empty library would pass otherwise).
check() {
	local label=$1 opt=$2 file=$3 names foreign
	# A version node of lib/libstatctr.map is an absolute symbol (A) of its
	# own name, and names carry their node (@@STATCTR_1.0): symver.sh checks
	# both; here only the names count.
	names=$(nm "$opt" --defined-only "$file" |
		awk 'NF == 3 && !($2 == "A" && $3 ~ /^STATCTR_[0-9.]+$/) { sub(/@.*/, "", $3); print $3 }' |
		sort -u)
	foreign=$(grep -v '^statctr_' <<<"$names" || true)
	if [ -n "$foreign" ]; then
		fail_later "$label exports names outside statctr_*: $(tr '\n' ' ' <<<"$foreign")"
		return
	fi
	for want in statctr_seg_create statctr_slot_serve_copy statctr_view_open \
		statctr_snap_take statctr_reset_range statctr_errmsg; do
		grep -qx "$want" <<<"$names" || fail_later "$label lacks $want"
	done
	echo "ok: $label: $(wc -l <<<"$names") defined globals, all statctr_*"
}

check libstatctr.a -g "$libs/libstatctr.a"
if [ -f "$libs/libstatctr.so" ]; then
	check "libstatctr.so (dynamic)" -D "$libs/libstatctr.so"
	check "libstatctr.so (symbol table)" -g "$libs/libstatctr.so"
fi

# A static user with its own set_error() and meta_init(): links, and its
# definitions are the ones called.  Sanitizer builds need their runtime in
# the link: the symbol checks above are the test there.
if [ "${SANITIZER:-none}" = none ] && command -v "${CC:-cc}" >/dev/null &&
	pkg-config --exists libconfig 2>/dev/null; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	cat >"$work/user.c" <<'CEOF'
#include <statctr.h>
#include <stdio.h>
#include <string.h>
int set_error(int err) { return err + 1000; }
int meta_init(void) { return 7; }
int main(void)
{
	struct statctr_view *v;
	int rc = statctr_view_open("/nonexistent/statctr-exports", &v);
	printf("%d %d %d %s\n", set_error(1), meta_init(), rc,
	       strstr(statctr_errmsg(), "statctr-exports") ? "named" : statctr_errmsg());
	return 0;
}
CEOF
	read -r -a config_libs <<<"$(pkg-config --libs libconfig)"
	if ! "${CC:-cc}" -std=gnu11 -I"$top_srcdir/lib" -o "$work/user" "$work/user.c" \
		"$libs/libstatctr.a" "${config_libs[@]}" -lpthread 2>"$work/ld.err"; then
		fail_later "a static program defining set_error and meta_init does not link: $(cat "$work/ld.err")"
	elif out=$("$work/user") && [ "$out" = "1001 7 -2 named" ]; then
		echo "ok: static link with the user's own set_error/meta_init: $out"
	else
		fail_later "static user printed '$out', expected '1001 7 -2 named'"
	fi
else
	echo "note: static-link check not run (SANITIZER=${SANITIZER:-none}, or no cc/libconfig)"
fi

# A plugin that records histograms, dlopen()ed by a program that does not
# link libstatctr: the inline statctr_hist_record() reaches the library's
# thread-local guess (statctr.h) from a shared object loaded at run time.
# (statctr.h leaves the TLS model to the compiler: initial-exec would make
# such a dlopen() depend on glibc's spare static TLS.)
if [ "${SANITIZER:-none}" = none ] && [ -f "$libs/libstatctr.so" ] &&
	command -v "${CC:-cc}" >/dev/null; then
	work=${work:-$(mktemp -d)}
	trap 'rm -rf "$work"' EXIT
	cat >"$work/plugin.c" <<'CEOF'
#include <statctr.h>
#include <stdio.h>
/* Records 1..1000 in a 16-bucket histogram; returns count + sum, or -1. */
long long plugin_run(const char *conf, const char *path)
{
	struct statctr_seg *seg;
	struct statctr_slot *slot;
	struct statctr_view *view;
	struct statctr_snap *snap;
	statctr_id id;
	long long got = -1;
	if (statctr_seg_create(conf, "p", &seg) != 0)
		return fprintf(stderr, "%s\n", statctr_errmsg()), -1;
	if (statctr_slot_acquire(seg, &slot) == 0 && statctr_seg_lookup(seg, "t", "h", 0, &id) == 0) {
		for (uint64_t v = 1; v <= 1000; v++)
			statctr_hist_record(slot, id, v);
		if (statctr_view_open(path, &view) == 0) {
			if (statctr_snap_take(view, &snap) == 0) {
				got = (long long)(statctr_snap_hist_count(snap, id) +
				                  statctr_snap_hist_sum(snap, id));
				statctr_snap_free(snap);
			}
			statctr_view_close(view);
		}
	}
	statctr_seg_destroy(seg);
	return got;
}
CEOF
	cat >"$work/host.c" <<'CEOF'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	long long (*run)(const char *, const char *);
	if (!h)
		return printf("dlopen: %s\n", dlerror()), 1;
	*(void **)&run = dlsym(h, "plugin_run");
	return printf("%lld\n", run ? run(argv[2], argv[3]) : -2), 0;
}
CEOF
	cat >"$work/p.conf" <<CEOF
segments = ( { name = "p"; path = "$work/p"; slots = 1; tables = ( { name = "t"; rows = 1;
  columns = ( { name = "h"; kind = "histogram"; buckets = { start = 1; factor = 2; count = 16; }; } ); } ); } );
CEOF
	if ! "${CC:-cc}" -std=gnu11 -fPIC -shared -I"$top_srcdir/lib" -o "$work/plugin.so" \
		"$work/plugin.c" -L"$libs" -Wl,-rpath,"$(realpath "$libs")" -lstatctr 2>"$work/pl.err" ||
		! "${CC:-cc}" -o "$work/host" "$work/host.c" -ldl 2>>"$work/pl.err"; then
		fail_later "the dlopen() plugin does not build: $(cat "$work/pl.err")"
	elif out=$("$work/host" "$work/plugin.so" "$work/p.conf" "$work/p") && [ "$out" = 501500 ]; then
		echo "ok: a dlopen()ed plugin records histograms: count + sum $out"
	else
		fail_later "dlopen()ed plugin printed '$out', expected 501500 (1000 records of 1..1000)"
	fi
fi

style_finish
