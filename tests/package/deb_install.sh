#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CI only (it changes the system): build the Debian package, install it
# with apt (which resolves its Depends), record a sample with the
# installed gpuperf and its installed injection library, then remove it.
# usage: deb_install.sh BUILD_DIR   (as root, on Debian)
set -euo pipefail
build=$(cd "$1" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

(cd "$build" && cpack -G DEB -B "$out/deb" >"$out/cpack.log") || { tail -20 "$out/cpack.log"; exit 1; }
debs=("$out"/deb/gpuperf_*.deb)
[ "${#debs[@]}" -eq 1 ] || { echo "FAIL: expected one gpuperf_*.deb, got: ${debs[*]}"; exit 1; }
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${debs[0]}"

fail=0
gp=/usr/bin/gpuperf
"$gp" --version
dpkg -L gpuperf | grep -q '/man1/gpuperf-record.1.gz$' || { echo "FAIL: no man page in the package"; fail=1; }
# A CUDA sample on the simulator (test equipment, from the build tree), both
# sides; without CUDA, the CPU side of a shell loop.
sample=$build/samples/vector_add_shared
if [ -x "$sample" ] && [ -d "$build/tests/sim/lib" ]; then
	LD_LIBRARY_PATH=$build/tests/sim/lib "$gp" --cpu -q -o "$out/rec" -- "$sample" 1000 >/dev/null
	grep -q '^\[gpu\]\|;\[gpu\] ' "$out/rec/gpu.folded" ||
		{ echo "FAIL: no GPU kernel in the installed gpuperf's gpu.folded"; fail=1; }
	ls "$out"/rec/gpu-*.trace >/dev/null || { echo "FAIL: no GPU trace"; fail=1; }
else
	"$gp" --cpu --no-gpu -q -o "$out/rec" -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'
fi
[ -s "$out/rec/profile.svg" ] && [ -s "$out/rec/summary.json" ] ||
	{ echo "FAIL: the installed gpuperf wrote no report"; fail=1; }

apt-get remove -y -q --purge gpuperf
[ ! -e "$gp" ] && [ ! -e /usr/lib/gpuperf ] || { echo "FAIL: files left after removing gpuperf"; fail=1; }
[ "$fail" -eq 0 ] && echo "deb_install: $(basename "${debs[0]}") installed, recorded, removed"
exit "$fail"
