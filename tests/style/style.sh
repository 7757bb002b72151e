#!/bin/bash
# The style gate of ../shared/STYLE.md, run by make check: every C source
# is formatted as .clang-format says (clang-format --dry-run -Werror) and
# cppcheck finds nothing (warning, style, performance, portability).
# A missing tool is a loud skip, and a failure under CI=true.
set -euo pipefail
cd "${top_srcdir:-$(dirname "$0")/../..}"
STYLE_NAME=style
. tests/style/lib.sh

command -v clang-format >/dev/null || skip "clang-format not found (Debian: apt-get install clang-format)"
command -v cppcheck >/dev/null || skip "cppcheck not found (Debian: apt-get install cppcheck)"

DIRS="lib common mib agent tools exporter examples bench tests"
mapfile -t sources < <(find $DIRS \( -name '*.[ch]' -o -name '*.cc' \) ! -name 'config.h' | sort)
[ "${#sources[@]}" -gt 50 ] || { echo "FAIL: only ${#sources[@]} C sources found" >&2; exit 1; }
echo "${#sources[@]} C and C++ sources"

if ! clang-format --dry-run -Werror "${sources[@]}"; then
	echo "FAIL: not formatted; fix with: clang-format -i FILE" >&2
	exit 1
fi
echo "clang-format: clean"

if ! cppcheck -q --enable=warning,style,performance,portability --std=c11 \
	--error-exitcode=1 -I lib -I common -I mib -I agent -I tools -I exporter -I bench $DIRS; then
	echo "FAIL: cppcheck found the problems above" >&2
	exit 1
fi
echo "cppcheck: clean"
