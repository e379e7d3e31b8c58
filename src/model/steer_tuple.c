// SPDX-License-Identifier: GPL-2.0-or-later
/* The tuples of a steered test, per transport (steer_tuple.h). */
#include <string.h>

#include "model/steer_tuple.h"

void steer_tuple_init(struct steer_tuple *t, enum steer_kind kind, uint32_t rnd)
{
	t->kind = kind;
	if (kind == STEER_ROCE)
		t->base = STEER_ROCE_PORT_LO + 16 * (rnd % STEER_ROCE_PORT_SLOTS);
	else
		t->base = STEER_TCP_PORT_LO + 16 * (rnd % STEER_TCP_PORT_SLOTS);
}

uint16_t steer_tuple_fwd(const struct steer_tuple *t, unsigned int k)
{
	return (uint16_t)(t->base + k % STEER_PORTS);
}

uint16_t steer_tuple_rev(const struct steer_tuple *t, unsigned int k)
{
	return (uint16_t)(t->base + STEER_PORTS + k % STEER_PORTS);
}

uint16_t steer_tuple_dport(const struct steer_tuple *t)
{
	if (t->kind == STEER_ROCE)
		return STEER_ROCE_DPORT;
	return (uint16_t)(t->base + 2 * STEER_PORTS);
}

/* Copy @s into @d of @len bytes, cut to fit. */
static void addr_copy(char *d, size_t len, const char *s)
{
	size_t n = strnlen(s, len - 1);

	memcpy(d, s, n);
	d[n] = '\0';
}

void steer_tuple_flow(const struct steer_tuple *t, enum ecmp_dir dir, uint16_t port,
		      const char *a, const char *b, struct flow *f)
{
	bool ab = dir == ECMP_AB;

	*f = (struct flow){ .proto = t->kind == STEER_ROCE ? FLOW_UDP : FLOW_TCP };
	addr_copy(f->src, sizeof(f->src), ab ? a : b);
	addr_copy(f->dst, sizeof(f->dst), ab ? b : a);
	if (t->kind == STEER_ROCE || ab) {	/* the port is the flow's source */
		f->sport = port;
		f->dport = steer_tuple_dport(t);
	} else {		/* tcp b -> a: from b's listener to a's S' */
		f->sport = steer_tuple_dport(t);
		f->dport = port;
	}
}

bool steer_tuple_turns(const struct steer_tuple *t)
{
	return t->kind == STEER_TCP;
}

unsigned int steer_tuple_moved(uint16_t plan_ab, uint16_t plan_ba, uint16_t got_ab,
			       uint16_t got_ba)
{
	return (got_ab && got_ab != plan_ab ? STEER_MOVED_AB : 0) |
	       (got_ba && got_ba != plan_ba ? STEER_MOVED_BA : 0);
}

const char *steer_kind_name(enum steer_kind kind)
{
	return kind == STEER_ROCE ? "RoCE v2" : "tcp";
}
