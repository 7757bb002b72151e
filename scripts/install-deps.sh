#!/bin/sh
# Installs the Debian 12 packages statctr needs to build, test and demo;
# debhelper, lintian and systemd (systemd-analyze, systemd-sysusers) are for
# tests/packaging/debs.sh.
# Runs apt-get as root (through sudo when not root).
set -e
PACKAGES="build-essential autoconf automake libtool pkg-config
  libconfig-dev libcunit1-dev libsnmp-dev snmpd snmp smitools
  gnuplot-nox libpcp-mmv1-dev libpcp3-dev clang libclang-rt-14-dev python3-pysnmp4 jq python3 procps psmisc valgrind cppcheck clang-format
  debhelper lintian systemd"
if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $PACKAGES >/dev/null
# The Debian snmpd package starts a system snmpd; the tests run their own.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet snmpd 2>/dev/null; then
	$SUDO systemctl stop snmpd || true
fi
echo "install-deps: done"
