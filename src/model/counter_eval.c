// SPDX-License-Identifier: GPL-2.0-or-later
/* Port counters as evidence (counter_eval.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"
#include "model/counter_eval.h"
#include "model/ptr_index.h"
#include "util/array.h"

void counter_snap_init(struct counter_snap *s)
{
	memset(s, 0, sizeof(*s));
}

void counter_snap_fini(struct counter_snap *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int counter_snap_add(struct counter_snap *s, const struct topo_port *port, const char *name,
		     uint64_t value)
{
	if (array_reserve((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0)
		return -ENOMEM;
	struct counter_sample *c = &s->v[s->n++];

	c->port = port;
	str_fmt(c->name, sizeof(c->name), "%s", name);
	c->value = value;
	return 0;
}

int counter_snap_add_topo_port(struct counter_snap *s, const struct topo_port *port)
{
	return counter_snap_add_port_as(s, port, port);
}

int counter_snap_add_port_as(struct counter_snap *s, const struct topo_port *port,
			     const struct topo_port *from)
{
	if (!(from->facts & TOPO_F_COUNTERS))
		return 0;
	for (int c = 0; c < TOPO_CNT_MAX; c++) {
		int rc = counter_snap_add(s, port, topo_counter_name(c), from->counters[c]);

		if (rc)
			return rc;
	}
	return 0;
}

void counter_report_fini(struct counter_report *r)
{
	free(r->findings);
	free(r->ports);
	memset(r, 0, sizeof(*r));
}

static int sample_cmp(const void *x, const void *y)
{
	const struct counter_sample *a = *(const struct counter_sample *const *)x;
	const struct counter_sample *b = *(const struct counter_sample *const *)y;
	uintptr_t pa = (uintptr_t)a->port, pb = (uintptr_t)b->port;

	if (pa != pb)
		return pa < pb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static const struct counter_sample **sorted_view(const struct counter_snap *s)
{
	const struct counter_sample **v = malloc((s->n ? s->n : 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		v[i] = &s->v[i];
	qsort(v, s->n, sizeof(*v), sample_cmp);
	return v;
}

/* The port's entry in r->ports (the last one, since ports come grouped). */
static struct counter_port_read *port_entry(struct counter_report *r, const struct ptr_index *ix,
					   const struct topo_port *port, size_t cap)
{
	if (r->n_ports && r->ports[r->n_ports - 1].port == port)
		return &r->ports[r->n_ports - 1];
	if (r->n_ports == cap)
		return NULL;
	struct counter_port_read *p = &r->ports[r->n_ports++];

	p->port = port;
	size_t li = ptr_index_find(ix, port ? port->link : NULL);

	p->link = li == SIZE_MAX ? COUNTER_NO_LINK : (uint32_t)li;
	p->compared = 0;
	return p;
}

int counter_eval(const struct topo *t, const struct counter_policy *pol,
		 const struct counter_snap *before, const struct counter_snap *after,
		 struct counter_report *out)
{
	struct counter_report r = { 0 };
	const struct counter_sample **vb = NULL, **va = NULL;
	struct ptr_index ix = { 0 };
	int rc = ptr_index_init(&ix, t->n_links);

	vb = sorted_view(before);
	va = sorted_view(after);
	r.findings = malloc((after->n ? after->n : 1) * sizeof(*r.findings));
	r.ports = malloc((after->n ? after->n : 1) * sizeof(*r.ports));
	if (rc || !vb || !va || !r.findings || !r.ports) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < t->n_links; i++)
		ptr_index_set(&ix, i, t->links[i]);
	ptr_index_sort(&ix);
	for (size_t i = 0; i < after->n; i++) {
		const struct counter_sample *a = va[i], **bp;
		const struct counter_rule *rule = counter_policy_find(pol, a->name);

		if (!rule) {
			r.n_unknown++;
			continue;
		}
		bp = bsearch(&a, vb, before->n, sizeof(*vb), sample_cmp);
		if (!bp) {
			r.n_absent++;
			continue;
		}
		struct counter_port_read *pr = port_entry(&r, &ix, a->port, after->n);

		pr->compared++;
		const struct counter_sample *b = *bp;
		bool reset = a->value < b->value;
		uint64_t delta = reset ? 0 : a->value - b->value;

		if (!reset && delta <= rule->threshold)
			continue;
		struct counter_finding *f = &r.findings[r.n_findings++];

		f->port = a->port;
		f->link = pr->link;
		str_fmt(f->name, sizeof(f->name), "%s", a->name);
		f->before = b->value;
		f->after = a->value;
		f->delta = delta;
		f->threshold = rule->threshold;
		f->sev = reset ? COUNTER_SEV_INFO : rule->sev;
		f->reset = reset;
	}
	/* Known samples present only in @before are absent too. */
	for (size_t i = 0; i < before->n; i++)
		if (counter_policy_find(pol, vb[i]->name) &&
		    !bsearch(&vb[i], va, after->n, sizeof(*va), sample_cmp))
			r.n_absent++;
	*out = r;
	memset(&r, 0, sizeof(r));
	rc = 0;
out:
	counter_report_fini(&r);
	ptr_index_fini(&ix);
	free(vb);
	free(va);
	return rc;
}
