// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Modules in `status` text: a line per module (optics_text_summary) and
 * the detailed view of `status --optics` (optics_text_detail).  Module
 * strings are already printable (module_ascii()); interface names and
 * notes go through render_txt().
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/optics.h"
#include "render/render_impl.h"

static const char *dash(const char *s)
{
	return s && *s ? s : "-";
}

/* The lowest Rx power of the module's lanes ("-inf" for no light), or "-". */
static void rx_min(const struct fab_module *m, char *buf, size_t len)
{
	double min = INFINITY;
	unsigned int at = 0;

	for (unsigned int i = 0; i < m->n_lanes; i++)
		if (m->lane[i].rx_mw.ok && m->lane[i].rx_mw.v < min) {
			min = m->lane[i].rx_mw.v;
			at = i + 1;
		}
	if (!at)
		snprintf(buf, len, "-");
	else if (min <= 0)
		snprintf(buf, len, "dark (%u)", at);
	else
		snprintf(buf, len, "%.2f (%u)", module_mw_to_dbm(min), at);
}

static void summary_line(FILE *f, struct render_txt *tx, const struct optics_port *p)
{
	const struct fab_module *m = &p->mod;
	char temp[16] = "-", rx[24];

	if (p->module_rc) {
		fprintf(f, "%-12s %-14s %s  %s\n", render_txt(tx, p->ifname), "-",
			render_txt(tx, dash(p->module_err)), optics_health_name(p->verdict.health));
		return;
	}
	if (m->temp_c.ok)
		snprintf(temp, sizeof(temp), "%.1f", m->temp_c.v);
	rx_min(m, rx, sizeof(rx));
	fprintf(f, "%-12s %-14s %-16s %-16s %-16s %6s %-12s %s\n", render_txt(tx, p->ifname),
		dash(m->type), dash(m->vendor), dash(m->pn), dash(m->sn), temp, rx,
		optics_health_name(p->verdict.health));
}

static void findings(FILE *f, const struct optics_verdict *v, const char *indent)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct optics_finding *x = &v->f[i];

		fprintf(f, "%s%s: %s", indent, optics_health_name(x->level), x->text);
		if (x->hint)
			fprintf(f, "; %s", optics_hint_text(x->hint));
		fputc('\n', f);
	}
}

void optics_text_summary(FILE *f, const struct optics_set *s)
{
	struct render_txt tx = { .next = 0 };

	if (!s || !s->n)
		return;
	fprintf(f, "\n%-12s %-14s %-16s %-16s %-16s %6s %-12s %s\n", "MODULE", "TYPE", "VENDOR",
		"PN", "SN", "TEMP C", "RX DBM (LANE)", "VERDICT");
	for (size_t i = 0; i < s->n; i++)
		summary_line(f, &tx, &s->v[i]);
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].verdict.health <= OPTICS_HEALTHY)
			continue;
		fprintf(f, "%s:\n", render_txt(&tx, s->v[i].ifname));
		findings(f, &s->v[i].verdict, "    ");
	}
}

static void range(FILE *f, const struct module_thresholds *th, enum module_qty q, bool dbm)
{
	double v[MODULE_LEVELS];

	if (!th->ok)
		return;
	for (unsigned int l = 0; l < MODULE_LEVELS; l++)
		v[l] = dbm ? module_mw_to_dbm(th->v[q][l]) : th->v[q][l];
	fprintf(f, " [alarm %.2f..%.2f, warning %.2f..%.2f]", v[MODULE_LOW_ALARM],
		v[MODULE_HIGH_ALARM], v[MODULE_LOW_WARN], v[MODULE_HIGH_WARN]);
}

static void flag_names(char *buf, size_t len, bool ok, uint8_t fl)
{
	size_t n = 0;

	buf[0] = '\0';
	if (!ok)
		return;
	for (unsigned int l = 0; l < MODULE_LEVELS; l++)
		if (fl & MODULE_FLAG(l))
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "," : "",
					      module_level_name(l));
}

static void power(FILE *f, struct module_val v)
{
	if (!v.ok)
		fprintf(f, " %8s", "-");
	else if (v.v <= 0)
		fprintf(f, " %8s", "dark");
	else
		fprintf(f, " %8.2f", module_mw_to_dbm(v.v));
}

static void lanes(FILE *f, const struct fab_module *m)
{
	if (!m->n_lanes)
		return;
	fprintf(f, "    %4s %8s %8s %8s  %s\n", "LANE", "TX dBm", "RX dBm", "BIAS mA", "FLAGS");
	for (unsigned int i = 0; i < m->n_lanes; i++) {
		const struct module_lane *l = &m->lane[i];
		char tx[48], rx[48], bias[48];

		fprintf(f, "    %4u", i + 1);
		power(f, l->tx_mw);
		power(f, l->rx_mw);
		if (l->bias_ma.ok)
			fprintf(f, " %8.3f", l->bias_ma.v);
		else
			fprintf(f, " %8s", "-");
		flag_names(tx, sizeof(tx), m->flags_ok, l->flags[MODULE_TX_POWER]);
		flag_names(rx, sizeof(rx), m->flags_ok, l->flags[MODULE_RX_POWER]);
		flag_names(bias, sizeof(bias), m->flags_ok, l->flags[MODULE_BIAS]);
		fprintf(f, "%s%s%s%s%s%s%s%s%s\n", *tx ? "  tx:" : "", tx, *rx ? "  rx:" : "", rx,
			*bias ? "  bias:" : "", bias, l->rx_los ? " rx_los" : "",
			l->tx_los ? " tx_los" : "", l->tx_fault ? " tx_fault" : "");
	}
}

static void module_detail(FILE *f, const struct fab_module *m)
{
	fprintf(f, "    %s %s, %s, %s rev %s, sn %s, date %s\n", dash(m->type), dash(m->spec_rev),
		dash(m->vendor), dash(m->pn), dash(m->rev), dash(m->sn), dash(m->date));
	fprintf(f, "    media %s, %s, connector %s", dash(m->media), dash(m->compliance),
		dash(m->connector));
	if (m->wavelength_nm > 0)
		fprintf(f, ", %.2f nm", m->wavelength_nm);
	if (m->length.cable_m >= 0)
		fprintf(f, ", cable %.1f m", m->length.cable_m);
	if (m->state[0])
		fprintf(f, ", state %s", m->state);
	fputc('\n', f);
	if (m->temp_c.ok) {
		fprintf(f, "    temperature %.2f C", m->temp_c.v);
		range(f, &m->th, MODULE_TEMP, false);
		fputc('\n', f);
	}
	if (m->vcc_v.ok) {
		fprintf(f, "    voltage %.4f V", m->vcc_v.v);
		range(f, &m->th, MODULE_VCC, false);
		fputc('\n', f);
	}
	lanes(f, m);
	if (m->th.ok) {
		fprintf(f, "    thresholds: tx dBm");
		range(f, &m->th, MODULE_TX_POWER, true);
		fprintf(f, ", rx dBm");
		range(f, &m->th, MODULE_RX_POWER, true);
		fprintf(f, ", bias mA");
		range(f, &m->th, MODULE_BIAS, false);
		fputc('\n', f);
	}
}

static void stat(FILE *f, const char *name, const struct optics_fec_stat *s)
{
	if (s->ok)
		fprintf(f, ", %s %" PRIu64, name, s->total);
}

static void link_detail(FILE *f, const struct optics_port *p)
{
	const struct optics_link *l = &p->link;
	const struct optics_verdict *v = &p->verdict;

	fprintf(f, "    link");
	if (l->speed_mbps > 0)
		fprintf(f, " %" PRId64 "Mb/s", l->speed_mbps);
	if (l->lanes)
		fprintf(f, " %u lanes", l->lanes);
	if (l->fec_ok)
		fprintf(f, ", FEC %s%s", dash(optics_fec_name(l->fec)),
			l->fec_auto ? " (auto)" : "");
	else
		fprintf(f, ", FEC not reported");
	stat(f, "corrected blocks", &l->corrected_blocks);
	stat(f, "uncorrectable blocks", &l->uncorrectable_blocks);
	stat(f, "corrected bits", &l->corrected_bits);
	if (l->carrier_changes_ok)
		fprintf(f, ", carrier changes %" PRIu64, l->carrier_changes);
	if (l->down_events_ok)
		fprintf(f, ", link down events %" PRIu64, l->down_events);
	fputc('\n', f);
	if (!v->windowed)
		return;
	fprintf(f, "    window %.1f s: uncorrectable %" PRIu64 ", flaps %" PRIu64, v->window_s,
		v->uncorrectable, v->flaps);
	if (v->ber_ok)
		fprintf(f, ", pre-FEC BER %s%.2e", v->ber_lower_bound ? ">= " : "", v->ber);
	if (v->ber_limit > 0)
		fprintf(f, " (%s limit %.1e)", v->fec_code, v->ber_limit);
	fputc('\n', f);
}

void optics_text_detail(FILE *f, const struct optics_set *s)
{
	struct render_txt tx = { .next = 0 };

	if (!s || !s->n) {
		fprintf(f, "no pluggable modules\n");
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct optics_port *p = &s->v[i];

		fprintf(f, "%s%s: %s", i ? "\n" : "", render_txt(&tx, p->ifname),
			optics_health_name(p->verdict.health));
		if (p->verdict.hint)
			fprintf(f, " (%s)", optics_hint_text(p->verdict.hint));
		fputc('\n', f);
		if (p->module_rc)
			fprintf(f, "    %s\n", render_txt(&tx, p->module_err));
		else
			module_detail(f, &p->mod);
		if (p->link_rc)
			fprintf(f, "    %s\n", render_txt(&tx, p->link_err));
		else
			link_detail(f, p);
		findings(f, &p->verdict, "    ");
		for (unsigned int n = 0; !p->module_rc && n < p->mod.n_notes; n++)
			fprintf(f, "    note: %s\n", render_txt(&tx, p->mod.notes[n]));
	}
}

/* The widest window of @c's wanted hosts' ports (0: none windowed). */
static double hosts_window(const struct optics_hosts *c)
{
	double w = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->wanted[i] && c->set[i].window_s > w)
			w = c->set[i].window_s;
	return w;
}

static void evidence_port(FILE *f, struct render_txt *tx, const char *node,
			  const struct optics_port *p)
{
	const struct fab_module *m = &p->mod;

	fprintf(f, "  %s %s: %s", render_txt(tx, node), render_txt(tx, p->ifname),
		optics_health_name(p->verdict.health));
	if (p->module_rc)
		fprintf(f, " (module: %s)", render_txt(tx, dash(p->module_err)));
	else
		fprintf(f, " (%s %s %s sn %s)", dash(m->type), dash(m->vendor), dash(m->pn),
			dash(m->sn));
	if (!p->verdict.windowed)
		fprintf(f, ", one reading");
	fputc('\n', f);
	findings(f, &p->verdict, "      ");
}

/* InfiniBand: the suspects' links' ends from their PMA counters. */
static void ib_ends(FILE *f, struct render_txt *tx, const struct optics_hosts *c)
{
	fprintf(f, "\ncable ends of the suspects' links (InfiniBand PMA counters");
	if (c->ib_window_s > 0)
		fprintf(f, ", %.0f s since the sweep began", c->ib_window_s);
	fprintf(f, "):\n");
	for (size_t i = 0; i < c->n_ib; i++) {
		const struct optics_ib_end *e = &c->ib[i];

		fprintf(f, "  %s port %u: %s%s\n", render_txt(tx, e->node), e->port,
			optics_health_name(e->verdict.health),
			e->after.ok ? "" : " (counters not read both times)");
		findings(f, &e->verdict, "      ");
	}
}

static bool any_wanted(const struct optics_hosts *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->wanted[i])
			return true;
	return false;
}

void optics_text_hosts(FILE *f, const struct fab_hosts *hosts, const struct optics_hosts *c)
{
	struct render_txt tx = { .next = 0 };
	double w;

	if (!c)
		return;
	if (c->n_ib)
		ib_ends(f, &tx, c);
	if (!any_wanted(c))
		return;
	w = hosts_window(c);
	fprintf(f, "\ncable ends of the suspects' hosts");
	if (w > 0)
		fprintf(f, " (read before and after the sweep, %.1f s apart)", w);
	fprintf(f, ":\n");
	for (size_t i = 0; i < c->n && i < hosts->n; i++) {
		const char *node = hosts->hosts[i].name;

		if (!c->wanted[i])
			continue;
		if (!c->read[i])
			fprintf(f, "  %s: not read: %s\n", render_txt(&tx, node),
				render_txt(&tx, c->why[i] ? c->why[i] : "no answer"));
		else if (!c->set[i].n)
			fprintf(f, "  %s: no port with a module interface\n",
				render_txt(&tx, node));
		for (size_t k = 0; c->read[i] && k < c->set[i].n; k++)
			evidence_port(f, &tx, node, &c->set[i].v[k]);
	}
}
