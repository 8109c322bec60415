# SPDX-License-Identifier: Apache-2.0
"""protowire.py - the protobuf wire format, decoded by hand for the tests' checkers
(check_pftrace.py, check_pprof.py): no protobuf library and no code shared with
the C writers, so that what they write is read by an independent decoder."""
import struct
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def fields(buf):
    """(field number, wire type, value) of a message: ints for varint/fixed, bytes for len."""
    i, n = 0, len(buf)
    out = []
    while i < n:
        key, i = varint(buf, i)
        fno, wt = key >> 3, key & 7
        if fno == 0:
            fail("field number 0 at offset %d" % i)
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 1:
            if i + 8 > n:
                fail("fixed64 cut short")
            v = struct.unpack_from("<Q", buf, i)[0]
            i += 8
        elif wt == 2:
            ln, i = varint(buf, i)
            if i + ln > n:
                fail("length-delimited field %d runs past its message" % fno)
            v = bytes(buf[i:i + ln])
            i += ln
        elif wt == 5:
            v = struct.unpack_from("<I", buf, i)[0]
            i += 4
        else:
            fail("wire type %d" % wt)
        out.append((fno, wt, v))
    return out


def varint(buf, i):
    v, shift = 0, 0
    while True:
        if i >= len(buf):
            fail("varint cut short")
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        if not b & 0x80:
            return v, i
        shift += 7
        if shift > 63:
            fail("varint longer than 10 bytes")
