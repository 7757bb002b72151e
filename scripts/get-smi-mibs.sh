#!/bin/sh
# get-smi-mibs.sh - provide the SMIv2 base modules (SNMPv2-SMI, SNMPv2-TC,
# SNMPv2-CONF, HCNUM-TC) that STATCTR-MIB imports, for smilint and the
# Net-SNMP tools, and print the directory that holds them.
#
# usage: scripts/get-smi-mibs.sh [CACHE_DIR]
#   CACHE_DIR defaults to $STATCTR_SMI_CACHE, else ~/.cache/statctr/smi.
#
# Debian main ships none of these as text (snmp-mibs-downloader is
# non-free).  In order: a cache filled earlier; a directory on this system
# that has them; the erlang-snmp package, fetched with `apt-get download`
# and unpacked with `dpkg -x` (no Erlang is installed).  HCNUM-TC is in
# none of those: when no real copy is found, a minimal stand-in declaring
# only CounterBasedGauge64 (SYNTAX Counter64, as RFC 2856 defines it) is
# written so that imports resolve; it says so in its own text.
# Exits non-zero (with the reason on stderr) when the modules cannot be had.
set -eu

cache=${1:-${STATCTR_SMI_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/statctr/smi}}
base="SNMPv2-SMI SNMPv2-TC SNMPv2-CONF"

have_all() {
	for m in $base HCNUM-TC; do
		[ -s "$cache/$m.txt" ] || return 1
	done
}

# Files are built in $work and renamed into $cache, so that tests running in
# parallel never read a half-written module.
publish() {
	for f in "$work"/*.txt; do
		[ -e "$f" ] && mv -f "$f" "$cache/"
	done
	rm -rf "$work"
}

copy_from_system() {
	for dir in /usr/share/snmp/mibs/ietf /usr/share/snmp/mibs /usr/share/mibs/ietf \
		/var/lib/mibs/ietf /var/lib/snmp/mibs/ietf; do
		for m in $base HCNUM-TC; do
			[ -s "$work/$m.txt" ] && continue
			for f in "$dir/$m" "$dir/$m.txt" "$dir/$m.mib"; do
				if [ -s "$f" ]; then
					cp "$f" "$work/$m.txt"
					break
				fi
			done
		done
	done
}

copy_from_erlang() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/statctr-smi.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	if ! (cd "$tmp" && apt-get download erlang-snmp >/dev/null 2>&1); then
		echo "get-smi-mibs: 'apt-get download erlang-snmp' failed (run apt-get update?)" >&2
		return 1
	fi
	dpkg -x "$tmp"/erlang-snmp_*.deb "$tmp/x"
	for m in $base; do
		[ -s "$work/$m.txt" ] && continue
		f=$(find "$tmp/x" -name "$m.mib" | head -n 1)
		[ -n "$f" ] && cp "$f" "$work/$m.txt"
	done
	rm -rf "$tmp"
	trap - EXIT
}

write_hcnum_standin() {
	cat >"$work/HCNUM-TC.txt" <<'MIB'
HCNUM-TC DEFINITIONS ::= BEGIN

-- A stand-in written by statctr's scripts/get-smi-mibs.sh because no copy of
-- RFC 2856's module was found on this system.  It declares only the one
-- convention STATCTR-MIB imports, with the syntax RFC 2856 gives it, so that
-- smilint and the Net-SNMP tools can resolve the import.  Install the real
-- module (RFC 2856) to replace it.

IMPORTS
    MODULE-IDENTITY, mib-2, Counter64
        FROM SNMPv2-SMI
    TEXTUAL-CONVENTION
        FROM SNMPv2-TC;

hcnumTC MODULE-IDENTITY
    LAST-UPDATED "200006080000Z"
    ORGANIZATION "IETF OPS Area"
    CONTACT-INFO "See RFC 2856."
    DESCRIPTION
        "Stand-in for the textual conventions of RFC 2856, reduced to
        CounterBasedGauge64."
    REVISION "200006080000Z"
    DESCRIPTION
        "Stand-in for the version published as RFC 2856."
    ::= { mib-2 78 }

CounterBasedGauge64 ::= TEXTUAL-CONVENTION
    STATUS current
    DESCRIPTION
        "A 64-bit gauge carried in a Counter64: its value may go up and
        down, and latches at its maximum and minimum (RFC 2856)."
    SYNTAX Counter64

END
MIB
}

mkdir -p "$cache"
if ! have_all; then
	work=$(mktemp -d "$cache/.work.XXXXXX")
	copy_from_system
	for m in $base; do
		if [ ! -s "$work/$m.txt" ]; then
			copy_from_erlang || { rm -rf "$work"; exit 1; }
			break
		fi
	done
	[ -s "$work/HCNUM-TC.txt" ] || write_hcnum_standin
	publish
fi
for m in $base; do
	if [ ! -s "$cache/$m.txt" ]; then
		echo "get-smi-mibs: no $m found (erlang-snmp lacks it?)" >&2
		exit 1
	fi
done
echo "$cache"
