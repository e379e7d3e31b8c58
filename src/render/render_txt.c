// SPDX-License-Identifier: GPL-2.0-or-later
/* Foreign text made safe for a terminal, for the text renderers (render_impl.h). */
#include <string.h>

#include "render/render_impl.h"
#include "util/str.h"

const char *render_txt(struct render_txt *tb, const char *s)
{
	char *c;

	if (!s || str_is_clean(s, strlen(s)))
		return s;
	c = tb->slot[tb->next++ % RENDER_TXT_SLOTS];
	str_clean(s, strlen(s), c, RENDER_TXT_MAX);
	return c;
}
