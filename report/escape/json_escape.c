// SPDX-License-Identifier: Apache-2.0
/* json_escape.c - the byte table and the escapes of json_escape() (json_escape.h). */
#include "json_escape.h"

#include <stdio.h>

#define ANY (JSON_ESC_PLAIN_ANY | JSON_ESC_PLAIN_RAW)

const unsigned char json_escape_plain[256] = {
	[0x01 ... 0x1f] = JSON_ESC_PLAIN_RAW,
	[0x20] = ANY, [0x21] = ANY, ['"'] = JSON_ESC_PLAIN_RAW, [0x23 ... 0x5b] = ANY,
	['\\'] = JSON_ESC_PLAIN_RAW, [0x5d ... 0x7f] = ANY,
};

const char *json_escape__byte(unsigned char c, unsigned flags, char *tmp)
{
	if (c >= 0x80)
		return flags & JSON_ESC_FFFD ? "\xef\xbf\xbd" : "?";
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\t':
		return "\\t";
	case '\r':
		return "\\r";
	case '\b':
		return "\\b";
	case '\f':
		return "\\f";
	default:
		snprintf(tmp, 8, "\\u%04x", c);
		return tmp;
	}
}
