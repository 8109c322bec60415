#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The man pages, the bash completion and README.md's option tables state
the options `gpuperf help CMD` states, no more and no fewer.

usage: docs_sync.py GPUPERF SOURCE_DIR COMPLETION
"""
import re
import subprocess
import sys

COMMANDS = ['record', 'report', 'diff', 'flamegraph', 'dump']
LONG = re.compile(r'--[a-z][a-z0-9-]*')


def help_options(gpuperf, cmd):
	"""Long options on the option lines of `gpuperf help CMD` (an option
	line is indented at most 8 columns and starts with '-'; its
	description starts after a gap of two spaces)."""
	out = subprocess.run([gpuperf, 'help', cmd], capture_output=True, text=True, check=True).stdout
	opts = set()
	for line in out.splitlines():
		if re.match(r'^ {1,8}-', line):
			opts.update(LONG.findall(re.split(r'\s{2,}', line.strip())[0]))
	return opts


def man_options(src, cmd):
	out = subprocess.run([sys.executable, src + '/scripts/gen-man.py', 'options',
			      '%s/docs/man/gpuperf-%s.md' % (src, cmd)],
			     capture_output=True, text=True, check=True).stdout
	return set(out.split())


def readme_options(src, cmd):
	"""Long options of the first table under README's '### `gpuperf CMD`'."""
	with open(src + '/README.md', encoding='utf-8') as f:
		text = f.read()
	m = re.search(r'^### `gpuperf %s`\n(.*?)(?=^#)' % cmd, text, re.M | re.S)
	if not m:
		return None
	opts = set()
	for line in m.group(1).splitlines():
		if line.startswith('| `-'):
			opts.update(LONG.findall(line.split(' | ')[0]))
	return opts


def completion_options(completion, cmd):
	script = ('source "$1"; COMP_WORDS=(gpuperf %s --); COMP_CWORD=2; _gpuperf; '
		  'printf "%%s\\n" "${COMPREPLY[@]}"' % cmd)
	out = subprocess.run(['bash', '-c', script, 'bash', completion],
			     capture_output=True, text=True, check=True).stdout
	return set(out.split())


def main(gpuperf, src, completion):
	fail = 0
	for cmd in COMMANDS:
		want = help_options(gpuperf, cmd)
		if not want:
			print('FAIL: no options parsed from gpuperf help %s' % cmd)
			fail = 1
			continue
		man = man_options(src, cmd)
		for what, missing in (
				('docs/man/gpuperf-%s.md lacks' % cmd, want - man),
				('docs/man/gpuperf-%s.md has options help does not:' % cmd, man - want),
				('completion of "gpuperf %s --" lacks' % cmd,
				 want - completion_options(completion, cmd))):
			if missing:
				print('FAIL: %s %s' % (what, ' '.join(sorted(missing))))
				fail = 1
		readme = readme_options(src, cmd)
		if readme is not None and readme - want:
			print('FAIL: README.md\'s gpuperf %s table has options help does not: %s'
			      % (cmd, ' '.join(sorted(readme - want))))
			fail = 1
		if not fail:
			print('%s: %d options in help, man page and completion%s'
			      % (cmd, len(want), '' if readme is None else ', %d in README' % len(readme)))
	return fail


if __name__ == '__main__':
	if len(sys.argv) != 4:
		sys.stderr.write(__doc__)
		sys.exit(2)
	sys.exit(main(*sys.argv[1:]))
