/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace's outcome: the traced flows and the port -> member map they make,
 * as text in the manner of tracepath (render/trace_text.c) or as the
 * "fabricctl.trace/1" JSON document (render/trace_json.c, docs/paths.md).
 * Renderers read the model only.
 */
#ifndef FAB_RENDER_TRACE_H
#define FAB_RENDER_TRACE_H

#include <jansson.h>

#include "model/ecmp_map.h"
#include "model/flow_trace.h"
#include "render/render.h"

/* What trace ran and found; everything borrowed. */
struct trace_report {
	const struct flow_trace *traces;	/* every source port, then again per repeat */
	size_t n_traces;
	unsigned int n_ports;			/* traces[i] is port i % n_ports, repeat i / n_ports */
	const struct ecmp_map *map;		/* learned from every trace */
	const char *plan;			/* hops named from this plan's addresses; NULL none */
};

/* A new "fabricctl.trace/1" document; NULL on ENOMEM. */
json_t *trace_to_json(const struct trace_report *r);

/* Hops (one flow: one line each; several: one line per flow), then the map; 0 or -EIO. */
int trace_render_text(struct render *out, const struct trace_report *r);
int trace_json(struct render *out, const struct trace_report *r);	/* the document, emitted */

#endif
