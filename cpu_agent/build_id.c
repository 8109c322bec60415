// SPDX-License-Identifier: Apache-2.0
/* build_id: read the GNU build id of an ELF file with libelf. */
#include "build_id.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <elf.h>
#include <gelf.h>
#include <libelf.h>

static int note_build_id(Elf_Data *data, uint8_t id[BUILD_ID_MAX], uint32_t *len)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0) {
			uint32_t n = nh.n_descsz < BUILD_ID_MAX ? nh.n_descsz : BUILD_ID_MAX;

			memcpy(id, (const char *)data->d_buf + desc_off, n);
			*len = n;
			return 0;
		}
	}
	return -ENOENT;
}

int build_id__read(const char *path, uint8_t id[BUILD_ID_MAX], uint32_t *len)
{
	size_t nph = 0;
	Elf *elf = NULL;
	int fd, err = -ENOENT;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto out;
	}
	/* Program headers first: they survive strip and are what the loader maps. */
	if (elf_getphdrnum(elf, &nph) == 0) {
		for (size_t i = 0; i < nph && err; i++) {
			GElf_Phdr ph;
			Elf_Data *d;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
			if (d)
				err = note_build_id(d, id, len);
		}
	}
	if (err) {
		Elf_Scn *scn = NULL;

		while (err && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
				continue;
			d = elf_getdata(scn, NULL);
			if (d)
				err = note_build_id(d, id, len);
		}
	}
out:
	elf_end(elf);
	close(fd);
	return err;
}
