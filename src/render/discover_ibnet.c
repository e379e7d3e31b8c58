// SPDX-License-Identifier: GPL-2.0-or-later
/* discover --format ibnetdiscover: the graph as an ibnetdiscover topology file. */
#include "model/ibtopo_parse.h"
#include "render/render_impl.h"

static int ibnet_discover(struct render *out, const struct topo *t)
{
	return ibtopo_write(t, out->f);
}

const struct render_ops render_ibnet_ops = {
	.name = "ibnetdiscover",
	.discover = ibnet_discover,
};
