#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bcc_headers.sh DIR: print a kernel header tree that bcc (profile-bpfcc) can
# compile against, for BCC_KERNEL_SOURCE.
#
# bcc compiles its BPF C at start against /lib/modules/$(uname -r)/build.
# Kernels without a headers package (this VM's) have none, but the programs
# bench/ runs (profile-bpfcc) only use stable UAPI and helper declarations,
# so Debian's newest linux-headers-*-amd64 serves. Debian splits it into an
# arch part (generated headers, .config) and a -common part (the sources);
# bcc wants one tree, so DIR gets the union of the two as symlinks.
# Prints nothing and exits 1 when no such package is installed.
set -eu
DIR=${1:?usage: bcc_headers.sh DIR}
run=/lib/modules/$(uname -r)/build
if [ -e "$run/include" ]; then
	echo "$run"
	exit 0
fi
arch=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -1)
[ -n "$arch" ] || exit 1
common=${arch%-amd64}-common
[ -d "$common" ] || exit 1
rm -rf "$DIR"
mkdir -p "$DIR"
cp -rs "$common/." "$DIR/"
cp -rsf "$arch/." "$DIR/"
echo "$DIR"
