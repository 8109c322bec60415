#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `cmake --install` puts gpuperf and libgpuperf_inject.so where the CLI
# looks for them, stripped, with their debug information by build id,
# installs the man pages and the bash completion, and never ships the
# CUDA simulator.
# usage: install.sh BUILD_DIR HAVE_CUDA(ON|OFF)
set -u
build=$1
have_cuda=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail=0
. "$(dirname "$0")/../package/lib.sh"

cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
"$prefix/bin/gpuperf" --version | grep -q '^gpuperf ' || { echo "FAIL: installed gpuperf does not run"; fail=1; }
check_split "$prefix" bin/gpuperf "$prefix"
if [ "$have_cuda" = ON ]; then
	lib=$(find "$prefix" -name libgpuperf_inject.so)
	case "$lib" in
	"$prefix"/lib*/gpuperf/libgpuperf_inject.so) check_split "$prefix" "${lib#"$prefix"/}" "$prefix" ;;
	*) echo "FAIL: libgpuperf_inject.so not installed under lib/gpuperf/ (found: '$lib')"; fail=1 ;;
	esac
fi
check_docs "$prefix/share"
check_no_simulator "$prefix"
# A second install over the first (an upgrade) must work too.
cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install over an install"; fail=1; }
check_split "$prefix" bin/gpuperf "$prefix"
[ "$fail" -eq 0 ] && echo "install: $(find "$prefix" -type f | sed "s|$prefix/||" | sort | tr '\n' ' ')"
exit "$fail"
