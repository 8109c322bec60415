// SPDX-License-Identifier: Apache-2.0
/* Benchmark: launch-bound program uninstrumented, under libgpuperf_inject.so and under a minimal CUPTI client. */

/*
 * usage: bench_inject -e EXE -i INJECT_LIB -c REF_CLIENT [-L LD_LIBRARY_PATH]
 *                     [-n LAUNCHES] [-r REPS] [-d WORKDIR] [-k KERNEL_NS]
 *
 * Runs `EXE LAUNCHES` (the launch_loop sample) REPS times in each of four
 * ways, interleaved so drift hits all alike: plain, with the reference
 * client (activity only), and with our library as CUDA_INJECTION64_PATH,
 * launch stacks off (GPUPERF_STACKS=0) and on. The program reports
 * its own launch-loop time (elapsed_ms=); wait4() gives the peak RSS. Prints
 * the medians, the added ns per launch of ours over the reference (the
 * median of the per-round differences, so that drift between rounds cancels),
 * the RSS growth and the trace size, as a Markdown table; then what launch
 * stacks add (on against off: the launching thread's CPU ns per launch,
 * from CLOCK_THREAD_CPUTIME_ID around the loop, and loop time), as
 * differences and ratios.
 *
 * On the CUDA simulator a kernel lasts 2 us unless told otherwise, longer
 * than a launch takes on the host: the loop would then wait for the
 * simulated GPU and hide any cost up to that. -k sets the sample's kernel
 * duration (GPUPERF_SIM_KERNEL_NS, default 100 ns) so the loop is bound by
 * the launch path, which is what is measured. A real driver ignores it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { PLAIN, REF, OURS_OFF, OURS, NMODES };
static const char *const mode_names[] = { "uninstrumented", "reference CUPTI client (activity only)",
					  "libgpuperf_inject.so, GPUPERF_STACKS=0",
					  "libgpuperf_inject.so, launch stacks on" };
static const char *const mode_short[] = { "plain", "ref", "ours-nostacks", "ours" };

struct run {
	double ms;
	double thread_ms; /* CPU time of the launching thread during the loop */
	double cpu_ms; /* user + system time of the whole process, all threads */
	double writer_ms; /* our library's writer thread, from its debug log; -1: none */
	long rss_kb;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

static long long dir_trace_bytes(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long long total = 0;
	char p[4096];
	struct stat st;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "gpu-", 4))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (!stat(p, &st))
			total += st.st_size;
		unlink(p);
	}
	closedir(d);
	return total;
}

/* The writer thread's CPU time that libgpuperf_inject.so logs at exit, in ms; -1 if absent. */
static double writer_cpu_ms(const char *log)
{
	FILE *f = fopen(log, "r");
	char line[1024];
	double ms = -1;
	const char *p;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if ((p = strstr(line, "writer thread: cpu_ns=")))
			ms = strtod(p + 22, NULL) / 1e6;
	fclose(f);
	return ms;
}

/* log: NULL, or a file where our library is to write its debug log (read back for writer_ms). */
static int run_once(const char *exe, const char *launches, const char *kernel_ns, const char *inject,
		    int stacks, const char *ldpath, const char *dir, const char *log, struct run *out)
{
	int pfd[2], status;
	struct rusage ru;
	char buf[4096];
	size_t len = 0;
	ssize_t n;
	const char *p;
	pid_t pid;

	if (pipe(pfd))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		if (ldpath && *ldpath)
			setenv("LD_LIBRARY_PATH", ldpath, 1);
		if (inject)
			setenv("CUDA_INJECTION64_PATH", inject, 1);
		else
			unsetenv("CUDA_INJECTION64_PATH");
		if (log) {
			setenv("GPUPERF_LOG", "debug", 1);
			setenv("GPUPERF_LOG_FILE", log, 1);
		}
		setenv("GPUPERF_DIR", dir, 1);
		setenv("GPUPERF_STACKS", stacks ? "1" : "0", 1);
		if (*kernel_ns) {
			char rule[64];

			snprintf(rule, sizeof(rule), "tick_kernel=%s", kernel_ns);
			setenv("GPUPERF_SIM_KERNEL_NS", rule, 1);
		}
		execl(exe, exe, launches, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (len < sizeof(buf) - 1 && (n = read(pfd[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(pfd[0]);
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench_inject: %s failed: %s\n", exe, buf);
		return -1;
	}
	p = strstr(buf, "elapsed_ms=");
	if (!p) {
		fprintf(stderr, "bench_inject: no elapsed_ms in: %s\n", buf);
		return -1;
	}
	out->ms = strtod(p + 11, NULL);
	p = strstr(buf, "thread_cpu_ms=");
	out->thread_ms = p ? strtod(p + 14, NULL) : 0;
	out->rss_kb = ru.ru_maxrss;
	out->writer_ms = -1;
	if (log) {
		out->writer_ms = writer_cpu_ms(log);
		unlink(log);
	}
	out->cpu_ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	return 0;
}

int main(int argc, char **argv)
{
	const char *exe = NULL, *inject = NULL, *ref = NULL, *ldpath = getenv("LD_LIBRARY_PATH");
	const char *launches = "1000000", *dir = ".", *kernel_ns = "100";
	int reps = 3, opt, r, m;
	double ms[NMODES][64], med_ms[NMODES], cpu[NMODES][64], med_cpu[NMODES], n;
	double d_ms[64], d_cpu[64], d_thr[64]; /* ours - reference, per round */
	double s_ms[64], s_thr[64]; /* ours - ours without stacks, per round */
	double thr[NMODES][64], med_thr[NMODES];
	double wr[64]; /* our writer thread's CPU (ms), per round */
	char log[4096];
	long rss[NMODES][64], med_rss[NMODES];
	long long trace_bytes = 0;

	while ((opt = getopt(argc, argv, "e:i:c:L:n:r:d:k:")) != -1) {
		switch (opt) {
		case 'e': exe = optarg; break;
		case 'i': inject = optarg; break;
		case 'c': ref = optarg; break;
		case 'L': ldpath = optarg; break;
		case 'n': launches = optarg; break;
		case 'r': reps = atoi(optarg); break;
		case 'd': dir = optarg; break;
		case 'k': kernel_ns = optarg; break;
		default: goto usage;
		}
	}
	if (!exe || !inject || !ref || reps < 1 || reps > 64)
		goto usage;
	n = strtod(launches, NULL);
	if (n <= 0)
		goto usage;
	snprintf(log, sizeof(log), "%s/bench-inject-%d.log", dir, (int)getpid());
	unlink(log);
	for (r = 0; r < reps; r++) {
		for (m = 0; m < NMODES; m++) {
			struct run one = { 0, 0 };
			const char *lib = m == PLAIN ? NULL : m == REF ? ref : inject;

			if (run_once(exe, launches, kernel_ns, lib, m == OURS, ldpath, dir,
				     m == OURS ? log : NULL, &one))
				return 1;
			if (m == OURS)
				wr[r] = one.writer_ms;
			ms[m][r] = one.ms;
			thr[m][r] = one.thread_ms;
			cpu[m][r] = one.cpu_ms;
			rss[m][r] = one.rss_kb;
			if (m == OURS)
				trace_bytes = dir_trace_bytes(dir);
			else if (m == OURS_OFF)
				dir_trace_bytes(dir);
		}
		s_ms[r] = ms[OURS][r] - ms[OURS_OFF][r];
		s_thr[r] = thr[OURS][r] - thr[OURS_OFF][r];
		d_ms[r] = ms[OURS][r] - ms[REF][r];
		d_cpu[r] = cpu[OURS][r] - cpu[REF][r];
		d_thr[r] = thr[OURS][r] - thr[REF][r];
	}
	qsort(wr, (size_t)reps, sizeof(double), cmp_double);
	qsort(d_thr, (size_t)reps, sizeof(double), cmp_double);
	qsort(d_ms, (size_t)reps, sizeof(double), cmp_double);
	qsort(d_cpu, (size_t)reps, sizeof(double), cmp_double);
	qsort(s_ms, (size_t)reps, sizeof(double), cmp_double);
	qsort(s_thr, (size_t)reps, sizeof(double), cmp_double);
	for (m = 0; m < NMODES; m++) {
		qsort(ms[m], (size_t)reps, sizeof(double), cmp_double);
		qsort(rss[m], (size_t)reps, sizeof(long), cmp_long);
		qsort(cpu[m], (size_t)reps, sizeof(double), cmp_double);
		qsort(thr[m], (size_t)reps, sizeof(double), cmp_double);
		med_thr[m] = thr[m][reps / 2];
		med_cpu[m] = cpu[m][reps / 2];
		med_ms[m] = ms[m][reps / 2];
		med_rss[m] = rss[m][reps / 2];
	}
	printf("| run (%s launches, median of %d) | ns/launch (loop time) | launching thread's CPU ns/launch | CPU ns/launch (all threads) | peak RSS (MiB) |\n",
	       launches, reps);
	printf("|---|---:|---:|---:|---:|\n");
	for (m = 0; m < NMODES; m++)
		printf("| %s | %.0f | %.0f | %.0f | %.1f |\n", mode_names[m], med_ms[m] * 1e6 / n,
		       med_thr[m] * 1e6 / n, med_cpu[m] * 1e6 / n, med_rss[m] / 1024.0);
	printf("\nloop time of each run, sorted (ms):");
	for (m = 0; m < NMODES; m++) {
		printf(" %s:", mode_short[m]);
		for (r = 0; r < reps; r++)
			printf(" %.0f", ms[m][r]);
	}
	printf("\npeak RSS of each run, sorted (MiB):");
	for (m = 0; m < NMODES; m++) {
		printf(" %s:", mode_short[m]);
		for (r = 0; r < reps; r++)
			printf(" %.1f", rss[m][r] / 1024.0);
	}
	printf("\n");
	printf("\nadded by gpuperf over the reference client (median of per-round differences, "
	       "range): %.0f ns/launch (%.0f to %.0f) of loop time, %.0f ns/launch (%.0f to %.0f) "
	       "of the launching thread's CPU, %.0f CPU ns/launch of all threads (%.0f to %.0f), "
	       "%+.1f MiB RSS\n",
	       d_ms[reps / 2] * 1e6 / n, d_ms[0] * 1e6 / n, d_ms[reps - 1] * 1e6 / n,
	       d_thr[reps / 2] * 1e6 / n, d_thr[0] * 1e6 / n, d_thr[reps - 1] * 1e6 / n,
	       d_cpu[reps / 2] * 1e6 / n, d_cpu[0] * 1e6 / n, d_cpu[reps - 1] * 1e6 / n,
	       (med_rss[OURS] - med_rss[REF]) / 1024.0);
	if (wr[0] >= 0)
		printf("libgpuperf_inject.so's writer thread (converts, packs, compresses, writes; "
		       "off the launch path): %.0f CPU ns/launch (median; %.0f to %.0f)\n",
		       wr[reps / 2] * 1e6 / n, wr[0] * 1e6 / n, wr[reps - 1] * 1e6 / n);
	else
		printf("libgpuperf_inject.so logged no writer thread CPU time (an older library?)\n");
	printf("launch stacks (on against GPUPERF_STACKS=0; median of per-round differences, range): "
	       "launching thread %+.0f CPU ns/launch (%.0f to %.0f), loop %+.0f ns/launch "
	       "(%.0f to %.0f)\n",
	       s_thr[reps / 2] * 1e6 / n, s_thr[0] * 1e6 / n, s_thr[reps - 1] * 1e6 / n,
	       s_ms[reps / 2] * 1e6 / n, s_ms[0] * 1e6 / n, s_ms[reps - 1] * 1e6 / n);
	printf("ratios to the reference client (medians): launching thread's CPU: stacks off %.2fx, "
	       "stacks on %.2fx; loop time: stacks off %.2fx, stacks on %.2fx\n",
	       med_thr[OURS_OFF] / med_thr[REF], med_thr[OURS] / med_thr[REF],
	       med_ms[OURS_OFF] / med_ms[REF], med_ms[OURS] / med_ms[REF]);
	printf("added over uninstrumented: %.0f ns/launch, %+.1f MiB RSS; trace %.1f MiB "
	       "(%.1f bytes/launch)\n",
	       (med_ms[OURS] - med_ms[PLAIN]) * 1e6 / n, (med_rss[OURS] - med_rss[PLAIN]) / 1024.0,
	       trace_bytes / 1048576.0, trace_bytes / n);
	return 0;
usage:
	fprintf(stderr, "usage: bench_inject -e EXE -i INJECT_LIB -c REF_CLIENT [-L LD_LIBRARY_PATH] "
			"[-n LAUNCHES] [-r REPS] [-d WORKDIR] [-k KERNEL_NS]\n");
	return 2;
}
