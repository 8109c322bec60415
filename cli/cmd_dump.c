// SPDX-License-Identifier: Apache-2.0
/* cmd_dump.c - `gpuperf dump`: print a trace's header and records, or their counts. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "gp_reader.h"
#include "gp_record.h"

static const char dump_usage[] =
	"usage: gpuperf dump [--stats] FILE...\n"
	"\n"
	"Print the header and every record of gpuperf trace files, one record a line.\n"
	"\n"
	"  -s, --stats   print only the count of each record type\n"
	"  -h, --help    show this help\n"
	"\n"
	"Exit status: 0 when every file read cleanly, 1 when a file is missing,\n"
	"damaged or cut short (the intact records are still printed), 2 on usage errors.\n";

static const char *str(const struct gp_reader *r, uint32_t id)
{
	const char *s = gp_reader__string(r, id);

	return s ? s : (id ? "?" : "");
}

static const char *producer_name(uint16_t p)
{
	switch (p) {
	case GP_PRODUCER_INJECT:
		return "inject";
	case GP_PRODUCER_CPU_AGENT:
		return "cpu_agent";
	case GP_PRODUCER_SYNTH:
		return "synthetic";
	default:
		return "unknown";
	}
}

static void print_ips(const uint64_t *ips, unsigned nu, unsigned nk)
{
	unsigned i;

	for (i = 0; i < nu + nk; i++)
		printf("%s%s0x%" PRIx64, i ? " " : " stack=", i == nu && nk ? "| " : "", ips[i]);
}

/* (2.5) where a sample's or span's user stack ends, when its producer said */
static void print_stack_end(const struct gp_rec_hdr *h)
{
	unsigned end = GP_STACK_END_OF(h->flags);
	const char *name = gp_stack_end_name(end);

	if (name)
		printf(" end=%s", name);
	else if (end)
		printf(" end=%u", end);
}

/* A graph's work: the graph, and the node of the executable graph that ran (2.4) */
static void print_graph(const struct gp_rec_gpu *g)
{
	if (g->graph_id || g->graph_node_id)
		printf(" graph=%u node=%" PRIu64, g->graph_id, g->graph_node_id);
}

static void print_record(const struct gp_reader *r, const struct gp_rec_hdr *h)
{
	struct gp_rec_gpu g;

	printf("%-11s", gp_rec_type_name(h->type));
	/* the four GPU records open with what they share */
	if (gp_rec_gpu__get(h, &g))
		printf(" start=%" PRIu64 " dur=%" PRId64 " corr=%u", g.start, (int64_t)(g.end - g.start),
		       g.correlation_id);
	switch (h->type) {
	case GP_REC_STRING: {
		const struct gp_rec_string *s = (const void *)h;

		printf(" id=%u \"%s\"", s->id, s->data);
		break;
	}
	case GP_REC_CLOCK_PAIR: {
		const struct gp_rec_clock_pair *c = (const void *)h;

		printf(" source=%u producer=%" PRIu64 " mono=%" PRIu64 " real=%" PRIu64, c->source,
		       c->producer_ts, c->monotonic_ns, c->realtime_ns);
		break;
	}
	case GP_REC_PROCESS: {
		const struct gp_rec_process *p = (const void *)h;

		printf(" ts=%" PRIu64 " pid=%u ppid=%u event=%u exit=%d comm=%s exe=%s", p->ts, p->pid,
		       p->ppid, p->event, p->exit_code, str(r, p->comm_str), str(r, p->exe_str));
		break;
	}
	case GP_REC_THREAD: {
		const struct gp_rec_thread *t = (const void *)h;

		printf(" ts=%" PRIu64 " pid=%u tid=%u event=%u name=%s", t->ts, t->pid, t->tid, t->event,
		       str(r, t->name_str));
		break;
	}
	case GP_REC_MODULE: {
		const struct gp_rec_module *m = (const void *)h;
		uint32_t i;

		printf(" pid=%u 0x%" PRIx64 "-0x%" PRIx64 " pgoff=0x%" PRIx64 " %s build_id=", m->pid,
		       m->start, m->end, m->pgoff, str(r, m->path_str));
		for (i = 0; i < m->build_id_size && i < sizeof(m->build_id); i++)
			printf("%02x", m->build_id[i]);
		break;
	}
	case GP_REC_DEVICE: {
		const struct gp_rec_device *d = (const void *)h;

		printf(" id=%u name=\"%s\" cc=%u.%u sms=%u mem=%" PRIu64, d->device_id, str(r, d->name_str),
		       d->cc_major, d->cc_minor, d->sm_count, d->global_memory_bytes);
		break;
	}
	case GP_REC_API: {
		const struct gp_rec_api *a = (const void *)h;

		printf(" start=%" PRIu64 " dur=%" PRId64 " corr=%u pid=%u tid=%u %s cbid=%u ret=%d %s",
		       a->start, (int64_t)(a->end - a->start), a->correlation_id, a->pid, a->tid,
		       a->domain == GP_API_DRIVER ? "driver" : "runtime", a->cbid, a->return_value,
		       str(r, a->name_str));
		break;
	}
	case GP_REC_KERNEL: {
		const struct gp_rec_kernel *k = (const void *)h;

		printf(" dev=%u ctx=%u stream=%u grid=%ux%ux%u block=%ux%ux%u regs=%u",
		       g.device_id, g.context_id, g.stream_id, k->grid[0], k->grid[1], k->grid[2],
		       k->block[0], k->block[1], k->block[2], k->registers_per_thread);
		print_graph(&g);
		printf(" %s", str(r, k->name_str));
		break;
	}
	case GP_REC_MEMCPY: {
		const struct gp_rec_memcpy *m = (const void *)h;

		printf(" dev=%u stream=%u kind=%u bytes=%" PRIu64 " async=%u", g.device_id, g.stream_id,
		       m->copy_kind, m->bytes, m->is_async);
		print_graph(&g);
		break;
	}
	case GP_REC_MEMSET: {
		const struct gp_rec_memset *m = (const void *)h;

		printf(" dev=%u stream=%u bytes=%" PRIu64 " value=%u", g.device_id, g.stream_id, m->bytes,
		       m->value);
		print_graph(&g);
		break;
	}
	case GP_REC_SYNC: {
		const struct gp_rec_sync *s = (const void *)h;

		printf(" type=%u stream=%d", s->sync_type, (int32_t)g.stream_id);
		break;
	}
	case GP_REC_CPU_SAMPLE: {
		const struct gp_rec_cpu_sample *s = (const void *)h;

		printf(" ts=%" PRIu64 " pid=%u tid=%u cpu=%u weight=%" PRIu64, s->ts, s->pid, s->tid,
		       s->cpu, s->weight_ns);
		print_stack_end(h);
		print_ips(s->ips, s->nr_user, s->nr_kernel);
		break;
	}
	case GP_REC_OFFCPU: {
		const struct gp_rec_offcpu *o = (const void *)h;

		printf(" start=%" PRIu64 " dur=%" PRId64 " pid=%u tid=%u", o->start,
		       (int64_t)(o->end - o->start), o->pid, o->tid);
		if (h->flags & GP_OFFCPU_AGGREGATE) {
			/* not a span: the sum of the thread's short blocks */
			printf(" aggregate blocks=%u", o->pad);
			break;
		}
		printf(" state=%u waker=%u cpu=%u", o->state, o->waker_tid, o->cpu);
		print_stack_end(h);
		print_ips(o->ips, o->nr_user, o->nr_kernel);
		break;
	}
	case GP_REC_LAUNCH_SITE: {
		const struct gp_rec_launch_site *l = (const void *)h;

		printf(" ts=%" PRIu64 " pid=%u tid=%u probe=%s", l->ts, l->pid, l->tid, str(r, l->probe_str));
		print_ips(l->ips, l->nr_user, l->nr_kernel);
		break;
	}
	case GP_REC_STACK: {
		const struct gp_rec_stack *k = (const void *)h;

		printf(" id=%u", k->id);
		print_ips(k->ips, k->nr_user, k->nr_kernel);
		break;
	}
	case GP_REC_LAUNCH_SITE_ID: {
		const struct gp_rec_launch_site_id *l = (const void *)h;

		printf(" ts=%" PRIu64 " pid=%u tid=%u probe=%s stack_id=%u", l->ts, l->pid, l->tid,
		       str(r, l->probe_str), l->stack_id);
		break;
	}
	case GP_REC_API_STACK: {
		const struct gp_rec_api_stack *a = (const void *)h;

		printf(" corr=%u stack_id=%u%s%s", a->correlation_id, a->stack_id,
		       h->flags & GP_API_STACK_NESTED ? " nested" : "",
		       h->flags & GP_API_STACK_TRUNCATED ? " truncated" : "");
		break;
	}
	case GP_REC_MEMORY: {
		static const char *const ops[] = { "?", "alloc", "free", "pool_create", "pool_destroy",
						   "pool_trim" };
		const struct gp_rec_memory *m = (const void *)h;

		printf(" ts=%" PRIu64 " corr=%u %s kind=%u address=0x%" PRIx64 " bytes=%" PRIu64
		       " dev=%u ctx=%u stream=%d",
		       m->ts, m->correlation_id, ops[m->op < 6 ? m->op : 0], m->memory_kind, m->address,
		       m->bytes, m->device_id, m->context_id, (int32_t)m->stream_id);
		if (m->pool_type)
			printf(" pool=0x%" PRIx64 " pool_type=%u pool_size=%" PRIu64 " pool_used=%" PRIu64,
			       m->pool_address, m->pool_type, m->pool_size, m->pool_used);
		if (m->is_async)
			printf(" async");
		if (m->graph_node_id)
			printf(" graph_node=%" PRIu64, m->graph_node_id);
		if (h->flags & GP_MEMORY_FROM_CALL)
			printf(" from_call"); /* the injection library's own record (virtual memory) */
		break;
	}
	case GP_REC_DROPPED: {
		const struct gp_rec_dropped *d = (const void *)h;

		printf(" ts=%" PRIu64 " source=%u count=%" PRIu64, d->ts, d->source, d->count);
		if (d->cause)
			printf(" cause=%u (%s)", d->cause, strerror((int)d->cause));
		break;
	}
	case GP_REC_END: {
		const struct gp_rec_end *e = (const void *)h;

		printf(" ts=%" PRIu64 " records=%" PRIu64, e->ts, e->records);
		break;
	}
	default:
		break;
	}
	putchar('\n');
}

static int dump_file(const char *path, int stats_only)
{
	uint64_t counts[GP_REC_TYPE_COUNT] = { 0 };
	const struct gp_file_header *fh;
	const struct gp_rec_hdr *h;
	struct gp_reader_stats st;
	struct gp_reader *r;
	char err[512];
	int rc, status = GP_EXIT_OK;
	unsigned t;

	r = gp_reader__open(path, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "gpuperf dump: %s\n", err);
		return GP_EXIT_DATA;
	}
	fh = gp_reader__header(r);
	printf("# %s: format %u.%u, producer %s (%s), pid %u, clock %s, host %s, kernel %s\n", path,
	       fh->version_major, fh->version_minor, producer_name(fh->producer),
	       fh->producer_version, fh->pid,
	       fh->clock_id == GP_CLOCK_MONOTONIC ? "monotonic" : "realtime", fh->hostname,
	       fh->kernel_release);
	while ((rc = gp_reader__next(r, &h)) != GP_READ_EOF) {
		if (rc == GP_READ_ERROR) {
			fprintf(stderr, "gpuperf dump: %s\n", gp_reader__error(r));
			status = GP_EXIT_DATA;
			continue;
		}
		counts[h->type]++;
		if (!stats_only)
			print_record(r, h);
	}
	gp_reader__stats(r, &st);
	if (stats_only) {
		for (t = 1; t < GP_REC_TYPE_COUNT; t++)
			if (counts[t])
				printf("%-11s %" PRIu64 "\n", gp_rec_type_name((uint16_t)t), counts[t]);
	}
	printf("# %" PRIu64 " records in %" PRIu64 " chunks%s", st.records, st.chunks,
	       st.clean_end ? ", closed cleanly"
	       : fh->flags & GP_FILE_END_LOST ? ", closed, but its end record was lost"
					      : ", no end mark (the producer did not close it)");
	if (fh->lost_records)
		printf(", %" PRIu64 " records the writer could not store (%s)", fh->lost_records,
		       fh->lost_cause ? strerror((int)fh->lost_cause) : "cause unknown");
	if (st.bad_chunks)
		printf(", %" PRIu64 " damaged chunks skipped", st.bad_chunks);
	if (st.skipped_records)
		printf(", %" PRIu64 " records of newer types skipped", st.skipped_records);
	printf("\n");
	gp_reader__free(r);
	return status;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stats", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int stats_only = 0, status = GP_EXIT_OK, c, i;

	optind = 0; /* glibc: start over, permuting */
	while ((c = getopt_long(argc, argv, "sh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			stats_only = 1;
			break;
		case 'h':
			fputs(dump_usage, stdout);
			return GP_EXIT_OK;
		default:
			fputs(dump_usage, stderr);
			return GP_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "gpuperf dump: no trace file given\n\n%s", dump_usage);
		return GP_EXIT_USAGE;
	}
	for (i = optind; i < argc; i++)
		if (dump_file(argv[i], stats_only) != GP_EXIT_OK)
			status = GP_EXIT_DATA;
	return status;
}
