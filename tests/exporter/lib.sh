# shellcheck shell=bash
# lib.sh - what the tests of statctr-exporter share; sourced, not run.
#
# Builds on tests/integration/fixture.sh (a private $TMP, the example
# writer on $TMP/dataplane, every process tracked and stopped by pid on
# exit): ex_start starts the exporter on a free loopback port, ex_get
# scrapes it with curl.

. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/fixture.sh"

EXPORTER=${EXPORTER:-$top_builddir/exporter/statctr-exporter}
STATCTL=$top_builddir/tools/statctl

ex_need() {
	local p
	for p in curl "$@"; do
		command -v "$p" >/dev/null 2>&1 || skip "$p not found (Debian: apt-get install $p)"
	done
	[ -x "$EXPORTER" ] || skip "$EXPORTER not built"
	[ -x "$PIPELINE" ] || skip "examples/pipeline not built"
}

# ex_up PORT [CURL OPTIONS]: the exporter answers / on 127.0.0.1:PORT (any status).
ex_up() {
	local port=$1
	shift
	curl -s -o /dev/null -m 2 "$@" "${EX_SCHEME:-http}://127.0.0.1:$port/"
}

# ex_start [OPTIONS]: the exporter on $TMP/statctr.conf, on a free port:
# EX_PORT, EX_PID (tracked), its log $TMP/exporter.log.
ex_start() {
	fx_on_free_port exporter "$(fx_loaded 5)" ex_up_plain \
		"$EXPORTER" -c "$TMP/statctr.conf" --web.listen-address=127.0.0.1:@PORT@ "$@"
	EX_PORT=$FREE_PORT EX_PID=$FREE_PID
}
ex_up_plain() { ex_up "$1" ${EX_CURL_OPTS:-}; }

ex_stop() {
	fx_stop "$EX_PID"
	fx_untrack "$EX_PID"
}

# ex_get PATH [CURL OPTIONS]: the body of GET PATH (curl fails on an HTTP error).
ex_get() {
	local path=$1
	shift
	curl -sf -m "$(fx_loaded 10)" "$@" "${EX_SCHEME:-http}://127.0.0.1:$EX_PORT$path"
}

# ex_status PATH [CURL OPTIONS]: the HTTP status of a request of PATH.
ex_status() {
	local path=$1
	shift
	curl -s -o /dev/null -w '%{http_code}' -m "$(fx_loaded 10)" "$@" \
		"${EX_SCHEME:-http}://127.0.0.1:$EX_PORT$path"
}

# ex_sample NAME LABELS: the value of one series of a scrape on stdin.
ex_sample() {
	awk -v s="$1{$2}" 'index($0, s " ") == 1 { print $2; exit }'
}

# check WHAT WANT GOT: counts a failure when they differ.
check() {
	if [ "$2" = "$3" ]; then
		log "ok: $1 ($3)"
	else
		fail_later "$1: want '$2', got '$3'"
	fi
}
