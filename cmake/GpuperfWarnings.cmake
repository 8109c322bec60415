# SPDX-License-Identifier: Apache-2.0
# The only place compiler warning and sanitizer flags live.

set(GPUPERF_C_WARNINGS
	-Wall -Wextra -Wshadow -Wformat=2 -Wformat-security
	-Wstrict-prototypes -Wmissing-prototypes -Wold-style-definition
	-Wpointer-arith -Wcast-align -Wwrite-strings -Wundef
	-Wno-unused-parameter -Wno-missing-field-initializers)

if(GPUPERF_SANITIZE)
	add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
		-fno-sanitize-recover=undefined)
	add_link_options(-fsanitize=address,undefined)
endif()

# gpuperf_target_warnings(<target>): our warning set, -Werror when asked.
function(gpuperf_target_warnings tgt)
	target_compile_options(${tgt} PRIVATE
		$<$<COMPILE_LANGUAGE:C>:${GPUPERF_C_WARNINGS}>)
	if(GPUPERF_WERROR)
		target_compile_options(${tgt} PRIVATE $<$<COMPILE_LANGUAGE:C>:-Werror>)
	endif()
endfunction()
