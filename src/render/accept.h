/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * accept's report (model/accept.h) as text, a checklist read top-down
 * (render/accept_text.c), or as the "fabricctl.accept/1" JSON document
 * (render/accept_json.c, docs/accept.md).  Renderers read the model only.
 */
#ifndef FAB_RENDER_ACCEPT_H
#define FAB_RENDER_ACCEPT_H

#include <jansson.h>

#include "model/accept.h"
#include "render/render.h"

/* What accept ran with, for the report's header. */
struct accept_meta {
	const char *hosts, *profile, *plan, *topology, *policy;
	unsigned int pct_expected;
	bool keep_going;
};

/* A new "fabricctl.accept/1" document; NULL on ENOMEM. */
json_t *accept_to_json(const struct accept_report *r, const struct accept_meta *m);

/*
 * The renderers of the table's accept slot (render_ops.accept): the
 * checklist (0 or -EIO) and the document (0, -ENOMEM or -EIO).
 */
int accept_render_text(struct render *out, const struct accept_report *r,
		       const struct accept_meta *m);
int accept_json(struct render *out, const struct accept_report *r, const struct accept_meta *m);

#endif
