/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpu_idle.h - the VIEW_IDLE view (gpu_idle.folded): what the launching
 * threads did while their process's GPU work had gaps (see gpu_idle.c).
 */
#ifndef GPUPERF_GPU_IDLE_H
#define GPUPERF_GPU_IDLE_H

struct report_state;

/* Fill r->view[VIEW_IDLE]. 0 or -ENOMEM. */
int gpu_idle__build(struct report_state *r);

#endif /* GPUPERF_GPU_IDLE_H */
