#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gpuperf as root for someone else (`sudo gpuperf`, played with
# SUDO_UID=65534): root never writes, deletes or chowns through a name the
# user or the program controls. Links the program plants in DIR are not
# followed, --force refuses a link or someone else's directory, -o where the
# user cannot write is refused, and every file of the recording and of its
# report belongs to the user. Environment: record_lib.sh.
set -u
. "$(dirname "$0")/record_lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP [$name]: needs root (gpuperf as root for another user)"
	exit 77
fi
need_sim

export SUDO_UID=65534 SUDO_GID=65534
sample=$GP_SAMPLES/vector_add_shared

# A root-only file and directory: what a hostile program aims its links at.
mkdir -m 0700 rootonly
printf 'precious\n' >rootonly/secret
chmod 0600 rootonly/secret
secret=$work/rootonly/secret
intact() {
	[ "$(cat "$secret")" = precious ] && [ "$(stat -c %u:%a "$secret")" = 0:600 ]
}
# DIR's parent belongs to the user, as their home would.
mkdir -m 0755 home
chown 65534:65534 home

# every file under $1 belongs to 65534; prints the ones that do not
foreign() {
	find "$1" ! -uid 65534 -printf '%u %p\n'
}

# --- the program plants links in DIR under the names root writes
planted="record.json kallsyms profile.svg summary.json analysis.txt cpu.folded profile.pb.gz trace.json"
sim "$GP" record -q -o home/planted -- sh -c '"$1" 1000 >/dev/null || exit 9
	for n in $2; do ln -s "$3" "$GPUPERF_DIR/$n"; done' sh "$sample" "$planted" "$secret" \
	>/dev/null 2>err.txt
st=$?
intact && ok "links planted by the program: root's record.json not written through them" ||
	fail "record wrote through a planted link: $(cat "$secret")"
expect_status 1 "$st" "record whose record.json the program took"
grep -q "record.json.*exists" err.txt || fail "record did not say why record.json is missing: $(cat err.txt)"
"$GP" report -q home/planted >/dev/null 2>err.txt
st=$?
intact && ok "report (sudo) does not write through planted links" ||
	fail "report wrote through a planted link: $(cat "$secret")"
expect_status 1 "$st" "report whose outputs are links"
grep -q "symbolic link" err.txt || fail "report did not name the link: $(cat err.txt)"

# --- plain root (no sudo) reporting a directory someone else owns: as its owner
(
	unset SUDO_UID SUDO_GID
	sim setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$GP" record -q -o home/theirs -- "$sample" 1000 >/dev/null 2>&1
	setpriv --reuid=65534 --regid=65534 --clear-groups ln -s "$secret" home/theirs/summary.json
	"$GP" report -q home/theirs >/dev/null 2>err.txt
	[ "$?" = 1 ] || echo "report exit status $?" >>err.txt
	rm home/theirs/summary.json
	"$GP" report -q home/theirs >/dev/null 2>>err.txt
)
intact && ok "root's report of a user's directory does not follow its links" ||
	fail "root's report wrote through a link: $(cat "$secret")"
[ -s home/theirs/profile.svg ] || fail "root's report of a user's directory wrote no profile.svg: $(cat err.txt)"
bad=$(foreign home/theirs)
[ -z "$bad" ] && ok "root's report of a user's directory: outputs belong to the user" ||
	fail "root's report left files of another owner: $bad"

# --- --force through a link to a root directory: refused, nothing removed or chowned
mkdir -m 0755 rootdir
touch rootdir/summary.json rootdir/profile.svg rootdir/x.folded
ln -s "$work/rootdir" home/link
sim "$GP" record -q --force -o home/link -- "$sample" 1000 >/dev/null 2>err.txt
st=$?
[ "$st" != 0 ] || fail "record --force -o LINK succeeded"
n=$(find rootdir -uid 0 -type f | wc -l)
[ "$n" = 3 ] && [ "$(stat -c %u rootdir)" = 0 ] && ok "--force -o LINK: the root directory is untouched" ||
	fail "--force -o LINK: $n of 3 root files left, owner $(stat -c %u rootdir)"
grep -q "symbolic link" err.txt || fail "--force -o LINK: no reason given: $(cat err.txt)"

# --- --force on a root directory under sudo (a typo like -o /etc): not the user's
sim "$GP" record -q --force -o rootdir -- "$sample" 1000 >/dev/null 2>err.txt
[ "$?" != 0 ] || fail "record --force -o ROOTDIR succeeded under sudo"
[ "$(find rootdir -uid 0 -type f | wc -l)" = 3 ] && ok "--force -o ROOTDIR under sudo: refused" ||
	fail "--force -o ROOTDIR under sudo: files removed or chowned"
grep -q "does not belong" err.txt || fail "--force -o ROOTDIR: no reason given: $(cat err.txt)"

# --- --force as plain root on a directory that is no recording: refused
(
	unset SUDO_UID SUDO_GID
	sim "$GP" record -q --force -o rootdir -- "$sample" 1000 >/dev/null 2>err.txt
	echo "$?" >st.txt
)
[ "$(cat st.txt)" != 0 ] || fail "record --force -o DIR-that-is-no-recording succeeded"
[ "$(find rootdir -type f | wc -l)" = 3 ] && ok "--force on a directory that is no recording: refused" ||
	fail "--force removed files of a directory that is no recording"
grep -q "not a gpuperf recording" err.txt || fail "--force: no reason given: $(cat err.txt)"

# --- --force on the user's own recording: reused, the old files gone
sim "$GP" record -q -o home/again -- "$sample" 1000 >/dev/null 2>&1
"$GP" report -q home/again >/dev/null 2>&1
old=$(ls home/again/gpu-*.trace)
sim "$GP" record -q --force -o home/again -- "$sample" 1000 >/dev/null 2>err.txt
expect_status 0 $? "record --force on the user's own recording"
[ ! -e "$old" ] && [ ! -e home/again/profile.svg ] && [ -f home/again/record.json ] &&
	ok "--force: the earlier recording's files removed" || fail "--force: $(ls home/again)"

# --- -o where the user cannot create a directory: refused, not made by root
sim "$GP" record -q -o rootonly/new -- "$sample" 1000 >/dev/null 2>err.txt
[ "$?" != 0 ] || fail "record -o in a root-only directory succeeded under sudo"
[ ! -e rootonly/new ] && ok "-o in a root-only directory: refused, nothing made" ||
	fail "-o in a root-only directory: root made $(stat -c %U rootonly/new) rootonly/new"
grep -q "Permission denied" err.txt || fail "-o ROOTONLY: no reason given: $(cat err.txt)"

# --- under sudo every file of the recording and of its report is the user's
sim "$GP" record -q -o home/own -- "$sample" 1000 >/dev/null 2>&1
expect_status 0 $? "record under sudo"
"$GP" report -q home/own >/dev/null 2>&1
expect_status 0 $? "report under sudo"
bad=$(foreign home/own)
[ -z "$bad" ] && [ -s home/own/summary.json ] && ok "under sudo: DIR and its outputs belong to the user" ||
	fail "under sudo: files of another owner: $bad"

if "$GP" --version | grep -q 'CPU side (--cpu): not built' || [ ! -r /sys/kernel/btf/vmlinux ]; then
	[ "$fails" = 0 ] || finish
	need_bpf # skips, or fails under GPUPERF_REQUIRE_BPF=1
fi
# --- with --cpu: the agent's files (cpu.trace, kallsyms) too, and no link followed
sim "$GP" --cpu -q -o home/cpu -- sh -c '"$1" 1000 >/dev/null; ln -s "$2" "$GPUPERF_DIR/record.json"' \
	sh "$sample" "$secret" >/dev/null 2>err.txt
intact && ok "--cpu: no planted link followed" || fail "--cpu wrote through a planted link"
rm -f home/cpu/record.json
bad=$(foreign home/cpu)
[ -z "$bad" ] && [ -s home/cpu/cpu.trace ] && [ -s home/cpu/profile.svg ] &&
	ok "--cpu under sudo: cpu.trace, kallsyms and the outputs belong to the user" ||
	fail "--cpu under sudo: files of another owner: $bad ($(ls home/cpu))"

finish
