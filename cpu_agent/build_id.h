/* SPDX-License-Identifier: Apache-2.0 */
/* build_id: read the GNU build id of an ELF file with libelf. */
#ifndef GPUPERF_CPU_AGENT_BUILD_ID_H
#define GPUPERF_CPU_AGENT_BUILD_ID_H

#include <stdint.h>

#define BUILD_ID_MAX 20

/*
 * The NT_GNU_BUILD_ID note of @path into @id (at most BUILD_ID_MAX bytes,
 * longer ids are truncated) and its length into *len. Returns 0, -ENOENT
 * when the file has no build id, -ENOEXEC when it is not ELF, or -errno.
 */
int build_id__read(const char *path, uint8_t id[BUILD_ID_MAX], uint32_t *len);

#endif /* GPUPERF_CPU_AGENT_BUILD_ID_H */
