#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `cmake --install` puts gpuperf and libgpuperf_inject.so where the CLI
# looks for them, and never ships the CUDA simulator.
# usage: install.sh BUILD_DIR HAVE_CUDA(ON|OFF)
set -u
build=$1
have_cuda=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail=0

cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
"$prefix/bin/gpuperf" --version | grep -q '^gpuperf ' || { echo "FAIL: installed gpuperf does not run"; fail=1; }
if [ "$have_cuda" = ON ]; then
	lib=$(find "$prefix" -name libgpuperf_inject.so)
	case "$lib" in
	"$prefix"/lib*/gpuperf/libgpuperf_inject.so) ;;
	*) echo "FAIL: libgpuperf_inject.so not installed under lib/gpuperf/ (found: '$lib')"; fail=1 ;;
	esac
fi
if find "$prefix" -name 'libcuda*' -o -name 'libcupti*' | grep -q .; then
	echo "FAIL: the CUDA simulator was installed:"; find "$prefix" -name 'libcu*'; fail=1
fi
[ "$fail" -eq 0 ] && echo "install: $(find "$prefix" -type f | sed "s|$prefix/||" | tr '\n' ' ')"
exit "$fail"
