// SPDX-License-Identifier: GPL-2.0-or-later
/* The "optics" op's wire form of a cable end (see optics_wire.h). */
#include <errno.h>
#include <string.h>

#include "model/optics_wire.h"
#include "util/str.h"

static json_t *text_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *page_to_json(const struct module_page *pg)
{
	static const char hex[] = "0123456789abcdef";
	char d[2 * MODULE_PAGE_LEN + 1];

	for (size_t i = 0; i < MODULE_PAGE_LEN; i++) {
		d[2 * i] = hex[pg->data[i] >> 4];
		d[2 * i + 1] = hex[pg->data[i] & 15];
	}
	d[2 * MODULE_PAGE_LEN] = '\0';
	return json_pack("{s:i, s:i, s:i, s:b, s:i, s:s}", "i2c", pg->i2c, "bank", pg->bank,
			 "page", pg->page, "upper", pg->upper, "err", pg->err, "data", d);
}

static json_t *stat_to_json(const struct optics_fec_stat *s)
{
	json_t *lanes;

	if (!s->ok)
		return json_null();
	lanes = json_array();
	for (unsigned int i = 0; i < s->n_lanes; i++)
		json_array_append_new(lanes, json_integer((json_int_t)s->lane[i]));
	return json_pack("{s:I, s:o}", "total", (json_int_t)s->total, "lanes", lanes);
}

static json_t *counter(bool ok, uint64_t v)
{
	return ok ? json_integer((json_int_t)v) : json_null();
}

static json_t *link_to_json(const struct optics_port *p)
{
	const struct optics_link *l = &p->link;
	json_t *o = json_object(), *hist = json_array();

	for (unsigned int i = 0; i < l->n_hist; i++)
		json_array_append_new(hist, json_pack("[I, I, I]", (json_int_t)l->hist[i].low,
						      (json_int_t)l->hist[i].high,
						      (json_int_t)l->hist[i].count));
	json_object_set_new(o, "rc", json_integer(p->link_rc));
	json_object_set_new(o, "error", text_or_null(p->link_err));
	json_object_set_new(o, "t_s", json_real(l->t_s));
	json_object_set_new(o, "speed_mbps", json_integer(l->speed_mbps));
	json_object_set_new(o, "lanes", json_integer(l->lanes));
	json_object_set_new(o, "link_up", l->link_ok ? json_boolean(l->link_up) : json_null());
	json_object_set_new(o, "fec_ok", json_boolean(l->fec_ok));
	json_object_set_new(o, "fec", text_or_null(optics_fec_name(l->fec)));
	json_object_set_new(o, "fec_auto", json_boolean(l->fec_auto));
	json_object_set_new(o, "corrected_blocks", stat_to_json(&l->corrected_blocks));
	json_object_set_new(o, "uncorrectable_blocks", stat_to_json(&l->uncorrectable_blocks));
	json_object_set_new(o, "corrected_bits", stat_to_json(&l->corrected_bits));
	json_object_set_new(o, "hist", hist);
	json_object_set_new(o, "down_events", counter(l->down_events_ok, l->down_events));
	json_object_set_new(o, "carrier_changes", counter(l->carrier_changes_ok,
							  l->carrier_changes));
	json_object_set_new(o, "carrier_down", counter(l->carrier_down_ok, l->carrier_down));
	return o;
}

json_t *optics_wire_to_json(const struct module_eeprom *e, const struct optics_port *p)
{
	json_t *pages = json_array();

	for (size_t i = 0; e && i < e->n; i++)
		json_array_append_new(pages, page_to_json(&e->pages[i]));
	return json_pack("{s:s, s:{s:i, s:o, s:o}, s:o}", "ifname", p->ifname,
			 "module", "rc", p->module_rc, "error", text_or_null(p->module_err),
			 "pages", pages, "link", link_to_json(p));
}

/* ---- reading it back ---- */

struct rd {
	const char *ifname;
	struct fab_err *err;
};

static int bad(struct rd *r, const char *field, const char *want)
{
	return fab_err_set(r->err, -EPROTO, "optics: %s: %s: want %s", r->ifname, field, want);
}

/* An integer member in [min, max]. */
static int int_of(struct rd *r, const json_t *o, const char *key, long long min, long long max,
		  long long *out)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
		return bad(r, key, "an integer");
	*out = json_integer_value(v);
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int page_from_json(struct rd *r, const json_t *j, struct module_eeprom *e)
{
	struct module_page_req req;
	uint8_t data[MODULE_PAGE_LEN];
	const char *d = json_string_value(json_object_get(j, "data"));
	long long i2c, bank, page, err;
	int rc;

	if (!json_is_object(j))
		return bad(r, "pages[]", "an object");
	if (int_of(r, j, "i2c", 0, 0x7f, &i2c) < 0 || int_of(r, j, "bank", 0, 255, &bank) < 0 ||
	    int_of(r, j, "page", 0, 255, &page) < 0 || int_of(r, j, "err", -4095, 0, &err) < 0)
		return -EPROTO;
	if (!json_is_boolean(json_object_get(j, "upper")))
		return bad(r, "pages[].upper", "a boolean");
	if (!d || strlen(d) != 2 * MODULE_PAGE_LEN)
		return bad(r, "pages[].data", "256 hex digits");
	for (size_t i = 0; i < MODULE_PAGE_LEN; i++) {
		int hi = hexval(d[2 * i]), lo = hexval(d[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return bad(r, "pages[].data", "256 hex digits");
		data[i] = (uint8_t)(hi << 4 | lo);
	}
	req = (struct module_page_req){ (uint8_t)i2c, (uint8_t)bank, (uint8_t)page,
					json_is_true(json_object_get(j, "upper")) };
	rc = module_eeprom_put(e, &req, err ? NULL : data, (int)err);
	if (rc == -ENOSPC)
		return bad(r, "pages", "at most 16 pages");
	if (rc == -EEXIST)
		return bad(r, "pages", "each page once");
	return 0;
}

static int module_from_json(struct rd *r, const json_t *j, struct optics_port *p)
{
	struct module_eeprom e;
	const json_t *pages = json_object_get(j, "pages"), *v;
	const char *msg = json_string_value(json_object_get(j, "error"));
	long long rc;
	size_t i;

	if (!json_is_object(j) || !json_is_array(pages))
		return bad(r, "module", "an object with pages");
	if (int_of(r, j, "rc", -4095, 0, &rc) < 0)
		return -EPROTO;
	module_eeprom_init(&e);
	json_array_foreach(pages, i, v)
		if (page_from_json(r, v, &e) < 0)
			return -EPROTO;
	p->module_rc = (int)rc;
	str_fmt(p->module_err, sizeof(p->module_err), "%s", msg ? msg : "");
	if (p->module_rc)
		return 0;
	p->module_rc = module_decode(&e, &p->mod);
	if (p->module_rc < 0 && p->mod.n_notes)
		str_fmt(p->module_err, sizeof(p->module_err), "module: %s: %s", p->ifname,
			p->mod.notes[0]);
	return 0;
}

static int stat_from_json(struct rd *r, const json_t *j, const char *key,
			  struct optics_fec_stat *s)
{
	const json_t *v = json_object_get(j, key), *lanes, *x;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!v || json_is_null(v))
		return 0;
	lanes = json_object_get(v, "lanes");
	if (!json_is_integer(json_object_get(v, "total")) || !json_is_array(lanes) ||
	    json_array_size(lanes) > OPTICS_FEC_LANES)
		return bad(r, key, "null or {total, lanes[<= 8]}");
	s->ok = true;
	s->total = (uint64_t)json_integer_value(json_object_get(v, "total"));
	json_array_foreach(lanes, i, x) {
		if (!json_is_integer(x))
			return bad(r, key, "integer lanes");
		s->lane[s->n_lanes++] = (uint64_t)json_integer_value(x);
	}
	return 0;
}

/* A counter member: null (not given) or a non-negative integer. */
static int opt_counter(struct rd *r, const json_t *j, const char *key, bool *ok, uint64_t *v)
{
	const json_t *x = json_object_get(j, key);

	*ok = false;
	if (!x || json_is_null(x))
		return 0;
	if (!json_is_integer(x) || json_integer_value(x) < 0)
		return bad(r, key, "null or a count");
	*ok = true;
	*v = (uint64_t)json_integer_value(x);
	return 0;
}

static enum optics_fec fec_of(const char *s)
{
	static const enum optics_fec all[] = {
		OPTICS_FEC_NONE, OPTICS_FEC_BASER, OPTICS_FEC_RS, OPTICS_FEC_LLRS,
	};

	for (size_t i = 0; s && i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(s, optics_fec_name(all[i])))
			return all[i];
	return OPTICS_FEC_UNKNOWN;
}

static int hist_from_json(struct rd *r, const json_t *h, struct optics_link *l)
{
	const json_t *b;
	size_t i;

	if (!json_is_array(h) || json_array_size(h) > OPTICS_FEC_HIST_MAX)
		return bad(r, "hist", "an array of at most 16 bins");
	json_array_foreach(h, i, b) {
		struct optics_fec_bin *bin = &l->hist[l->n_hist++];

		if (!json_is_array(b) || json_array_size(b) != 3 ||
		    !json_is_integer(json_array_get(b, 0)) ||
		    !json_is_integer(json_array_get(b, 1)) ||
		    !json_is_integer(json_array_get(b, 2)))
			return bad(r, "hist[]", "[low, high, count]");
		bin->low = (uint32_t)json_integer_value(json_array_get(b, 0));
		bin->high = (uint32_t)json_integer_value(json_array_get(b, 1));
		bin->count = (uint64_t)json_integer_value(json_array_get(b, 2));
	}
	return 0;
}

static int link_from_json(struct rd *r, const json_t *j, struct optics_port *p)
{
	struct optics_link *l = &p->link;
	const json_t *up = json_object_get(j, "link_up");
	const char *msg = json_string_value(json_object_get(j, "error"));
	long long rc, speed, lanes;

	if (!json_is_object(j))
		return bad(r, "link", "an object");
	optics_link_init(l);
	if (int_of(r, j, "rc", -4095, 0, &rc) < 0 ||
	    int_of(r, j, "speed_mbps", -1, 100000000, &speed) < 0 ||
	    int_of(r, j, "lanes", 0, 64, &lanes) < 0)
		return -EPROTO;
	if (!json_is_number(json_object_get(j, "t_s")))
		return bad(r, "t_s", "a number");
	p->link_rc = (int)rc;
	str_fmt(p->link_err, sizeof(p->link_err), "%s", msg ? msg : "");
	l->t_s = json_number_value(json_object_get(j, "t_s"));
	l->speed_mbps = speed;
	l->lanes = (unsigned int)lanes;
	l->link_ok = json_is_boolean(up);
	l->link_up = json_is_true(up);
	l->fec_ok = json_is_true(json_object_get(j, "fec_ok"));
	l->fec = fec_of(json_string_value(json_object_get(j, "fec")));
	l->fec_auto = json_is_true(json_object_get(j, "fec_auto"));
	if (stat_from_json(r, j, "corrected_blocks", &l->corrected_blocks) < 0 ||
	    stat_from_json(r, j, "uncorrectable_blocks", &l->uncorrectable_blocks) < 0 ||
	    stat_from_json(r, j, "corrected_bits", &l->corrected_bits) < 0 ||
	    hist_from_json(r, json_object_get(j, "hist"), l) < 0 ||
	    opt_counter(r, j, "down_events", &l->down_events_ok, &l->down_events) < 0 ||
	    opt_counter(r, j, "carrier_changes", &l->carrier_changes_ok, &l->carrier_changes) < 0 ||
	    opt_counter(r, j, "carrier_down", &l->carrier_down_ok, &l->carrier_down) < 0)
		return -EPROTO;
	return 0;
}

int optics_wire_from_json(const json_t *j, struct optics_port *p, struct fab_err *err)
{
	const char *ifname = json_string_value(json_object_get(j, "ifname"));
	struct rd r = { ifname, err };

	if (!json_is_object(j) || !ifname || !*ifname || strlen(ifname) >= sizeof(p->ifname))
		return fab_err_set(err, -EPROTO, "optics: a port without a valid \"ifname\"");
	str_fmt(p->ifname, sizeof(p->ifname), "%s", ifname);
	if (module_from_json(&r, json_object_get(j, "module"), p) < 0 ||
	    link_from_json(&r, json_object_get(j, "link"), p) < 0)
		return -EPROTO;
	return 0;
}
