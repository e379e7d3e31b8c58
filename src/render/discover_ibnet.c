// SPDX-License-Identifier: GPL-2.0-or-later
/* discover --format ibnetdiscover: the graph as an ibnetdiscover topology file. */
#include <errno.h>
#include <stdio.h>

#include "model/ibtopo_parse.h"
#include "render/render_impl.h"

static int ibnet_discover(struct render *out, const struct topo *t)
{
	struct strbuf sb;
	int rc;

	strbuf_init(&sb);
	rc = ibtopo_format(t, &sb);
	if (rc == 0 && sb.len && fwrite(sb.buf, 1, sb.len, out->f) != sb.len)
		rc = -EIO;
	strbuf_fini(&sb);
	return rc;
}

const struct render_ops render_ibnet_ops = {
	.name = "ibnetdiscover",
	.discover = ibnet_discover,
};
