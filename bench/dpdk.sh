#!/bin/bash
# dpdk.sh - what counting with statctr costs a DPDK forwarder
# (docs/PERFORMANCE.md, "DPDK forwarder"; examples/dpdk).
#
#   bench/dpdk.sh [--build-dir DIR] [--pairs N] [--seconds S] [--timed N]
#                 [--huge | --no-huge]
#
# Runs examples/dpdk/statctr-dpdk-fwd and its twin statctr-dpdk-fwd-nocount
# (the same source with STATCTR_DPDK_NO_COUNT: no statctr call, no TSC read
# per poll) in turn, N pairs of S seconds each, on two net_null vdevs at
# full rate (one worker lcore forwarding each port's rx to the other's tx).
# Each run reports its worker's cycles per packet (its CPU time in TSC
# cycles: the time another process held the CPU is not counted); the ratio of each
# pair (counting / not counting) is printed, then the median ratio.  The
# target: at most 1.02.  Alternating the two binaries within one run keeps
# the machine's drift out of the ratios.  --timed N passes -t N to the
# counting forwarder: its burstCycles histogram times one burst in N instead
# of every burst (default 1, every burst).  Memory: 2 MiB hugepages, as
# DPDK runs in production, when at least 128 are free (or --huge: then
# they must be); else, or with --no-huge, 4 KiB pages (EAL --no-huge),
# where TLB misses double the cycles per packet and spread them over 5%
# from run to run (docs/PERFORMANCE.md §10).  Hugepages, as root:
#   echo 256 > /proc/sys/vm/nr_hugepages
#   mountpoint -q /dev/hugepages || mount -t hugetlbfs nodev /dev/hugepages
set -u
srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=$srcdir
PAIRS=7
SECONDS_EACH=3
TIMED=1
HUGE=auto
while [ $# -gt 0 ]; do
	case $1 in
	--build-dir) builddir=$2; shift ;;
	--pairs) PAIRS=$2; shift ;;
	--seconds) SECONDS_EACH=$2; shift ;;
	--timed) TIMED=$2; shift ;;
	--huge) HUGE=yes ;;
	--no-huge) HUGE=no ;;
	*) echo "usage: bench/dpdk.sh [--build-dir DIR] [--pairs N] [--seconds S] [--timed N] [--huge | --no-huge]" >&2; exit 2 ;;
	esac
	shift
done
FWD=$builddir/examples/dpdk/statctr-dpdk-fwd
[ -x "$FWD" ] && [ -x "$FWD-nocount" ] ||
	{ echo "dpdk.sh: $FWD(-nocount) not built: configure found no libdpdk (libdpdk-dev)" >&2; exit 2; }
free_huge=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
if [ "$HUGE" = auto ]; then
	HUGE=no
	[ "${free_huge:-0}" -ge 128 ] && mountpoint -q /dev/hugepages 2>/dev/null && HUGE=yes
elif [ "$HUGE" = yes ] && { [ "${free_huge:-0}" -lt 128 ] || ! mountpoint -q /dev/hugepages; }; then
	echo "dpdk.sh: --huge: $free_huge free 2 MiB hugepages or no hugetlbfs on /dev/hugepages (need 128)" >&2
	exit 2
fi
MEM=(--no-huge)
[ "$HUGE" = yes ] && MEM=()
TMP=$(mktemp -d "${TMPDIR:-/tmp}/statctr-bench-dpdk.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT

# cycles_per_packet BINARY [OPTION...]: one run; prints the worker's cycles per packet.
cycles_per_packet() {
	local bin=$1
	shift
	"$bin" "${MEM[@]}" --no-pci --no-shconf --no-telemetry -m 256 -l 0-1 --log-level=lib.eal:notice \
		--vdev net_null0 --vdev net_null1 \
		-- -c "$TMP/statctr.conf" -P "$TMP/dpdk" -d "$SECONDS_EACH" -i 100 "$@" >"$TMP/run.log" 2>&1 ||
		{ echo "dpdk.sh: $bin failed:" >&2; cat "$TMP/run.log" >&2; exit 1; }
	awk '/^cpu cycles\/packet:/ { print $3 }' "$TMP/run.log"
}

echo "pair  counting  not-counting  ratio   (cycles per packet of CPU time, net_null, 1 worker lcore, -t $TIMED, hugepages: $HUGE)"
ratios=()
mins=(999999 999999)
for i in $(seq "$PAIRS"); do
	with=$(cycles_per_packet "$FWD" -t "$TIMED")
	without=$(cycles_per_packet "$FWD-nocount")
	ratio=$(awk -v a="$with" -v b="$without" 'BEGIN { printf "%.4f", a / b }')
	ratios+=("$ratio")
	mins[0]=$(awk -v a="$with" -v m="${mins[0]}" 'BEGIN { print (a < m ? a : m) }')
	mins[1]=$(awk -v a="$without" -v m="${mins[1]}" 'BEGIN { print (a < m ? a : m) }')
	printf '%4d  %8s  %12s  %s\n' "$i" "$with" "$without" "$ratio"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ r[NR] = $1 } END { print r[int((NR + 1) / 2)] }')
# The least disturbed run of each binary: on a shared machine, other
# processes only ever add cycles, so the minima compare the two loops.
minratio=$(awk -v a="${mins[0]}" -v b="${mins[1]}" 'BEGIN { printf "%.4f", a / b }')
echo "median ratio: $median; ratio of the minima: $minratio (${mins[0]} / ${mins[1]})"
echo "target: <= 1.02; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v m="$median" 'BEGIN { exit !(m <= 1.02) }' && echo "TARGET met" || echo "TARGET missed"
