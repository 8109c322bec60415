// SPDX-License-Identifier: Apache-2.0
/* Test program for the injection library's exit paths: return, exit() from a thread, reset, signals, SIGKILL, fork, fd 2. */

/*
 * usage: exit_paths MODE [ARG]
 *   return N      work, then return N from main
 *   thread-exit   a second thread does the work and calls exit(0) while main waits
 *   reset         work, cudaDeviceReset, more work, return 0
 *   reset-exit    work, cudaDeviceReset, then _exit(0) (no atexit handlers)
 *   wait          work, synchronize, print "ready", then sleep until killed
 *   fork          work, fork (the child exits at once), more work in the parent
 *   chain-sigint  work, then a SIGINT handler that chains to the one it replaced
 *                 (SIG_DFL: reset and re-raise; a function: call it), raise(SIGINT)
 *   keep-sigint   work, then a SIGINT handler that only counts, raise(SIGINT),
 *                 more work, return 0
 *   stderr-to F   work, dup2() of data file F onto fd 2, data lines there, more
 *                 work, return 0 (the library's last lines come after that)
 * "work" is a few kernels, a copy each way and a memset, then a device sync.
 */
#include <cuda_runtime.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(call)                                                                   \
	do {                                                                          \
		cudaError_t e_ = (call);                                              \
		if (e_ != cudaSuccess) {                                              \
			fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));   \
			exit(1);                                                      \
		}                                                                     \
	} while (0)

__global__ void tick_kernel(int *p)
{
	if (p)
		p[threadIdx.x] += 1;
}

static void work(int kernels)
{
	static int host[64];
	int *dev = NULL;

	CHECK(cudaMalloc(&dev, sizeof(host)));
	CHECK(cudaMemcpy(dev, host, sizeof(host), cudaMemcpyHostToDevice));
	CHECK(cudaMemset(dev, 0, sizeof(host)));
	for (int i = 0; i < kernels; i++)
		tick_kernel<<<1, 64>>>(dev);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(host, dev, sizeof(host), cudaMemcpyDeviceToHost));
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(dev));
}

static struct sigaction chained; /* the SIGINT action chain_handler replaced */
static volatile sig_atomic_t handled;

/* The pattern of JVMs, Go and crash reporters: do our part, then what was there before. */
static void chain_handler(int sig)
{
	static const char msg[] = "handler\n";

	handled++;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	if (chained.sa_handler == SIG_DFL) {
		signal(sig, SIG_DFL);
		raise(sig);
	} else if (chained.sa_handler != SIG_IGN) {
		chained.sa_handler(sig);
	}
}

static void count_handler(int sig)
{
	handled++;
}

static void *exit_thread(void *arg)
{
	work(8);
	exit(0);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "return";

	if (!strcmp(mode, "return")) {
		work(8);
		return argc > 2 ? atoi(argv[2]) : 0;
	}
	if (!strcmp(mode, "thread-exit")) {
		pthread_t t;

		work(2);
		pthread_create(&t, NULL, exit_thread, NULL);
		for (;;)
			pause();
	}
	if (!strcmp(mode, "reset") || !strcmp(mode, "reset-exit")) {
		work(8);
		CHECK(cudaDeviceReset());
		if (mode[5])
			_exit(0);
		work(4);
		return 0;
	}
	if (!strcmp(mode, "wait")) {
		/* A shell starts background jobs with SIGINT ignored; this program wants the default. */
		signal(SIGINT, SIG_DFL);
		work(16);
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (!strcmp(mode, "fork")) {
		int status = 0;
		pid_t pid;

		work(8);
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			/* CUDA is not usable in the child of an initialized process. */
			exit(0);
		}
		waitpid(pid, &status, 0);
		printf("child %d status %d\n", (int)pid, status);
		work(4);
		return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
	}
	if (!strcmp(mode, "chain-sigint") || !strcmp(mode, "keep-sigint")) {
		struct sigaction sa;

		/* Whatever the caller left (a shell's background job ignores SIGINT). */
		signal(SIGINT, SIG_DFL);
		/* The library starts here, and finds SIG_DFL. */
		work(8);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = mode[0] == 'c' ? chain_handler : count_handler;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, &chained);
		raise(SIGINT);
		if (mode[0] == 'c') {
			printf("survived SIGINT\n");
			return 4;
		}
		work(4);
		printf("handled %d, 12 kernels\n", (int)handled);
		return handled == 1 ? 0 : 5;
	}
	if (!strcmp(mode, "stderr-to") && argc > 2) {
		int fd;

		work(8);
		fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			return 1;
		close(fd);
		fprintf(stderr, "data 1\n");
		work(4);
		fprintf(stderr, "data 2\n");
		return 0;
	}
	fprintf(stderr, "exit_paths: unknown mode '%s'\n", mode);
	return 2;
}
