// SPDX-License-Identifier: Apache-2.0
/* cfi_cache: CFI tables kept on disk between runs (see cfi_cache.h). */
#include "cfi_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfi_file.h"
#include "cfi_table.h"
#include "gp_alloc.h"
#include "gp_file.h"
#include "gp_util.h"

#define ENTRY_SUFFIX ".cfi"
#define TMP_PREFIX ".tmp-"

struct cfi_cache {
	int dfd;
	struct cfi_cache_opts o;
	uint32_t seq;		/* temporary names of this process */
	struct cfi_cache_stats st;
};

int cfi_cache__open(int dir_fd, const struct cfi_cache_opts *opts, struct cfi_cache **out)
{
	struct cfi_cache *c;
	struct stat sb;
	uid_t owner;
	int err;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (opts)
		c->o = *opts;
	if (!c->o.max_bytes)
		c->o.max_bytes = CFI_CACHE_DEF_MAX_BYTES;
	owner = c->o.set_owner ? c->o.owner_uid : geteuid();
	c->dfd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
	if (c->dfd < 0) {
		err = -errno;
		goto fail;
	}
	if (fstat(c->dfd, &sb)) {
		err = -errno;
		goto fail;
	}
	if (!S_ISDIR(sb.st_mode)) {
		err = -ENOTDIR;
		goto fail;
	}
	if (sb.st_uid != owner) {
		err = -EPERM;
		goto fail;
	}
	*out = c;
	return 0;
fail:
	cfi_cache__free(c);
	return err;
}

void cfi_cache__free(struct cfi_cache *c)
{
	if (!c)
		return;
	if (c->dfd >= 0)
		close(c->dfd);
	free(c);
}

static int entry_name(const char *key, char *name, size_t len)
{
	int n = snprintf(name, len, "%s" ENTRY_SUFFIX, key);

	return n > 0 && (size_t)n < len && key[0] != '.' && !strchr(key, '/') ? 0 : -EINVAL;
}

/* All of @fd (a regular file of at most @max bytes) into a malloc'ed buffer. */
static int read_all(int fd, uint64_t max, void **buf, size_t *len)
{
	struct stat sb;
	size_t got = 0, size;
	uint8_t *p;

	if (fstat(fd, &sb))
		return -errno;
	if ((uint64_t)sb.st_size > max)
		return -EFBIG;
	size = (size_t)sb.st_size;
	p = malloc(size ? size : 1);
	if (!p)
		return -ENOMEM;
	while (got < size) {
		ssize_t n = pread(fd, p + got, size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* shorter than it said: the decode rejects it */
		got += (size_t)n;
	}
	*buf = p;
	*len = got;
	return 0;
}

int cfi_cache__get(struct cfi_cache *c, const char *key, struct cfi_table **out)
{
	char name[CFI_FILE_KEY_MAX + 8];
	void *buf = NULL;
	size_t len = 0;
	int fd, err;

	*out = NULL;
	if (entry_name(key, name, sizeof(name))) {
		c->st.misses++;
		return -ENOENT;
	}
	fd = gp_file__input(c->dfd, name);
	if (fd == -ENOENT) {
		c->st.misses++;
		return -ENOENT;
	}
	if (fd < 0) {
		/* a link, a FIFO, a directory, unreadable: not an entry we wrote */
		c->st.bad++;
		return -EBADMSG;
	}
	err = read_all(fd, c->o.max_bytes, &buf, &len);
	if (!err)
		err = cfi_file__decode(buf, len, key, out);
	if (!err)
		futimens(fd, NULL); /* last used now: eviction goes oldest first */
	close(fd);
	free(buf);
	if (err == -ENOMEM)
		return err;
	if (err) {
		c->st.bad++;
		return -EBADMSG;
	}
	c->st.hits++;
	return 0;
}

struct ent {
	struct timespec used;
	uint64_t size;
	char name[CFI_FILE_KEY_MAX + 32];
};

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Remove the least recently used entries (and temporaries) until max_bytes are left. */
static void evict(struct cfi_cache *c)
{
	struct ent *v = NULL;
	size_t n = 0, cap = 0, i;
	uint64_t total = 0;
	struct dirent *de;
	struct stat sb;
	DIR *d;
	int fd = fcntl(c->dfd, F_DUPFD_CLOEXEC, 3);

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	rewinddir(d); /* a duplicate shares the offset an earlier scan left at the end */
	while ((de = readdir(d))) {
		if (fnmatch("*" ENTRY_SUFFIX, de->d_name, FNM_PERIOD) &&
		    strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX)))
			continue;
		if (strlen(de->d_name) >= sizeof(v->name) ||
		    fstatat(c->dfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode))
			continue;
		if (GP_ALLOC_GROW(v, n + 1, cap))
			goto out;
		v[n].used = sb.st_mtim;
		v[n].size = (uint64_t)sb.st_size;
		memcpy(v[n].name, de->d_name, strlen(de->d_name) + 1); /* length checked above */
		total += v[n].size;
		n++;
	}
	if (total <= c->o.max_bytes)
		goto out;
	gp_sort(v, n, sizeof(*v), ent_cmp);
	for (i = 0; i < n && total > c->o.max_bytes; i++) {
		/* unlinkat removes the name only, whatever it is: nothing is followed */
		if (!unlinkat(c->dfd, v[i].name, 0)) {
			total -= v[i].size;
			c->st.evicted++;
		}
	}
out:
	free(v);
	closedir(d);
}

int cfi_cache__put(struct cfi_cache *c, const char *key, const struct cfi_table *t)
{
	char name[CFI_FILE_KEY_MAX + 8], tmp[CFI_FILE_KEY_MAX + 32];
	void *buf = NULL;
	size_t len;
	int fd = -1, err;

	err = entry_name(key, name, sizeof(name));
	if (err)
		goto out;
	err = cfi_file__encode(t, key, &buf, &len);
	if (err)
		goto out;
	if (len > c->o.max_bytes) {
		err = -EFBIG;
		goto out;
	}
	snprintf(tmp, sizeof(tmp), TMP_PREFIX "%d.%u.%s", (int)getpid(), c->seq++, key);
	fd = gp_file__create(c->dfd, tmp, c->o.set_owner, c->o.owner_uid, c->o.owner_gid);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	err = gp_file__write_full(fd, buf, len);
	if (close(fd) && !err)
		err = -errno;
	fd = -1;
	/* rename replaces the name KEY.cfi, whatever it was (a link is not followed) */
	if (!err && renameat(c->dfd, tmp, c->dfd, name))
		err = -errno;
	if (err)
		unlinkat(c->dfd, tmp, 0);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	if (err) {
		if (!c->st.write_errors++)
			c->st.write_error = -err;
		return err;
	}
	c->st.written++;
	evict(c);
	return 0;
}

void cfi_cache__stats(const struct cfi_cache *c, struct cfi_cache_stats *st)
{
	*st = c->st;
}
