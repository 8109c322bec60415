# SPDX-License-Identifier: Apache-2.0
# embed.cmake - turn a text file into a C header with one NUL-terminated char array.
# Usage: cmake -DIN=file -DOUT=header.h -DNAME=symbol -P embed.cmake
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
get_filename_component(base "${IN}" NAME)
file(WRITE "${OUT}" "/* Generated from ${base} by embed.cmake; do not edit. */\nstatic const char ${NAME}[] = {${body}0x00};\n")
