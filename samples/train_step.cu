// SPDX-License-Identifier: Apache-2.0
// train_step: a small MLP trained with SGD, shaped like a framework's step so
// a profile shows kernels under nested host functions.
//
// main -> train -> train_step -> forward -> linear_layer -> launch_gemm (gemm_nn_kernel)
//                                                       -> launch_bias_act (bias_act_kernel)
//                             -> compute_loss -> launch_mse_grad (mse_grad_kernel)
//                                             -> launch_reduce_sum (reduce_sum_kernel)
//                             -> backward -> linear_layer_backward
//                                                -> launch_relu_grad (relu_grad_kernel)
//                                                -> launch_gemm_weight_grad (gemm_tn_kernel)
//                                                -> launch_bias_grad (bias_grad_kernel)
//                                                -> launch_gemm_input_grad (gemm_nt_kernel)
//                             -> optimizer_step -> launch_sgd (sgd_kernel)
//
// A host reference runs the same step; on a real GPU losses and final
// weights must agree with it.
#include "sample_util.h"

#include <cmath>
#include <vector>

static const char *const SAMPLE = "train_step";

enum { BATCH = 32, LAYERS = 3 };
static const int DIMS[LAYERS + 1] = {64, 128, 128, 16};
static const float LEARNING_RATE = 0.05f;
static const unsigned TILE = 16;

// ---- device code ----

// C[M,N] = A[M,K] * B[K,N]
__global__ void gemm_nn_kernel(const float *a, const float *b, float *c, int m, int n, int k)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= m || col >= n)
		return;
	float acc = 0.0f;
	for (int i = 0; i < k; i++)
		acc += a[row * k + i] * b[i * n + col];
	c[row * n + col] = acc;
}

// C[M,N] = A[K,M]^T * B[K,N]
__global__ void gemm_tn_kernel(const float *a, const float *b, float *c, int m, int n, int k)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= m || col >= n)
		return;
	float acc = 0.0f;
	for (int i = 0; i < k; i++)
		acc += a[i * m + row] * b[i * n + col];
	c[row * n + col] = acc;
}

// C[M,N] = A[M,K] * B[N,K]^T
__global__ void gemm_nt_kernel(const float *a, const float *b, float *c, int m, int n, int k)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= m || col >= n)
		return;
	float acc = 0.0f;
	for (int i = 0; i < k; i++)
		acc += a[row * k + i] * b[col * k + i];
	c[row * n + col] = acc;
}

__global__ void bias_act_kernel(float *y, const float *bias, int rows, int cols, int relu)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= rows * cols)
		return;
	float v = y[i] + bias[i % cols];
	y[i] = relu && v < 0.0f ? 0.0f : v;
}

// grad = 2 (y - t) / count; sq = (y - t)^2
__global__ void mse_grad_kernel(const float *y, const float *t, float *grad, float *sq, int count)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= count)
		return;
	float d = y[i] - t[i];
	grad[i] = 2.0f * d / (float)count;
	sq[i] = d * d;
}

// One block: out[0] = sum(x) / count.
__global__ void reduce_sum_kernel(const float *x, float *out, int count)
{
	__shared__ float part[256];
	float acc = 0.0f;
	for (int i = threadIdx.x; i < count; i += blockDim.x)
		acc += x[i];
	part[threadIdx.x] = acc;
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
		if (threadIdx.x < s)
			part[threadIdx.x] += part[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[0] = part[0] / (float)count;
}

// dy *= (y > 0): y is the layer's ReLU output.
__global__ void relu_grad_kernel(float *dy, const float *y, int count)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < count && y[i] <= 0.0f)
		dy[i] = 0.0f;
}

// db[c] = sum over rows of dy[r, c]
__global__ void bias_grad_kernel(const float *dy, float *db, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= cols)
		return;
	float acc = 0.0f;
	for (int r = 0; r < rows; r++)
		acc += dy[r * cols + c];
	db[c] = acc;
}

__global__ void sgd_kernel(float *w, const float *g, float lr, int count)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < count)
		w[i] -= lr * g[i];
}

// ---- host side ----

struct layer {
	int in, out;
	float *w, *b;   // [in, out], [out]
	float *dw, *db; // gradients, same shapes
	float *y;       // output activations [BATCH, out]
	float *dy;      // gradient of the loss wrt y
};

struct model {
	struct layer layers[LAYERS];
	float *x;       // input [BATCH, DIMS[0]]
	float *target;  // [BATCH, DIMS[LAYERS]]
	float *sq;      // squared errors
	float *loss;    // one float
	unsigned long launches;
};

static unsigned blocks_for(int count, unsigned block)
{
	return (unsigned)((count + (int)block - 1) / (int)block);
}

static dim3 gemm_grid(int m, int n)
{
	return dim3(blocks_for(n, TILE), blocks_for(m, TILE));
}

static SAMPLE_NOINLINE void launch_gemm(struct model *md, const float *a, const float *b, float *c,
					 int m, int n, int k)
{
	gemm_nn_kernel<<<gemm_grid(m, n), dim3(TILE, TILE)>>>(a, b, c, m, n, k);
	CHECK_LAUNCH();
	md->launches++;
}

static SAMPLE_NOINLINE void launch_bias_act(struct model *md, struct layer *l, bool relu)
{
	int count = BATCH * l->out;
	bias_act_kernel<<<blocks_for(count, 256), 256>>>(l->y, l->b, BATCH, l->out, relu);
	CHECK_LAUNCH();
	md->launches++;
}

static SAMPLE_NOINLINE void linear_layer(struct model *md, int idx, const float *input)
{
	struct layer *l = &md->layers[idx];
	launch_gemm(md, input, l->w, l->y, BATCH, l->out, l->in);
	launch_bias_act(md, l, idx != LAYERS - 1);
}

static SAMPLE_NOINLINE void forward(struct model *md)
{
	const float *input = md->x;
	for (int i = 0; i < LAYERS; i++) {
		linear_layer(md, i, input);
		input = md->layers[i].y;
	}
}

static SAMPLE_NOINLINE void launch_mse_grad(struct model *md)
{
	struct layer *last = &md->layers[LAYERS - 1];
	int count = BATCH * last->out;
	mse_grad_kernel<<<blocks_for(count, 256), 256>>>(last->y, md->target, last->dy, md->sq,
							  count);
	CHECK_LAUNCH();
	md->launches++;
}

static SAMPLE_NOINLINE void launch_reduce_sum(struct model *md)
{
	reduce_sum_kernel<<<1, 256>>>(md->sq, md->loss, BATCH * DIMS[LAYERS]);
	CHECK_LAUNCH();
	md->launches++;
}

static SAMPLE_NOINLINE float compute_loss(struct model *md)
{
	float loss = 0.0f;
	launch_mse_grad(md);
	launch_reduce_sum(md);
	CHECK(cudaMemcpy(&loss, md->loss, sizeof(loss), cudaMemcpyDeviceToHost));
	return loss;
}

static SAMPLE_NOINLINE void launch_relu_grad(struct model *md, struct layer *l)
{
	int count = BATCH * l->out;
	relu_grad_kernel<<<blocks_for(count, 256), 256>>>(l->dy, l->y, count);
	CHECK_LAUNCH();
	md->launches++;
}

static SAMPLE_NOINLINE void launch_gemm_weight_grad(struct model *md, struct layer *l,
						     const float *input)
{
	// dW[in, out] = X[BATCH, in]^T * dY[BATCH, out]
	gemm_tn_kernel<<<gemm_grid(l->in, l->out), dim3(TILE, TILE)>>>(input, l->dy, l->dw, l->in,
									 l->out, BATCH);
	CHECK_LAUNCH();
	md->launches++;
}

static SAMPLE_NOINLINE void launch_bias_grad(struct model *md, struct layer *l)
{
	bias_grad_kernel<<<blocks_for(l->out, 128), 128>>>(l->dy, l->db, BATCH, l->out);
	CHECK_LAUNCH();
	md->launches++;
}

static SAMPLE_NOINLINE void launch_gemm_input_grad(struct model *md, struct layer *l, float *dinput)
{
	// dX[BATCH, in] = dY[BATCH, out] * W[in, out]^T
	gemm_nt_kernel<<<gemm_grid(BATCH, l->in), dim3(TILE, TILE)>>>(l->dy, l->w, dinput, BATCH,
								       l->in, l->out);
	CHECK_LAUNCH();
	md->launches++;
}

static SAMPLE_NOINLINE void linear_layer_backward(struct model *md, int idx)
{
	struct layer *l = &md->layers[idx];
	const float *input = idx ? md->layers[idx - 1].y : md->x;
	if (idx != LAYERS - 1)
		launch_relu_grad(md, l);
	launch_gemm_weight_grad(md, l, input);
	launch_bias_grad(md, l);
	if (idx)
		launch_gemm_input_grad(md, l, md->layers[idx - 1].dy);
}

static SAMPLE_NOINLINE void backward(struct model *md)
{
	for (int i = LAYERS - 1; i >= 0; i--)
		linear_layer_backward(md, i);
}

static SAMPLE_NOINLINE void launch_sgd(struct model *md, float *w, const float *g, int count)
{
	sgd_kernel<<<blocks_for(count, 256), 256>>>(w, g, LEARNING_RATE, count);
	CHECK_LAUNCH();
	md->launches++;
}

static SAMPLE_NOINLINE void optimizer_step(struct model *md)
{
	for (int i = 0; i < LAYERS; i++) {
		struct layer *l = &md->layers[i];
		launch_sgd(md, l->w, l->dw, l->in * l->out);
		launch_sgd(md, l->b, l->db, l->out);
	}
}

static SAMPLE_NOINLINE float train_step(struct model *md)
{
	forward(md);
	float loss = compute_loss(md);
	backward(md);
	optimizer_step(md);
	return loss;
}

static SAMPLE_NOINLINE void train(struct model *md, unsigned long iters, std::vector<float> &losses)
{
	for (unsigned long i = 0; i < iters; i++)
		losses.push_back(train_step(md));
	CHECK(cudaDeviceSynchronize());
}

// ---- parameters and the host reference ----

struct host_params {
	std::vector<float> w[LAYERS], b[LAYERS];
	std::vector<float> x, target;
};

static float lcg_uniform(unsigned *state)
{
	*state = *state * 1664525u + 1013904223u;
	return (float)(*state >> 8) / (float)(1u << 24) - 0.5f; // [-0.5, 0.5)
}

static void init_params(struct host_params *hp)
{
	unsigned seed = 12345;
	for (int i = 0; i < LAYERS; i++) {
		hp->w[i].resize((size_t)DIMS[i] * DIMS[i + 1]);
		hp->b[i].resize(DIMS[i + 1]);
		float scale = 2.0f / std::sqrt((float)DIMS[i]);
		for (float &v : hp->w[i])
			v = scale * lcg_uniform(&seed);
		for (float &v : hp->b[i])
			v = 0.1f * lcg_uniform(&seed);
	}
	hp->x.resize((size_t)BATCH * DIMS[0]);
	for (float &v : hp->x)
		v = lcg_uniform(&seed);
	hp->target.resize((size_t)BATCH * DIMS[LAYERS]);
	for (float &v : hp->target)
		v = lcg_uniform(&seed);
}

// The same step on the host, loop for loop.
static float reference_step(struct host_params *hp)
{
	std::vector<float> y[LAYERS], dy[LAYERS];
	const std::vector<float> *input = &hp->x;
	for (int l = 0; l < LAYERS; l++) {
		int in = DIMS[l], out = DIMS[l + 1];
		y[l].assign((size_t)BATCH * out, 0.0f);
		for (int r = 0; r < BATCH; r++) {
			for (int c = 0; c < out; c++) {
				float acc = 0.0f;
				for (int i = 0; i < in; i++)
					acc += (*input)[r * in + i] * hp->w[l][i * out + c];
				float v = acc + hp->b[l][c];
				y[l][r * out + c] = (l != LAYERS - 1 && v < 0.0f) ? 0.0f : v;
			}
		}
		input = &y[l];
	}

	int count = BATCH * DIMS[LAYERS];
	double loss = 0.0;
	dy[LAYERS - 1].resize(count);
	for (int i = 0; i < count; i++) {
		float d = y[LAYERS - 1][i] - hp->target[i];
		dy[LAYERS - 1][i] = 2.0f * d / (float)count;
		loss += (double)d * d;
	}

	std::vector<float> dw[LAYERS], db[LAYERS];
	for (int l = LAYERS - 1; l >= 0; l--) {
		int in = DIMS[l], out = DIMS[l + 1];
		const std::vector<float> &x = l ? y[l - 1] : hp->x;
		if (l != LAYERS - 1)
			for (int i = 0; i < BATCH * out; i++)
				if (y[l][i] <= 0.0f)
					dy[l][i] = 0.0f;
		dw[l].resize((size_t)in * out);
		for (int r = 0; r < in; r++) {
			for (int c = 0; c < out; c++) {
				float acc = 0.0f;
				for (int i = 0; i < BATCH; i++)
					acc += x[i * in + r] * dy[l][i * out + c];
				dw[l][r * out + c] = acc;
			}
		}
		db[l].resize(out);
		for (int c = 0; c < out; c++) {
			float acc = 0.0f;
			for (int r = 0; r < BATCH; r++)
				acc += dy[l][r * out + c];
			db[l][c] = acc;
		}
		if (l) {
			dy[l - 1].resize((size_t)BATCH * in);
			for (int r = 0; r < BATCH; r++) {
				for (int c = 0; c < in; c++) {
					float acc = 0.0f;
					for (int i = 0; i < out; i++)
						acc += dy[l][r * out + i] * hp->w[l][c * out + i];
					dy[l - 1][r * in + c] = acc;
				}
			}
		}
	}
	for (int l = 0; l < LAYERS; l++) {
		for (size_t i = 0; i < hp->w[l].size(); i++)
			hp->w[l][i] -= LEARNING_RATE * dw[l][i];
		for (size_t i = 0; i < hp->b[l].size(); i++)
			hp->b[l][i] -= LEARNING_RATE * db[l][i];
	}
	return (float)(loss / count);
}

static bool close_enough(float got, float want)
{
	return std::fabs(got - want) <= 1e-4f + 1e-3f * std::fabs(want);
}

static float *device_alloc(size_t count)
{
	float *p = NULL;
	CHECK(cudaMalloc(&p, count * sizeof(float)));
	return p;
}

static float *device_copy(const std::vector<float> &v)
{
	float *p = device_alloc(v.size());
	CHECK(cudaMemcpy(p, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
	return p;
}

static void model_init(struct model *md, const struct host_params *hp)
{
	*md = {};
	for (int i = 0; i < LAYERS; i++) {
		struct layer *l = &md->layers[i];
		l->in = DIMS[i];
		l->out = DIMS[i + 1];
		l->w = device_copy(hp->w[i]);
		l->b = device_copy(hp->b[i]);
		l->dw = device_alloc((size_t)l->in * l->out);
		l->db = device_alloc(l->out);
		l->y = device_alloc((size_t)BATCH * l->out);
		l->dy = device_alloc((size_t)BATCH * l->out);
	}
	md->x = device_copy(hp->x);
	md->target = device_copy(hp->target);
	md->sq = device_alloc((size_t)BATCH * DIMS[LAYERS]);
	md->loss = device_alloc(1);
}

static void model_release(struct model *md)
{
	for (int i = 0; i < LAYERS; i++) {
		struct layer *l = &md->layers[i];
		float *bufs[] = {l->w, l->b, l->dw, l->db, l->y, l->dy};
		for (float *p : bufs)
			CHECK(cudaFree(p));
	}
	CHECK(cudaFree(md->x));
	CHECK(cudaFree(md->target));
	CHECK(cudaFree(md->sq));
	CHECK(cudaFree(md->loss));
}

// Compares losses and final weights with the host reference; returns mismatches.
static unsigned long verify(struct model *md, struct host_params *hp,
			    const std::vector<float> &losses)
{
	unsigned long bad = 0;
	for (size_t it = 0; it < losses.size(); it++) {
		float want = reference_step(hp);
		if (!close_enough(losses[it], want)) {
			fprintf(stderr, "%s: iteration %zu loss %g, reference %g\n", SAMPLE, it,
				losses[it], want);
			bad++;
		}
	}
	for (int i = 0; i < LAYERS; i++) {
		std::vector<float> w(hp->w[i].size());
		CHECK(cudaMemcpy(w.data(), md->layers[i].w, w.size() * sizeof(float),
				 cudaMemcpyDeviceToHost));
		for (size_t j = 0; j < w.size(); j++) {
			if (!close_enough(w[j], hp->w[i][j])) {
				if (!bad)
					fprintf(stderr, "%s: layer %d w[%zu] = %g, reference %g\n",
						SAMPLE, i, j, w[j], hp->w[i][j]);
				bad++;
			}
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	sample_usage(argc, argv, "[ITERS]   (training steps, default 5)");
	unsigned long iters = sample_arg(argc, argv, 1, "ITERS", 5, 1, 100000);

	bool simulated = sample_on_simulator();
	struct host_params hp;
	init_params(&hp);
	struct model md;
	model_init(&md, &hp);

	std::vector<float> losses;
	train(&md, iters, losses);

	int status = 0;
	if (simulated) {
		sample_note_skipped(SAMPLE);
	} else {
		unsigned long bad = verify(&md, &hp, losses);
		if (bad) {
			fprintf(stderr, "%s: %lu values differ from the host reference\n", SAMPLE,
				bad);
			status = 1;
		} else {
			printf("%s: loss %g -> %g\n", SAMPLE, losses.front(), losses.back());
		}
	}
	model_release(&md);
	if (status)
		return status;
	printf("%s: iters=%lu layers=%d launches=%lu ok\n", SAMPLE, iters, LAYERS, md.launches);
	return 0;
}
