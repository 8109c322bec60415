#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `cpack -G DEB` makes gpuperf_*.deb (the command, the injection library,
# man pages, completion; its library dependencies declared) and
# gpuperf-dbg_*.deb (the debug files), and what they hold runs.
# Installing the package for real is .ci/run's job; this test unpacks it.
# usage: package.sh BUILD_DIR HAVE_CUDA(ON|OFF) HAVE_BPF(ON|OFF)
set -u
build=$1
have_cuda=$2
have_bpf=$3
if ! command -v dpkg-deb >/dev/null || ! command -v dpkg-shlibdeps >/dev/null; then
	echo "SKIP: not a Debian system (dpkg-deb, dpkg-shlibdeps)"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/lib.sh"

if ! (cd "$build" && cpack -G DEB -B "$tmp/out" >"$tmp/cpack.log" 2>&1); then
	echo "FAIL: cpack -G DEB"; tail -20 "$tmp/cpack.log"; exit 1
fi
deb=$(ls "$tmp"/out/gpuperf_*.deb 2>/dev/null)
dbg=$(ls "$tmp"/out/gpuperf-dbg_*.deb 2>/dev/null)
if [ -z "$deb" ] || [ -z "$dbg" ]; then
	echo "FAIL: cpack made $(ls "$tmp/out"), not gpuperf_*.deb and gpuperf-dbg_*.deb"; exit 1
fi

# dpkg-shlibdeps found every shared library gpuperf links; CUDA is the
# user's (libcupti is loaded at run time) and no dependency.
depends=$(dpkg-deb -f "$deb" Depends)
want="libc6 libelf1 libdw1 libcjson1 zlib1g"
[ "$have_bpf" = ON ] && want="$want libbpf1"
for d in $want; do
	grep -q "\b$d\b" <<<"$depends" || { echo "FAIL: Depends lacks $d: $depends"; fail=1; }
done
if grep -qi cuda <<<"$depends"; then
	echo "FAIL: Depends names CUDA: $depends"; fail=1
fi
[ "$(dpkg-deb -f "$dbg" Depends)" = "gpuperf (= $(dpkg-deb -f "$deb" Version))" ] ||
	{ echo "FAIL: gpuperf-dbg does not depend on its gpuperf: $(dpkg-deb -f "$dbg" Depends)"; fail=1; }

dpkg-deb -x "$deb" "$tmp/root" && dpkg-deb -x "$dbg" "$tmp/dbg" || { echo "FAIL: dpkg-deb -x"; exit 1; }
if find "$tmp/root" -path '*/lib/debug*' | grep -q .; then
	echo "FAIL: debug files in the gpuperf package"; fail=1
fi
"$tmp/root/usr/bin/gpuperf" --version | grep -q '^gpuperf ' || { echo "FAIL: the packaged gpuperf does not run"; fail=1; }
check_split "$tmp/root/usr" bin/gpuperf "$tmp/dbg/usr"
if [ "$have_cuda" = ON ]; then
	lib=$(cd "$tmp/root/usr" && find . -name libgpuperf_inject.so)
	case "$lib" in
	./lib*/gpuperf/libgpuperf_inject.so) check_split "$tmp/root/usr" "${lib#./}" "$tmp/dbg/usr" ;;
	*) echo "FAIL: libgpuperf_inject.so not packaged under /usr/lib/gpuperf/ (found: '$lib')"; fail=1 ;;
	esac
	# The packaged gpuperf finds the packaged library, beside it.
	if ! env -u GPUPERF_INJECT_LIB "$tmp/root/usr/bin/gpuperf" record -v -o "$tmp/rec" -- /bin/true 2>&1 |
			grep -q "$tmp/root/usr/lib.*/gpuperf/libgpuperf_inject.so"; then
		echo "FAIL: the packaged gpuperf does not use the packaged injection library:"
		env -u GPUPERF_INJECT_LIB "$tmp/root/usr/bin/gpuperf" record -v -o "$tmp/rec2" -- /bin/true 2>&1 | head -5
		fail=1
	fi
fi
check_docs "$tmp/root/usr/share"
check_no_simulator "$tmp/root"
check_no_simulator "$tmp/dbg"
[ "$fail" -eq 0 ] && echo "package: $(basename "$deb") ($depends), $(basename "$dbg")"
exit "$fail"
