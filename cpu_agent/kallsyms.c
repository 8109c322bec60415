// SPDX-License-Identifier: Apache-2.0
/* kallsyms: the kernel symbols covering a recording's addresses, as a small kallsyms file. */
#include "kallsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KALLSYMS_MAX (256u << 20) /* bytes of /proc/kallsyms read (about 5 MB today) */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static int kip_grow(struct kip_set *s)
{
	size_t ncap = s->cap ? 2 * s->cap : 1024, i;
	uint64_t *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->slots[i])
			continue;
		for (j = mix(s->slots[i]) & (ncap - 1); ns[j]; j = (j + 1) & (ncap - 1))
			;
		ns[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = ns;
	s->cap = ncap;
	return 0;
}

void kip_set__add(struct kip_set *s, uint64_t ip)
{
	size_t i;

	if (!ip || s->full)
		return;
	if ((s->n + 1) * 2 > s->cap) {
		if (s->n >= KIP_MAX || kip_grow(s)) {
			s->full = true;
			return;
		}
	}
	for (i = mix(ip) & (s->cap - 1); s->slots[i]; i = (i + 1) & (s->cap - 1))
		if (s->slots[i] == ip)
			return;
	s->slots[i] = ip;
	s->n++;
}

void kip_set__free(struct kip_set *s)
{
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

struct ksym_line {
	uint64_t addr;
	const char *line; /* in the file's buffer, up to and without its '\n' */
	size_t len;
	size_t order;	  /* in the file: aliases keep it */
	bool need;
};

/* /proc/kallsyms's text symbols, sorted. */
struct ksym_table {
	char *buf;		/* the file, NUL-terminated: the lines point into it */
	struct ksym_line *v;
	size_t n;
	uint64_t stext, etext;	/* the kernel's own text, [_stext, _etext); 0, 0: not found */
};

static int ksym_cmp(const void *x, const void *y)
{
	const struct ksym_line *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static int u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* All of @path (a /proc file: its size is not known ahead), NUL-terminated. */
static int slurp(const char *path, char **out, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap + 1), *nb;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), err = 0;
	ssize_t r;

	if (fd < 0 || !buf) {
		err = fd < 0 ? -errno : -ENOMEM;
		goto fail;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= KALLSYMS_MAX) {
				err = -EFBIG;
				goto fail;
			}
			nb = realloc(buf, 2 * cap + 1);
			if (!nb) {
				err = -ENOMEM;
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return err;
}

/* The text symbols of @buf (as the report reads them: t, T, w, W, address not 0), in file order. */
static int parse(char *buf, struct ksym_line **out, size_t *nout)
{
	struct ksym_line *v = NULL, *nv;
	size_t n = 0, cap = 0;
	char *p = buf;

	while (*p) {
		char *nl = strchr(p, '\n'), *end;
		uint64_t addr;

		if (!nl)
			nl = p + strlen(p);
		addr = strtoull(p, &end, 16);
		if (end != p && *end == ' ' && end + 2 < nl && strchr("tTwW", end[1]) &&
		    end[2] == ' ' && addr) {
			if (n == cap) {
				cap = cap ? 2 * cap : 65536;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[n] = (struct ksym_line){ .addr = addr, .line = p, .len = (size_t)(nl - p),
						   .order = n };
			n++;
		}
		p = *nl ? nl + 1 : nl;
	}
	*out = v;
	*nout = n;
	return 0;
}

/* Buffered writes of whole lines: 0 or -errno (-EIO for a write that stores nothing). */
static int out_put(int fd, char *ob, size_t *on, size_t cap, const char *s, size_t len)
{
	while (*on + len > cap || (!s && *on)) {
		const char *p = ob;
		size_t left = *on;

		while (left) {
			ssize_t w = write(fd, p, left);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return w < 0 ? -errno : -EIO;
			p += w;
			left -= (size_t)w;
		}
		*on = 0;
		if (!s)
			return 0;
		if (len > cap)
			return -EINVAL;
	}
	if (s) {
		memcpy(ob + *on, s, len);
		*on += len;
	}
	return 0;
}

/* The text symbols of @src, sorted by address (aliases in file order): 0 or -errno. */
static int table_load(struct ksym_table *t, const char *src)
{
	size_t len;
	int err;

	memset(t, 0, sizeof(*t));
	err = slurp(src, &t->buf, &len);
	if (!err)
		err = parse(t->buf, &t->v, &t->n);
	if (err) {
		free(t->buf);
		memset(t, 0, sizeof(*t));
		return err;
	}
	qsort(t->v, t->n, sizeof(*t->v), ksym_cmp);
	/* the kernel's own text: the part of the table that does not change */
	for (size_t i = 0; i < t->n; i++) {
		const struct ksym_line *l = &t->v[i];
		const char *name = (const char *)memchr(l->line, ' ', l->len) + 3; /* parse() checked it */
		size_t nlen = l->len - (size_t)(name - l->line);

		if (nlen < 6 || (nlen > 6 && name[6] != '\t'))
			continue;
		if (!memcmp(name, "_stext", 6))
			t->stext = l->addr;
		else if (!memcmp(name, "_etext", 6))
			t->etext = l->addr;
	}
	if (t->etext <= t->stext)
		t->stext = t->etext = 0;
	return 0;
}

static void table_free(struct ksym_table *t)
{
	free(t->v);
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

/* Write the symbols of @t that name the addresses of @s (see kallsyms__write_needed). */
static int table_write(struct ksym_table *t, const struct kip_set *s, int fd, uint64_t *nsyms)
{
	struct ksym_line *v = t->v;
	uint64_t *ips = NULL;
	size_t n = t->n, nips = 0, i, j, on = 0;
	char ob[65536];
	int err = 0;

	*nsyms = 0;
	for (i = 0; i < n; i++)
		v[i].need = s->full;
	if (!s->full && s->n) {
		ips = malloc(s->n * sizeof(*ips));
		if (!ips)
			return -ENOMEM;
		for (i = 0; i < s->cap; i++)
			if (s->slots[i])
				ips[nips++] = s->slots[i];
		qsort(ips, nips, sizeof(*ips), u64_cmp);
		/* one pass: both sorted */
		for (i = 0, j = 0; i < nips; i++) {
			size_t k;

			while (j < n && v[j].addr <= ips[i])
				j++;
			if (!j)
				continue; /* below the first symbol: nothing names it */
			/* the covering symbol and its aliases (same address) */
			for (k = j; k > 0 && v[k - 1].addr == v[j - 1].addr; k--)
				v[k - 1].need = true;
			/* the next symbol and its aliases: where the range ends */
			for (k = j; k < n && v[k].addr == v[j].addr; k++)
				v[k].need = true;
		}
	}
	for (i = 0; i < n && !err; i++) {
		if (!v[i].need)
			continue;
		(*nsyms)++;
		err = out_put(fd, ob, &on, sizeof(ob), v[i].line, v[i].len);
		if (!err)
			err = out_put(fd, ob, &on, sizeof(ob), "\n", 1);
	}
	if (!err)
		err = out_put(fd, ob, &on, sizeof(ob), NULL, 0);
	if (err)
		for (; i < n; i++)
			*nsyms += v[i].need;
	free(ips);
	return err;
}

int kallsyms__write_needed(const char *src, const struct kip_set *s, int fd, uint64_t *nsyms)
{
	struct ksym_table t;
	int err;

	*nsyms = 0;
	err = table_load(&t, src);
	if (err)
		return err;
	err = table_write(&t, s, fd, nsyms);
	table_free(&t);
	return err;
}

struct ksym_snap {
	char *src;
	pthread_t th;
	bool running;
	bool background;	/* read at SCHED_IDLE until waited for */
	int err;		/* of the read; the table is empty then */
	struct ksym_table t;
};

static void *snap_read(void *arg)
{
	struct ksym_snap *k = arg;
	struct sched_param sp = { 0 };

	/* only CPU time nothing else wants: the program may be running */
	if (k->background)
		pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	k->err = table_load(&k->t, k->src);
	return NULL;
}

struct ksym_snap *kallsyms__snap_start(const char *src, bool background)
{
	struct ksym_snap *k = calloc(1, sizeof(*k));
	sigset_t all, old;

	if (!k)
		return NULL;
	k->src = strdup(src);
	if (!k->src) {
		free(k);
		return NULL;
	}
	k->background = background;
	/* the caller's signal handlers run on the caller's threads */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	k->running = !pthread_create(&k->th, NULL, snap_read, k);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!k->running) {
		k->background = false;
		snap_read(k); /* no thread: read here */
	}
	return k;
}

/* Wait for the read, at normal priority from now on (the caller waits for it). */
static void snap_wait(struct ksym_snap *k)
{
	struct sched_param sp = { 0 };

	if (!k->running)
		return;
	if (k->background)
		pthread_setschedparam(k->th, SCHED_OTHER, &sp);
	pthread_join(k->th, NULL);
	k->running = false;
}

bool kallsyms__snap_covers(struct ksym_snap *k, const struct kip_set *s)
{
	if (!k)
		return false;
	snap_wait(k);
	if (k->err || !k->t.etext || s->full)
		return false;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i] && (s->slots[i] < k->t.stext || s->slots[i] >= k->t.etext))
			return false;
	return true;
}

int kallsyms__snap_write_needed(struct ksym_snap *k, const struct kip_set *s, int fd,
				uint64_t *nsyms)
{
	*nsyms = 0;
	if (!k)
		return -EINVAL;
	snap_wait(k);
	if (k->err)
		return k->err;
	return table_write(&k->t, s, fd, nsyms);
}

void kallsyms__snap_free(struct ksym_snap *k)
{
	if (!k)
		return;
	snap_wait(k);
	table_free(&k->t);
	free(k->src);
	free(k);
}
