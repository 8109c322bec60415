#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""gen-man.py - the man pages and the bash completion from docs/man/*.md.

docs/man/ is the one source of the command line's documentation: each page
is a small Markdown file that reads well on GitHub and turns into roff
here, and its OPTIONS table is also what bash completion offers, so the
man pages, the completion and (through tests/package/docs_sync.py) the
help text and README.md's tables cannot drift apart.

    gen-man.py roff PAGE.md OUT.1 --version V
    gen-man.py completion TEMPLATE.in OUT PAGE.md...
    gen-man.py options PAGE.md          long options of the OPTIONS section

The Markdown is the subset the pages use: `# name(1)` title, `##`/`###`
sections, paragraphs, `- ` lists, fenced code, tables, `code`, *em*,
**strong**, [links](url). In an OPTIONS table the first cell holds one or
more `-x, --long ARG` specs separated by ' / '. Comments of the form
`<!-- complete --opt: a b c -->` give an option's values, and
`<!-- complete args: dirs|files|program|commands -->` what the operands
are; other comments are dropped.
"""
import os
import re
import sys
import time

SPEC_RE = re.compile(r'^(?:(-[A-Za-z0-9]), )?(--[a-z][a-z0-9-]*)?(\[=[A-Za-z|]+\])?(?: (.+))?$')


class Option:
	def __init__(self, short, long, arg, optional):
		self.short = short    # "-f" or None
		self.long = long      # "--format" or None
		self.arg = arg        # "LIST" or None
		self.optional = optional  # --gzip[=WHEN]: the argument only with '='


class Page:
	def __init__(self, path):
		self.path = path
		self.name = None
		self.section = None
		self.blocks = []      # (kind, payload) in order
		self.options = []     # Option, from the OPTIONS section's tables
		self.values = {}      # "--format" -> ["folded", ...]
		self.args = 'files'


def die(msg):
	sys.stderr.write('gen-man: %s\n' % msg)
	sys.exit(1)


def split_row(line):
	"""Cells of a '| a | b |' row; '\\|' is a literal bar."""
	cells = re.split(r'(?<!\\)\|', line.strip())[1:-1]
	return [c.strip().replace('\\|', '|') for c in cells]


def parse_specs(cell):
	"""'`-U, --user-stacks-only` / `-K, --kernel-stacks-only`' -> [Option]."""
	opts = []
	for part in re.findall(r'`([^`]+)`', cell):
		m = SPEC_RE.match(part)
		if not m or not (m.group(1) or m.group(2)):
			if re.match(r'^-[A-Za-z0-9]( [A-Z].*)?$', part):
				opts.append(Option(part.split()[0], None,
						   part.split(' ', 1)[1] if ' ' in part else None, False))
				continue
			raise ValueError('not an option spec: %r' % part)
		short, long, opt_arg, arg = m.groups()
		if opt_arg:
			opts.append(Option(short, long, opt_arg[2:-1], True))
		else:
			opts.append(Option(short, long, arg, False))
	return opts


def parse(path):
	page = Page(path)
	with open(path, encoding='utf-8') as f:
		lines = f.read().split('\n')
	section = None
	i = 0
	while i < len(lines):
		line = lines[i]
		if line.startswith('<!--'):
			text = line
			while '-->' not in text:
				i += 1
				text += ' ' + lines[i]
			m = re.match(r'<!--\s*complete\s+(\S+):\s*(.*?)\s*-->', text)
			if m and m.group(1) == 'args':
				page.args = m.group(2)
			elif m:
				page.values[m.group(1)] = m.group(2).split()
			i += 1
			continue
		m = re.match(r'^# (\S+)\((\d)\)\s*$', line)
		if m:
			page.name, page.section = m.group(1), m.group(2)
			i += 1
			continue
		m = re.match(r'^(##+) (.*)$', line)
		if m:
			section = m.group(2).strip()
			page.blocks.append(('SH' if len(m.group(1)) == 2 else 'SS', section))
			i += 1
			continue
		if line.startswith('```'):
			body = []
			i += 1
			while i < len(lines) and not lines[i].startswith('```'):
				body.append(lines[i])
				i += 1
			page.blocks.append(('code', body))
			i += 1
			continue
		if line.startswith('|'):
			rows = []
			while i < len(lines) and lines[i].startswith('|'):
				rows.append(split_row(lines[i]))
				i += 1
			head, rows = rows[0], rows[2:]
			page.blocks.append(('table', (head, rows, section == 'OPTIONS')))
			if section == 'OPTIONS':
				for r in rows:
					try:
						page.options.extend(parse_specs(r[0]))
					except ValueError as e:
						die('%s: %s' % (path, e))
			continue
		if line.startswith('- '):
			item = [line[2:]]
			i += 1
			while i < len(lines) and lines[i].startswith('  ') and lines[i].strip():
				item.append(lines[i].strip())
				i += 1
			page.blocks.append(('item', ' '.join(item)))
			continue
		if not line.strip():
			i += 1
			continue
		para = []
		while i < len(lines) and lines[i].strip() and not re.match(r'^(#|```|\||- |<!--)', lines[i]):
			para.append(lines[i].strip())
			i += 1
		page.blocks.append(('SYN' if section == 'SYNOPSIS' else 'para', para))
	if not page.name:
		die('%s: no "# name(1)" title' % path)
	return page


# roff ------------------------------------------------------------------

def esc(text):
	"""Plain text to roff: backslashes, dashes kept ASCII where they are
	options, and anything outside ASCII as a named glyph."""
	out = []
	for ch in text.replace('\\', '\\e'):
		if ord(ch) < 128:
			out.append(ch)
		else:
			out.append('\\[u%04X]' % ord(ch))
	return ''.join(out)


def esc_literal(text):
	return esc(text).replace('-', '\\-')


def inline(text):
	"""Markdown inline markup to roff fonts."""
	out = []
	pos = 0
	pat = re.compile(r'`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\(([^)]+)\)')
	for m in pat.finditer(text):
		out.append(esc(text[pos:m.start()]))
		code, strong, em, ltext, url = m.groups()
		if code is not None:
			out.append('\\fB\\%' + esc_literal(code) + '\\fR')
		elif strong is not None:
			out.append('\\fB\\%' + inline(strong).replace('-', '\\-') + '\\fR')
		elif em is not None:
			out.append('\\fI' + inline(em) + '\\fR')
		else:
			out.append(inline(ltext))
			if url.startswith('http') and ltext.strip('`') != url.split('://', 1)[-1]:
				out.append(' <' + esc(url) + '>')
		pos = m.end()
	out.append(esc(text[pos:]))
	return ''.join(out)


def line_safe(s):
	"""A roff text line must not start with a control character."""
	return '\\&' + s if s[:1] in ('.', "'") else s


def spec_tag(cell):
	"""Option cell to the .TP tag: names bold, arguments italic."""
	parts = []
	for part in re.findall(r'`([^`]+)`', cell):
		words = []
		m = re.match(r'^(.*?)(\[=[^\]]+\])?(?: (.+))?$', part)
		names, opt_arg, arg = m.groups()
		for n in names.split(', '):
			words.append('\\fB' + esc_literal(n) + '\\fR')
		tag = ', '.join(words)
		if opt_arg:
			tag += '[=\\fI' + esc(opt_arg[2:-1]) + '\\fR]'
		if arg:
			tag += ' \\fI' + esc(arg) + '\\fR'
		parts.append(tag)
	return ', '.join(parts) if parts else inline(cell)


def roff(page, version, date):
	out = ['.\\" SPDX-License-Identifier: Apache-2.0',
	       '.\\" Generated by scripts/gen-man.py from docs/man/%s: edit that file.'
	       % os.path.basename(page.path),
	       '.TH "%s" "%s" "%s" "gpuperf %s" "gpuperf Manual"'
	       % (page.name.upper(), page.section, date, version),
	       '.nh', '.ad l']
	section = None
	for kind, payload in page.blocks:
		if kind == 'SH':
			section = payload
			out.append('.SH "%s"' % payload.upper())
		elif kind == 'SS':
			out.append('.SS "%s"' % esc(payload))
		elif kind == 'SYN':
			out.append('.nf')
			for l in payload:
				out.append(line_safe(inline(l)))
			out.append('.fi')
		elif kind == 'para' and section == 'NAME':
			name, _, what = ' '.join(payload).partition(' - ')
			out.append('%s \\- %s' % (esc_literal(name), esc(what)))
		elif kind == 'para':
			out.append('.PP')
			out.append(line_safe(inline(' '.join(payload))))
		elif kind == 'item':
			out.append('.IP \\(bu 2')
			out.append(line_safe(inline(payload)))
		elif kind == 'code':
			out += ['.PP', '.RS 4', '.nf']
			out += [line_safe(esc(l).replace('-', '\\-')) for l in payload]
			out += ['.fi', '.RE']
		elif kind == 'table':
			head, rows, is_opts = payload
			for r in rows:
				out.append('.TP')
				out.append(line_safe(spec_tag(r[0]) if is_opts else inline(r[0])))
				body = inline(r[-1])
				if body and not body.endswith('.'):
					body += '.'
				for h, v in zip(head[1:-1], r[1:-1]):
					if v:
						body += ' %s: %s.' % (esc(h.capitalize()), inline(v))
				out.append(line_safe(body))
	return '\n'.join(out) + '\n'


# completion ------------------------------------------------------------

def arg_kind(page, o):
	"""What completes an option's argument."""
	for name in (o.long, o.short):
		if name and name in page.values:
			return 'values:' + ' '.join(page.values[name])
	if not o.arg:
		return None
	if re.match(r'^(DIR|PATH)', o.arg):
		return 'dirs' if o.arg.startswith('DIR') else 'paths'
	if re.match(r'^(FILE|OUT)', o.arg):
		return 'files'
	return 'none'


def completion(template, pages):
	cmds = []
	spec = []
	for p in pages:
		if p.name == 'gpuperf':
			continue
		cmd = p.name[len('gpuperf-'):]
		cmds.append(cmd)
		words = []
		for o in p.options:
			words += [n for n in (o.short, o.long) if n]
		spec.append('\t%s) opts=%s args=%s ;;'
			    % (cmd, sh_quote(' '.join(words)), sh_quote(p.args)))
	argspec = []
	for p in pages:
		if p.name == 'gpuperf':
			continue
		cmd = p.name[len('gpuperf-'):]
		for o in p.options:
			kind = arg_kind(p, o)
			if not kind:
				continue
			names = '|'.join('"%s %s"' % (cmd, n) for n in (o.short, o.long) if n)
			if o.optional:
				names = '|'.join('"%s %s="' % (cmd, n) for n in (o.long,))
			argspec.append('\t%s) kind=%s ;;' % (names, sh_quote(kind)))
	with open(template, encoding='utf-8') as f:
		text = f.read()
	text = text.replace('@COMMANDS@', ' '.join(cmds + ['help', 'version']))
	text = text.replace('@OPTIONS@', '\n'.join(spec))
	text = text.replace('@OPTARGS@', '\n'.join(argspec))
	return text


def sh_quote(s):
	return "'" + s.replace("'", "'\\''") + "'"


def build_date():
	# Reproducible: the date of the release, not of the build.
	epoch = os.environ.get('SOURCE_DATE_EPOCH')
	return time.strftime('%Y-%m-%d', time.gmtime(int(epoch) if epoch else None))


def write(path, text):
	tmp = path + '.tmp'
	with open(tmp, 'w', encoding='utf-8') as f:
		f.write(text)
	os.replace(tmp, path)


def main(argv):
	if len(argv) >= 4 and argv[1] == 'roff':
		version = argv[argv.index('--version') + 1] if '--version' in argv else '0'
		write(argv[3], roff(parse(argv[2]), version, build_date()))
	elif len(argv) >= 4 and argv[1] == 'completion':
		write(argv[3], completion(argv[2], [parse(p) for p in argv[4:]]))
	elif len(argv) == 3 and argv[1] == 'options':
		for o in parse(argv[2]).options:
			if o.long:
				print(o.long)
	else:
		sys.stderr.write(__doc__)
		return 2
	return 0


if __name__ == '__main__':
	sys.exit(main(sys.argv))
