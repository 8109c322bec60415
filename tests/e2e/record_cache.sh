#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The CFI table cache of `record --cpu` ($XDG_CACHE_HOME/gpuperf): a first
# run builds and writes the tables of the files the program maps, a second
# reads them (record.json's agent.unwind_cache counts, not timing); a
# corrupt entry is ignored and rewritten; GPUPERF_CACHE=0 leaves it alone;
# as root for another user (SUDO_UID=65534) the entries are theirs and a
# link planted in the cache, or the cache directory itself a link, is not
# followed. Environment: record_lib.sh.
set -u
. "$(dirname "$0")/record_lib.sh"
need_bpf

# a few hundred ms in sh and libc: its mappings are sh, libc and ld.so
prog() {
	"$GP" record --cpu --no-gpu -q -o "$1" -- sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done' \
		>/dev/null 2>>err.txt
}
cache() { json "$1/record.json" "d['agent']['unwind_cache']$2"; }
cdir=$XDG_CACHE_HOME/gpuperf

# Tables are built for the files the stacks pass through, so the set can
# differ between runs (ld.so is sampled or not): sh and libc are in every
# stack, and each run's counts are checked against what the cache held.
entries() { find "$cdir" -maxdepth 1 -name '*.cfi' -type f | wc -l; }
prog r1
expect_status 0 $? "record --cpu, cache empty"
m=$(cache r1 "['misses']")
w=$(cache r1 "['written']")
[ "$(cache r1 "['hits']")" = 0 ] && [ "$m" -ge 2 ] && [ "$w" = "$m" ] &&
	ok "first run: $m tables built and written" ||
	fail "first run: $(cache r1 '') ($(cat err.txt))"
n=$(entries)
[ "$n" = "$w" ] || fail "$n entries in $cdir, $w written"
[ "$(cache r1 "['dir']")" = "$cdir" ] || fail "record.json names $(cache r1 "['dir']"), not $cdir"

prog r2
expect_status 0 $? "record --cpu, cache warm"
h=$(cache r2 "['hits']")
[ "$h" -ge 2 ] && [ "$h" -le "$w" ] && [ "$(cache r2 "['bad']")" = 0 ] &&
	[ "$(cache r2 "['written']")" = "$(cache r2 "['misses']")" ] &&
	[ "$(entries)" = $((w + $(cache r2 "['written']"))) ] &&
	ok "second run: $h tables read from the cache, built only what it lacked" ||
	fail "second run: $(cache r2 '') with $w in the cache"
[ "$(json r2/record.json "d['agent']['unwind_ends']['root'] > 0")" = True ] ||
	fail "second run: no stack reached its root with cached tables: $(json r2/record.json "d['agent']")"

# every entry corrupt, cut short or with a byte changed: ignored, counted, rebuilt
i=0
for e in "$cdir"/*.cfi; do
	if [ $((i++ % 2)) = 0 ]; then
		truncate -s 100 "$e"
	else
		printf 'X' | dd of="$e" bs=1 seek=300 conv=notrunc status=none
	fi
done
prog r3
b=$(cache r3 "['bad']")
[ "$(cache r3 "['hits']")" = 0 ] && [ "$b" -ge 2 ] &&
	[ "$(cache r3 "['written']")" = $((b + $(cache r3 "['misses']"))) ] &&
	ok "corrupt entries: $b ignored, rebuilt and written again" ||
	fail "corrupt entries: $(cache r3 '')"
prog r4
[ "$(cache r4 "['hits']")" -ge 2 ] && [ "$(cache r4 "['bad']")" = 0 ] &&
	[ "$(cache r4 "['written']")" = "$(cache r4 "['misses']")" ] &&
	ok "the rewritten entries are read back" || fail "after the rewrite: $(cache r4 '')"

# GPUPERF_CACHE=0: not read, not written
before=$(ls -l --time-style=full-iso "$cdir")
GPUPERF_CACHE=0 prog r5
[ "$(json r5/record.json "'unwind_cache' in d['agent']")" = False ] &&
	[ "$(ls -l --time-style=full-iso "$cdir")" = "$before" ] &&
	ok "GPUPERF_CACHE=0: the cache is not used" || fail "GPUPERF_CACHE=0: $(cache r5 '')"

# --- as root for nobody: their cache, their entries, no link followed
if [ "$(id -u)" = 0 ]; then
	mkdir -m 0700 rootonly
	printf 'precious\n' >rootonly/secret
	chmod 0600 rootonly/secret
	secret=$work/rootonly/secret
	intact() {
		[ "$(cat "$secret")" = precious ] && [ "$(stat -c %u:%a "$secret")" = 0:600 ]
	}
	mkdir -m 0755 nobody
	chown 65534:65534 nobody
	export SUDO_UID=65534 SUDO_GID=65534 XDG_CACHE_HOME=$work/nobody/cache
	ncdir=$XDG_CACHE_HOME/gpuperf
	prog nobody/s1
	expect_status 0 $? "record --cpu for nobody"
	w=$(cache nobody/s1 "['written']")
	bad=$(find "$XDG_CACHE_HOME" ! -uid 65534 -printf '%u %p\n')
	[ "$w" -ge 2 ] && [ -z "$bad" ] && ok "for nobody: $w entries, all theirs" ||
		fail "for nobody: written $w, not nobody's: $bad"
	# every entry replaced by a link to a root-only file
	for e in "$ncdir"/*.cfi; do
		rm "$e"
		setpriv --reuid=65534 --regid=65534 --clear-groups ln -s "$secret" "$e"
	done
	prog nobody/s2
	expect_status 0 $? "record --cpu for nobody, links in the cache"
	b=$(cache nobody/s2 "['bad']")
	intact && [ "$b" -ge 2 ] && [ "$(cache nobody/s2 "['hits']")" = 0 ] &&
		[ "$(cache nobody/s2 "['written']")" = $((b + $(cache nobody/s2 "['misses']"))) ] &&
		ok "links planted in the cache: not followed, replaced by entries" ||
		fail "links planted in the cache: secret $(cat "$secret"), $(cache nobody/s2 '')"
	# the links of the files this run did not pass through are left as they were
	n=$(find "$ncdir" -type l | wc -l)
	bad=$(find "$XDG_CACHE_HOME" ! -uid 65534 -printf '%u %p\n')
	[ "$n" = $((w - b)) ] && [ -z "$bad" ] || fail "after the links: $n links left of $w, $b replaced, not nobody's: $bad"
	# the cache directory itself a link to a root directory: not used
	mkdir -m 0755 rootdir
	setpriv --reuid=65534 --regid=65534 --clear-groups mkdir nobody/evil
	setpriv --reuid=65534 --regid=65534 --clear-groups ln -s "$work/rootdir" nobody/evil/gpuperf
	XDG_CACHE_HOME=$work/nobody/evil prog nobody/s3
	expect_status 0 $? "record --cpu for nobody, the cache directory a link"
	[ -z "$(ls -A rootdir)" ] && [ "$(json nobody/s3/record.json "'unwind_cache' in d['agent']")" = False ] &&
		ok "a cache directory that is a link: not used" ||
		fail "a cache directory that is a link: rootdir holds $(ls -A rootdir)"
fi
finish
