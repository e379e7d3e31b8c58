// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace as text: one flow hop by hop as tracepath prints it, several
 * flows one line each, then the port -> member map of the leaf pair.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "render/render_impl.h"
#include "render/trace.h"

/* What a hop answered, when it is not a router on the way. */
static const char *answer_note(const struct flow_hop *h)
{
	switch (h->answer) {
	case HOP_UNREACHABLE:
		/* ICMP code 3, ICMPv6 code 4 */
		return h->code == (strchr(h->addr, ':') ? 4u : 3u) ? "port unreachable" : "unreachable";
	case HOP_TCP_RST:
		return "tcp reset";
	case HOP_TCP_SYNACK:
		return "tcp syn-ack";
	default:
		return NULL;
	}
}

static void hop_line(FILE *f, struct render_txt *tx, const struct flow_hop *h)
{
	const char *note = answer_note(h);

	if (h->answer == HOP_NONE) {
		fprintf(f, "%3u  *  (%u tries)\n", h->ttl, h->tries);
		return;
	}
	fprintf(f, "%3u  %-15s %-20s %8.3f ms", h->ttl, h->addr, h->node[0] ? render_txt(tx, h->node) : "-",
		h->rtt_us / 1000.0);
	if (h->tries > 1)
		fprintf(f, "  (try %u)", h->tries);
	if (note)
		fprintf(f, "  %s", note);
	if (h->other[0])
		fprintf(f, "  also %s%s%s", h->other, h->other_node[0] ? " " : "",
			h->other_node[0] ? render_txt(tx, h->other_node) : "");
	fputc('\n', f);
}

/* One flow on one line: each hop's node (its address when unmapped), "*" for none. */
static void flow_line(FILE *f, struct render_txt *tx, const struct flow_trace *t)
{
	fprintf(f, "%5u ", t->flow.sport);
	for (size_t i = 0; i < t->n_hops; i++) {
		const struct flow_hop *h = &t->hops[i];

		fprintf(f, " %s", h->answer == HOP_NONE ? "*" :
			render_txt(tx, h->node[0] ? h->node : h->addr));
	}
	fprintf(f, "%s\n", t->reached ? "" : "  (destination did not answer)");
}

static void side_text(FILE *f, struct render_txt *tx, const struct ecmp_side *s)
{
	char name[512];

	for (size_t i = 0; i < s->n_members; i++) {
		ecmp_member_text(&s->members[i], name, sizeof(name));
		fprintf(f, "  %-24s", render_txt(tx, name));
		for (size_t j = 0; j < s->n_ports; j++)
			if (s->ports[j].member == (int)i)
				fprintf(f, " %u", s->ports[j].sport);
		fputc('\n', f);
	}
}

static void map_text(FILE *f, struct render_txt *tx, const struct ecmp_map *m)
{
	const struct ecmp_side *s = &m->side[ECMP_AB];

	if (m->by_addr)
		fprintf(f, "map (hops by address; --plan names their nodes): ");
	else
		fprintf(f, "map %s -> %s: ", m->leaf[0][0] ? render_txt(tx, m->leaf[0]) : "?",
			m->leaf[1][0] ? render_txt(tx, m->leaf[1]) : "?");
	if (m->reason == ECMP_OK)
		fprintf(f, "traced, %zu member%s over %zu port%s\n", s->n_members,
			s->n_members == 1 ? "" : "s", s->n_ports, s->n_ports == 1 ? "" : "s");
	else
		fprintf(f, "fallback (%s): %s\n", ecmp_reason_name(m->reason), render_txt(tx, m->detail));
	side_text(f, tx, s);
}

int trace_render_text(struct render *out, const struct trace_report *r)
{
	struct render_txt tx = { .next = 0 };
	const struct flow_trace *t0 = r->traces;
	FILE *f = out->f;

	if (!r->n_traces)
		return 0;
	fprintf(f, "trace %s %s -> %s:%u", flow_proto_name(t0->flow.proto), t0->flow.src,
		t0->flow.dst, t0->flow.dport);
	if (r->n_traces == 1) {
		fprintf(f, ", source port %u\n", t0->flow.sport);
		for (size_t i = 0; i < t0->n_hops; i++)
			hop_line(f, &tx, &t0->hops[i]);
		if (!t0->reached)
			fprintf(f, "     destination did not answer\n");
	} else {
		fprintf(f, ", %u source port%s, %zu trace%s\nSPORT  HOPS\n", r->n_ports,
			r->n_ports == 1 ? "" : "s", r->n_traces, r->n_traces == 1 ? "" : "s");
		for (size_t i = 0; i < r->n_traces; i++)
			flow_line(f, &tx, &r->traces[i]);
	}
	map_text(f, &tx, r->map);
	return ferror(f) ? -EIO : 0;
}
