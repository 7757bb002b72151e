#!/bin/sh
# Installs the Debian 12 packages statctr needs to build, test and demo;
# debhelper, lintian and systemd (systemd-analyze, systemd-sysusers) are for
# tests/packaging/debs.sh; prometheus, prometheus-snmp-exporter and curl for
# tests/fleet, prometheus-node-exporter (its textfile collector) for
# tests/fleet/naming.sh, and mrtg, collectd-core and monitoring-plugins-standard
# (check_snmp) for tests/fleet/pollers.sh; bash-completion for tests/tools/completion.sh; python3-pytest
# and python3-numpy for tests/python, dh-python for python3-statctr; libdpdk-dev
# (DPDK 22.11) and its vdev drivers (net_null, net_ring, net_pcap, and the
# ring mempool) for examples/dpdk and tests/integration/dpdk.sh; snmptrapd for
# tests/integration/linktraps.sh (notifications through snmpd); spin for
# tests/model/spin.sh (the read protocol model-checked); stress-ng for
# scripts/test.sh --busy (the busy lane: make check beside CPU hogs).
# Runs apt-get as root (through sudo when not root).
set -e
PACKAGES="build-essential autoconf automake libtool pkg-config
  libconfig-dev libcunit1-dev libsnmp-dev snmpd snmptrapd snmp smitools
  libmicrohttpd-dev libgnutls28-dev zlib1g-dev libcrypt-dev openssl
  gnuplot-nox libpcp-mmv1-dev libpcp3-dev clang libclang-rt-14-dev python3-pysnmp4 jq python3 procps psmisc valgrind cppcheck clang-format
  debhelper lintian systemd dh-python python3-pytest python3-numpy
  prometheus prometheus-snmp-exporter prometheus-node-exporter curl bash-completion
  mrtg collectd-core monitoring-plugins-standard stress-ng spin
  libdpdk-dev librte-net-null23 librte-net-ring23 librte-net-pcap23 librte-mempool-ring23"
if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $PACKAGES >/dev/null
# The Debian snmpd package starts a system snmpd; the tests run their own.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet snmpd 2>/dev/null; then
	$SUDO systemctl stop snmpd || true
fi
# So do the Prometheus packages (a server on :9090, exporters on :9116, :9100):
# tests/fleet runs its own on private loopback ports and data directories.
for unit in prometheus prometheus-snmp-exporter prometheus-node-exporter; do
	if command -v systemctl >/dev/null 2>&1 && systemctl is-enabled --quiet "$unit" 2>/dev/null; then
		$SUDO systemctl disable --now "$unit" || true
	fi
done
echo "install-deps: done"
