// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The renderer vtables and the one place that picks one by name: main()
 * from -j, a subcommand's own -j, and discover's --format.
 */
#include <errno.h>
#include <string.h>

#include "render/accept.h"
#include "render/render_impl.h"
#include "render/trace.h"
#include "util/array.h"

const struct render_ops render_text_ops = {
	.name = "text",
	.kind = RENDER_TEXT,
	.status = status_text,
	.discover = discover_text,
	.sweep = sweep_text,
	.status_fleet = status_fleet_text,
	.verify_fleet = verify_fleet_text,
	.apply_fleet = apply_fleet_text,
	.apply = apply_text,
	.verify = verify_text,
	.confirm = confirm_view,
	.error = error_view,
	.accept = accept_render_text,
	.diagnose = diagnose_text,
	.trace = trace_render_text,
};

const struct render_ops render_json_ops = {
	.name = "json",
	.kind = RENDER_JSON,
	.status = status_json,
	.discover = discover_json,
	.sweep = sweep_json,
	.status_fleet = status_fleet_json,
	.verify_fleet = verify_fleet_json,
	.apply_fleet = apply_fleet_json,
	.apply = apply_json,
	.verify = verify_json,
	.confirm = confirm_view,
	.error = error_view,
	.accept = accept_json,
	.diagnose = diagnose_json,
	.trace = trace_json,
};

static const struct render_ops *const render_all[] = {
	&render_text_ops, &render_json_ops, &render_dot_ops, &render_ibnet_ops, &render_csv_ops,
};

const struct render_ops *render_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(render_all); i++)
		if (strcmp(render_all[i]->name, name) == 0)
			return render_all[i];
	return NULL;
}

int render_select(struct render *r, const char *name)
{
	const struct render_ops *ops = render_find(name);

	if (!ops)
		return -EINVAL;
	r->ops = ops;
	if (ops->kind == RENDER_JSON)
		r->color = false;
	return 0;
}
