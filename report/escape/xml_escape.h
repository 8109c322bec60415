/* SPDX-License-Identifier: Apache-2.0 */
/* xml_escape.h - the one function that makes text safe inside XML/SVG. */
#ifndef GPUPERF_XML_ESCAPE_H
#define GPUPERF_XML_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Write s[0..len) to `out` as XML character data or attribute value:
 * & < > " ' become entities; bytes XML 1.0 forbids (controls other than
 * tab, LF, CR) and bytes that are not valid UTF-8 become '?', so that a
 * browser never rejects the document. Stops at len or the first NUL.
 * Returns 0 or -EIO.
 */
int xml_escape__write(FILE *out, const char *s, size_t len);

#endif /* GPUPERF_XML_ESCAPE_H */
