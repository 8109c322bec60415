// SPDX-License-Identifier: Apache-2.0
/* record_json.c - what `gpuperf record` wrote about a recording in record.json (record_json.h). */
#include "record_json.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void record_json__read(struct record_json *rj, const char *dir)
{
	char path[4096];
	FILE *f;
	char *text = NULL;
	long len;
	cJSON *root, *opt, *cl, *start, *end;

	memset(rj, 0, sizeof(*rj));

	snprintf(path, sizeof(path), "%s/record.json", dir);
	f = fopen(path, "rb");
	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && len < (1 << 24) &&
	    fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)len + 1)) &&
	    fread(text, 1, (size_t)len, f) == (size_t)len)
		text[len] = '\0';
	else {
		free(text);
		text = NULL;
	}
	fclose(f);
	if (!text)
		return;
	root = cJSON_Parse(text);
	free(text);
	if (!root)
		return;
	opt = cJSON_GetObjectItemCaseSensitive(root, "options");
	if (opt) {
		cJSON *hz = cJSON_GetObjectItemCaseSensitive(opt, "freq_hz");

		if (cJSON_IsNumber(hz) && hz->valuedouble > 0 && hz->valuedouble < 1e6)
			rj->freq_hz = (uint32_t)hz->valuedouble;
	}
	cl = cJSON_GetObjectItemCaseSensitive(root, "command_line");
	if (cJSON_IsArray(cl))
		rj->command_line_json = cJSON_PrintUnformatted(cl);
	rj->attached = cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "attached"));
	/*
	 * The window the recorder was recording: the first record may come long
	 * after its start (a program's first sample) or long before it (a
	 * span that began before the recorder attached).
	 */
	start = cJSON_GetObjectItemCaseSensitive(root, "start_monotonic_ns");
	end = cJSON_GetObjectItemCaseSensitive(root, "end_monotonic_ns");
	if (cJSON_IsNumber(start) && cJSON_IsNumber(end) && start->valuedouble > 0 &&
	    end->valuedouble > start->valuedouble && end->valuedouble < 0x1p63) {
		rj->start_ns = (uint64_t)start->valuedouble;
		rj->end_ns = (uint64_t)end->valuedouble;
	}
	cJSON_Delete(root);
}

void record_json__release(struct record_json *rj)
{
	free(rj->command_line_json);
	rj->command_line_json = NULL;
}
