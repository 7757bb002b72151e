#!/bin/bash
# run_docs.sh - the docs run as written: every ```sh block and every ```c
# block of README.md and docs/*.md is executed (sh) or compiled (c) the
# way a reader copies it, on a machine set up the way the docs say; so are
# the EXAMPLES of statctl(1) (docs/man/statctl.1, its .nf/.fi lines with
# the roff escapes \- and \e undone) and every block preceded by the line
# "<!-- doc-test: collectd -->" (a collectd.conf fragment: see below).
#
# The reader's machine, built per run:
# - a private mount and network namespace (unshare -mn, root): /dev/shm is
#   an empty tmpfs, so segment names resolve as on a fresh host without
#   touching the real /dev/shm; the loopback is private, so snmpd owns
#   udp/161 and the docs' 127.0.0.1:1161 is free for the agent's -M;
# - snmpd with the lines of conf/snmpd.conf (its commented-out reset
#   access uncommented, as docs/agent.md asks), /var/agentx a private
#   tmpfs; /usr/share/snmp/mibs a private copy plus STATCTR-MIB, as the
#   statctr-agentx package installs it;
# - the build's statctl, statctr-agentx and statctr-exporter first on PATH; conf/statctr.conf
#   as /etc/statctr.conf with agent.allow_reset = true; examples/pipeline
#   writing "dataplane" (the blocks start statctr-agentx as the docs say);
# - the working directory a copy of the source tree's conf/, mib/, scripts/
#   (a reader's clone), HOME empty.
# Three paths cannot be made without writing the real system, so they are
# rewritten in the block's text: /etc/statctr.conf, /usr/share/statctr/
# and node_exporter's textfile directory /var/lib/prometheus/node-exporter/.
#
# A collectd fragment is Include'd by a collectd.conf of this test (csv
# plugin, values as read, its own BaseDir), which `collectd -t` must accept;
# then collectd runs until the csv plugin has a value of every DERIVE the
# fragment collects, each checked against snmpget's value of its OID read
# before and after (the writer keeps counting).
#
# Blocks run in document order (README.md, then docs/*.md by name), each in
# its own session: what it leaves in the background is stopped after it,
# except a daemon, which serves the blocks after it as it would a reader.
#
# A block preceded by the line "<!-- doc-test: skip REASON -->" is not run;
# the test lists it with its reason.  Any other block that fails (exit
# status, or 60 s) fails the test, which prints its output.
set -uo pipefail
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
top_srcdir=$(cd "$top_srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
NAME=run_docs
TEST_NAME=$NAME
. "$top_srcdir/tests/common.sh" # skip, fail

# ------------------------------------------------------------------------
# Outside the namespace: prerequisites, then re-run inside it.
if [ -z "${DOCS_IN_NS:-}" ]; then
	[ "$(id -u)" = 0 ] || skip "needs root (a private mount and network namespace)"
	for p in unshare ip snmpd snmpget snmpwalk snmptable cc cfgmaker mrtg collectd jq; do
		command -v "$p" >/dev/null || skip "$p not found (scripts/install-deps.sh)"
	done
	unshare -mn true 2>/dev/null || skip "unshare -mn is not permitted here"
	for p in tools/statctl agent/statctr-agentx examples/pipeline; do
		[ -x "$top_builddir/$p" ] || skip "$top_builddir/$p not built"
	done
	# The SMI modules come from Debian's archive: fetch them while the
	# network is still there (the cache is the one the other tests share).
	STATCTR_SMI_CACHE=${STATCTR_SMI_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/statctr/smi}
	export STATCTR_SMI_CACHE
	"$top_srcdir/scripts/get-smi-mibs.sh" >/dev/null || skip "SMI modules unavailable"
	# snmpd makes /var/agentx itself; here it is only a mount point.
	[ -d /var/agentx ] || mkdir -p /var/agentx
	DOCS_IN_NS=1 exec unshare -mn --propagation private bash "$0" "$@"
fi

# ------------------------------------------------------------------------
# Inside: the reader's machine.
S=$(mktemp -d /tmp/statctr-docs.XXXXXX) || exit 99
PIDS=""
# Every process in this network namespace was started here (a daemon a
# block started included): stop them all but this shell, by pid.
NETNS=$(readlink /proc/self/ns/net)
ns_procs() {
	local p
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" = $$ ] && continue
		[ "$(readlink "$p/ns/net" 2>/dev/null)" = "$NETNS" ] && echo "${p#/proc/}"
	done
}
cleanup() {
	local pid
	for pid in $(ns_procs); do kill -TERM "$pid" 2>/dev/null; done
	for pid in $PIDS; do wait "$pid" 2>/dev/null; done
	for pid in $(ns_procs); do kill -KILL "$pid" 2>/dev/null; done
	[ -n "${KEEP:-}" ] && echo "kept $S" || rm -rf "$S"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# A failure of the setup (common.sh's fail) shows the tail of its logs.
setup_logs() { tail -n 20 "$S"/*.log; }
TEST_ON_FAIL=setup_logs

mount -t tmpfs -o mode=1777 tmpfs /dev/shm || fail "cannot mount /dev/shm"
mount -t tmpfs -o mode=0755 tmpfs /var/agentx || fail "cannot mount /var/agentx"
ip link set lo up || fail "cannot bring up lo"
mkdir -p "$S/mibs" "$S/bin" "$S/home" "$S/persist" "$S/share/statctr" "$S/src" "$S/node-exporter"
cp -a /usr/share/snmp/mibs/. "$S/mibs/"
cp "$top_srcdir/mib/STATCTR-MIB.txt" "$S/mibs/"
mount --bind "$S/mibs" /usr/share/snmp/mibs || fail "cannot mount the MIB directory"
cp "$top_srcdir/scripts/get-smi-mibs.sh" "$S/share/statctr/"
cp -a "$top_srcdir/conf" "$top_srcdir/mib" "$top_srcdir/scripts" "$S/src/"
for p in tools/statctl agent/statctr-agentx exporter/statctr-exporter; do
	printf '#!/bin/sh\nexec "%s" "$@"\n' "$top_builddir/$p" >"$S/bin/${p#*/}"
	chmod +x "$S/bin/${p#*/}"
done
export PATH=$S/bin:$PATH HOME=$S/home SNMP_PERSISTENT_DIR=$S/persist
unset SNMPCONFPATH MIBS MIBDIRS
mkdir -p -m 0700 "$SNMP_PERSISTENT_DIR/cert_indexes" # else the first client says it made it

CONF=$S/statctr.conf
{
	cat "$top_srcdir/conf/statctr.conf"
	echo 'agent = { interval_ms = 200; allow_reset = true; };'
} >"$CONF"
{
	echo "agentaddress udp:127.0.0.1:161"
	sed -e 's/^#\(createUser\|group\|com2sec\|access\)\b/\1/' "$top_srcdir/conf/snmpd.conf"
} >"$S/snmpd.conf"

/usr/sbin/snmpd -f -Lo -C -c "$S/snmpd.conf" -I -smux -p "$S/snmpd.pid" >"$S/snmpd.log" 2>&1 &
PIDS="$! $PIDS"
fx_wait 10 snmpget -v2c -c public -t 0.3 -r 0 127.0.0.1 .1.3.6.1.2.1.1.3.0 ||
	fail "snmpd does not answer on udp/161"
"$top_builddir/examples/pipeline" -c "$CONF" >"$S/writer.log" 2>&1 &
PIDS="$! $PIDS"
fx_wait 10 test -e /dev/shm/statctr.dataplane || fail "the writer made no segment"
# statctr-agentx through snmpd: README.md's first SNMP block starts it.

# ------------------------------------------------------------------------
# The blocks: "FILE LINE LANG [skip REASON]" then the body, to $S/blocks/N.
mkdir -p "$S/blocks"
docs=("$top_srcdir/README.md" "$top_srcdir"/docs/*.md)
awk -v dir="$S/blocks" -v top="$top_srcdir/" '
	FNR == 1 { prev = ""; inb = 0 }
	inb && /^```/ { inb = 0; close(out); next }
	inb { print > out; next }
	/^```(sh|c)$/ {
		n++
		out = dir "/" n
		lang = substr($0, 4)
		f = FILENAME; sub("^" top, "", f)
		head = f " " FNR " " lang
		if (prev ~ /^<!-- doc-test: skip .* -->$/) {
			reason = prev
			sub(/^<!-- doc-test: skip /, "", reason)
			sub(/ -->$/, "", reason)
			head = head " skip " reason
		}
		print head > (out ".head")
		close(out ".head")
		printf "" > out
		inb = 1
		next
	}
	/^```/ && prev == "<!-- doc-test: collectd -->" {
		n++
		out = dir "/" n
		f = FILENAME; sub("^" top, "", f)
		print f " " FNR " collectd" > (out ".head")
		close(out ".head")
		printf "" > out
		inb = 1
		next
	}
	/^```/ { other = !other }
	NF { prev = $0 }' "${docs[@]}"
# statctl(1)'s EXAMPLES: the lines between .nf and .fi, roff undone.
man=$top_srcdir/docs/man/statctl.1
n=$(ls "$S/blocks"/*.head | wc -l)
line=$(grep -n '^\.SH EXAMPLES' "$man" | cut -d: -f1)
[ -n "$line" ] || fail "statctl.1 has no EXAMPLES section"
echo "docs/man/statctl.1 $line sh" >"$S/blocks/$((n + 1)).head"
sed -n '/^\.SH EXAMPLES/,/^\.SH [^E]/p' "$man" | sed -n '/^\.nf$/,/^\.fi$/p' |
	sed -e '/^\.\(nf\|fi\)$/d' -e 's/\\-/-/g' -e 's/\\e/\\/g' >"$S/blocks/$((n + 1))"
[ -s "$S/blocks/$((n + 1))" ] || fail "statctl.1's EXAMPLES have no .nf lines"
! grep -n '\\[(*fs[:alpha:]]' "$S/blocks/$((n + 1))" ||
	fail "statctl.1's EXAMPLES hold a roff escape this test does not undo"

ran=0 skipped=0 failed=0
for head in $(ls "$S/blocks"/*.head | sort -t/ -k1 -V); do
	body=${head%.head}
	read -r file line lang mark reason <"$head"
	where="$file:$line ($lang)"
	if [ "${mark:-}" = skip ]; then
		echo "skipped $where: $reason"
		skipped=$((skipped + 1))
		continue
	fi
	ran=$((ran + 1))
	sed -e "s|/etc/statctr.conf|$CONF|g" -e "s|/usr/share/statctr/|$S/share/statctr/|g" \
		-e "s|/var/lib/prometheus/node-exporter/|$S/node-exporter/|g" "$body" >"$body.run"
	if [ "$lang" = c ]; then
		cp "$body.run" "$body.c"
		cmd=(cc -std=c11 -Wall -Wextra -Werror -I"$top_srcdir/lib" -c "$body.c" -o "$body.o")
	elif [ "$lang" = collectd ]; then
		cmd=(timeout -k 5 60 setsid bash -c 'echo $$ >"$1.sid"; exec bash "$2" "$1"' - "$body.run"
			"$top_srcdir/tests/docs/collectd_block.sh")
	else
		# Its own session, so that what it leaves running can be stopped.
		cmd=(timeout -k 5 60 setsid bash -c 'echo $$ >"$1.sid"; exec bash -e -o pipefail "$1"' - "$body.run")
	fi
	if (cd "$S/src" && "${cmd[@]}") >"$body.out" 2>&1 </dev/null; then
		echo "ran $where: ok"
	else
		echo "FAIL: $where: exit $?; the block and its output:" >&2
		sed 's/^/    | /' "$body" >&2
		sed 's/^/    > /' "$body.out" | tail -n 30 >&2
		failed=$((failed + 1))
	fi
	# What a block left in the background ends with it.
	[ -s "$body.run.sid" ] && kill -TERM -- "-$(cat "$body.run.sid")" 2>/dev/null
done
echo "$NAME: $ran blocks ran, $failed failed, $skipped skipped (marked in the doc)"
[ "$failed" -eq 0 ]
