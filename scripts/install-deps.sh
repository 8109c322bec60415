#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Install gpuperf's build and test dependencies from Debian 12 packages.
# Idempotent: packages already present are left as they are.
#
# The CUDA Toolkit (nvcc, CUPTI headers) is not a Debian package in the
# version gpuperf targets (CUDA 13); install it from NVIDIA into
# /usr/local/cuda. Without it the CPU side and the merger still build.
set -euo pipefail

pkgs=(
	build-essential cmake pkg-config git ca-certificates
	clang llvm libclang-rt-dev        # BPF target, libFuzzer, sanitizers
	libbpf-dev bpftool                # CO-RE loader and skeleton generator
	libelf-dev libdw-dev              # symbolization (elfutils)
	zlib1g-dev libdeflate-dev libcjson-dev libcmocka-dev
	python3 protobuf-compiler         # test helpers; protoc --decode_raw checks profile.pb.gz
	golang-go                         # go tool pprof reads profile.pb.gz (tests/report/pprof_go.sh)
	util-linux                        # setpriv/runuser for privilege tests
	chromium nodejs fonts-dejavu-core # flame graph browser test (tests/merger/browser)
	time                              # GNU time: peak RSS in bench/flamegraph
	file man-db                       # install/package tests: stripped binaries, man pages
	libdevel-nytprof-perl             # ships FlameGraph's flamegraph.pl: it must read every .folded
)

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done

if [ "${#missing[@]}" -eq 0 ]; then
	echo "install-deps: all ${#pkgs[@]} packages already installed"
	exit 0
fi

echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
