// SPDX-License-Identifier: Apache-2.0
/* xml_escape.c - XML escaping with UTF-8 validation. */
#include "xml_escape.h"

#include <errno.h>
#include <stdint.h>

/* Length of the valid UTF-8 sequence at s (max n bytes), 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0; /* overlong or out of range */
	if (cp >= 0xd800 && cp <= 0xdfff)
		return 0; /* surrogates */
	if (cp == 0xfffe || cp == 0xffff)
		return 0; /* not XML characters */
	return len;
}

int xml_escape__write(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0; /* bytes [i - run, i) are safe and not yet written */

	while (i < len && p[i]) {
		const char *rep = NULL;
		size_t seq = 1;

		switch (p[i]) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = "&quot;";
			break;
		case '\'':
			rep = "&apos;";
			break;
		default:
			if ((p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r') ||
			    p[i] == 0x7f) {
				rep = "?";
				break;
			}
			seq = utf8_seq_len(p + i, len - i);
			if (!seq) {
				rep = "?";
				seq = 1;
			}
			break;
		}
		if (rep) {
			if (run && fwrite(p + i - run, 1, run, out) != run)
				return -EIO;
			run = 0;
			if (fputs(rep, out) == EOF)
				return -EIO;
			i += seq;
		} else {
			run += seq;
			i += seq;
		}
	}
	if (run && fwrite(p + i - run, 1, run, out) != run)
		return -EIO;
	return 0;
}
