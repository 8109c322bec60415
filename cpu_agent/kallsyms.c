// SPDX-License-Identifier: Apache-2.0
/* kallsyms: the kernel symbols covering a recording's addresses, as a small kallsyms file. */
#include "kallsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gp_file.h"

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

/* All of @fd (a /proc file: its size is not known ahead), NUL-terminated; @fd is closed. */
static int slurp(int fd, char **out, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap + 1), *nb;
	int err = 0;
	ssize_t r;

	if (fd < 0 || !buf) {
		err = fd < 0 ? fd : -ENOMEM;
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

/* The hex number at @p (strtoull's work without its locale and base handling): *@end after it. */
static uint64_t hex(const char *p, char **end)
{
	uint64_t v = 0;
	const char *s = p;

	for (;; s++) {
		unsigned int c = (unsigned char)*s, d;

		if (c - '0' < 10)
			d = c - '0';
		else if ((c | 0x20) - 'a' < 6)
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		if (s - p >= 16)
			break; /* no more than 64 bits: what follows is not a separator */
		v = v << 4 | d;
	}
	*end = (char *)s;
	return v;
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
		addr = hex(p, &end);
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

/* Open /proc/kallsyms (or a file standing in for it) without following a link or blocking. */
static int open_src(const char *src)
{
	int fd = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * The text symbols of the file at @fd (closed) after its first @skip bytes,
 * sorted by address (aliases in file order): 0 or -errno.
 */
static int table_load_fd(struct ksym_table *t, int fd, size_t skip)
{
	size_t len = 0, i;
	int err;

	memset(t, 0, sizeof(*t));
	err = slurp(fd, &t->buf, &len);
	if (!err && skip > len)
		err = -EINVAL;
	if (!err)
		err = parse(t->buf + skip, &t->v, &t->n);
	if (err) {
		free(t->buf);
		memset(t, 0, sizeof(*t));
		return err;
	}
	/* a cache's table is in order already */
	for (i = 1; i < t->n && ksym_cmp(&t->v[i - 1], &t->v[i]) < 0; i++)
		;
	if (i < t->n)
		qsort(t->v, t->n, sizeof(*t->v), ksym_cmp);
	/* the kernel's own text: the part of the table that does not change */
	for (i = 0; i < t->n; i++) {
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

static int table_load(struct ksym_table *t, const char *src)
{
	return table_load_fd(t, open_src(src), 0);
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
	int cache_dfd;		/* -1: no cache */
	char boot_id[KSYM_BOOT_ID_MAX];
	int cache_state;	/* KSYM_CACHE_* or -errno of a write */
};

#define CACHE_MAGIC "gpuperf-kallsyms 1 "

/*
 * The cache's first line: CACHE_MAGIC, the boot id, the number of symbols
 * that follow (a file cut short is not taken for the table). Its length,
 * or -errno.
 */
static int cache_header(char *buf, size_t len, const char *boot_id, size_t n)
{
	int r = snprintf(buf, len, CACHE_MAGIC "%s %zu\n", boot_id, n);

	return r > 0 && (size_t)r < len ? r : -ENAMETOOLONG;
}

/*
 * The table from the cache: the kernel's own text as read in this boot.
 * 0, or -errno (-ESTALE: of another boot, or not whole).
 */
static int cache_load(struct ksym_snap *k)
{
	char head[128], *nl, *end;
	int fd = gp_file__input(k->cache_dfd, KSYM_CACHE_FILE), err;
	size_t n, m = strlen(CACHE_MAGIC);
	ssize_t got;

	if (fd < 0)
		return fd;
	got = pread(fd, head, sizeof(head) - 1, 0);
	if (got <= 0) {
		close(fd);
		return got < 0 ? -errno : -ESTALE;
	}
	head[got] = '\0';
	nl = strchr(head, '\n');
	n = strlen(k->boot_id);
	if (!nl || memcmp(head, CACHE_MAGIC, m) || strncmp(head + m, k->boot_id, n) ||
	    head[m + n] != ' ') {
		close(fd);
		return -ESTALE;
	}
	n = strtoull(head + m + n + 1, &end, 10);
	if (end != nl) {
		close(fd);
		return -ESTALE;
	}
	err = table_load_fd(&k->t, fd, (size_t)(nl + 1 - head));
	if (!err && (k->t.n != n || !k->t.etext || k->t.v[0].addr < k->t.stext ||
		     k->t.v[k->t.n - 1].addr > k->t.etext))
		err = -ESTALE;
	if (err)
		table_free(&k->t);
	return err;
}

/*
 * Write the kernel's own text of the table (the symbols in [_stext,
 * _etext], in address order) to the cache: a new file renamed over the old
 * one, so a reader sees one whole file or the other. 0 or -errno.
 */
static int cache_write(struct ksym_snap *k)
{
	const struct ksym_table *t = &k->t;
	char tmp[64], ob[65536];
	size_t i, first, last, on = 0;
	int fd, err, len;

	for (first = 0; first < t->n && t->v[first].addr < t->stext; first++)
		;
	for (last = first; last < t->n && t->v[last].addr <= t->etext; last++)
		;
	snprintf(tmp, sizeof(tmp), "%s.%d", KSYM_CACHE_FILE, (int)getpid());
	unlinkat(k->cache_dfd, tmp, 0); /* left by a run that died: the directory is ours */
	fd = gp_file__create(k->cache_dfd, tmp, false, 0, 0);
	if (fd < 0)
		return fd;
	if (fchmod(fd, 0600)) { /* root's alone, whatever the umask */
		err = -errno;
		close(fd);
		unlinkat(k->cache_dfd, tmp, 0);
		return err;
	}
	len = cache_header(ob, sizeof(ob), k->boot_id, last - first);
	err = len < 0 ? len : 0;
	on = len < 0 ? 0 : (size_t)len;
	for (i = first; i < last && !err; i++) {
		err = out_put(fd, ob, &on, sizeof(ob), t->v[i].line, t->v[i].len);
		if (!err)
			err = out_put(fd, ob, &on, sizeof(ob), "\n", 1);
	}
	if (!err)
		err = out_put(fd, ob, &on, sizeof(ob), NULL, 0);
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(k->cache_dfd, tmp, k->cache_dfd, KSYM_CACHE_FILE))
		err = -errno;
	if (err)
		unlinkat(k->cache_dfd, tmp, 0);
	return err;
}

static void *snap_read(void *arg)
{
	struct ksym_snap *k = arg;
	struct sched_param sp = { 0 };

	/* only CPU time nothing else wants: the program may be running */
	if (k->background)
		pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	if (k->cache_dfd >= 0 && !cache_load(k)) {
		k->cache_state = KSYM_CACHE_HIT;
		return NULL;
	}
	k->err = table_load(&k->t, k->src);
	/* a table without its text bounds is of no use at start: not kept either */
	if (k->cache_dfd >= 0 && !k->err && k->t.etext) {
		k->cache_state = cache_write(k);
		if (!k->cache_state)
			k->cache_state = KSYM_CACHE_WRITTEN;
	}
	return NULL;
}

struct ksym_snap *kallsyms__snap_start(const char *src, bool background)
{
	return kallsyms__snap_start_cached(src, -1, NULL, background);
}

struct ksym_snap *kallsyms__snap_start_cached(const char *src, int cache_dfd, const char *boot_id,
					      bool background)
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
	k->cache_dfd = -1;
	/* a boot id that cannot be a file's key: no cache (a reader could not tell boots apart) */
	if (cache_dfd >= 0 && boot_id && boot_id[0] && strlen(boot_id) < sizeof(k->boot_id) &&
	    !strpbrk(boot_id, " \n")) {
		k->cache_dfd = cache_dfd;
		snprintf(k->boot_id, sizeof(k->boot_id), "%s", boot_id);
	}
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

int kallsyms__snap_cache_state(struct ksym_snap *k)
{
	if (!k)
		return KSYM_CACHE_NONE;
	snap_wait(k);
	return k->cache_state;
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
