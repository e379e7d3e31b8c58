// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Module pages and the parts the three decoders share: which page comes
 * next, SFF-8024's names, units (see module.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "model/module.h"
#include "util/str.h"

void module_eeprom_init(struct module_eeprom *e)
{
	memset(e, 0, sizeof(*e));
}

const struct module_page *module_eeprom_find(const struct module_eeprom *e, uint8_t i2c,
					     uint8_t bank, uint8_t page, bool upper)
{
	for (size_t i = 0; i < e->n; i++) {
		const struct module_page *p = &e->pages[i];

		if (p->i2c == i2c && p->bank == bank && p->page == page && p->upper == upper)
			return p;
	}
	return NULL;
}

const uint8_t *module_eeprom_data(const struct module_eeprom *e, uint8_t i2c, uint8_t bank,
				  uint8_t page, bool upper)
{
	const struct module_page *p = module_eeprom_find(e, i2c, bank, page, upper);

	return p && !p->err ? p->data : NULL;
}

int module_eeprom_put(struct module_eeprom *e, const struct module_page_req *req,
		      const uint8_t *data, int err)
{
	struct module_page *p;

	if (module_eeprom_find(e, req->i2c, req->bank, req->page, req->upper))
		return -EEXIST;
	if (e->n >= MODULE_PAGES_MAX)
		return -ENOSPC;
	p = &e->pages[e->n++];
	memset(p, 0, sizeof(*p));
	p->i2c = req->i2c;
	p->bank = req->bank;
	p->page = req->page;
	p->upper = req->upper;
	p->err = err < 0 ? err : 0;
	if (!p->err && data)
		memcpy(p->data, data, MODULE_PAGE_LEN);
	else if (!p->err)
		p->err = -ENODATA;
	return 0;
}

enum module_spec module_spec_of(uint8_t id)
{
	switch (id) {
	case 0x02:	/* soldered to the board, SFF-8472 memory map */
	case 0x03:	/* SFP/SFP+/SFP28 */
	case 0x0b:	/* DWDM-SFP/SFP+ */
		return MODULE_SPEC_SFF8472;
	case 0x0c:	/* QSFP */
	case 0x0d:	/* QSFP+ */
	case 0x11:	/* QSFP28 */
		return MODULE_SPEC_SFF8636;
	case 0x18:	/* QSFP-DD */
	case 0x19:	/* OSFP */
	case 0x1b:	/* DSFP */
	case 0x1e:	/* QSFP+ or later with CMIS */
	case 0x1f:	/* SFP-DD with CMIS */
	case 0x20:	/* SFP+ and later with CMIS */
		return MODULE_SPEC_CMIS;
	default:
		return MODULE_SPEC_UNKNOWN;
	}
}

const char *module_spec_name(enum module_spec s)
{
	switch (s) {
	case MODULE_SPEC_SFF8472:
		return "SFF-8472";
	case MODULE_SPEC_SFF8636:
		return "SFF-8636";
	case MODULE_SPEC_CMIS:
		return "CMIS";
	default:
		return "unknown";
	}
}

static int req_set(struct module_page_req *req, uint8_t i2c, uint8_t bank, uint8_t page,
		   bool upper)
{
	*req = (struct module_page_req){ .i2c = i2c, .bank = bank, .page = page, .upper = upper };
	return 1;
}

/* The first of @n pages (i2c 0x50, bank 0 unless given) not asked for yet. */
static int next_missing(const struct module_eeprom *e, const struct module_page_req *want,
			size_t n, struct module_page_req *req)
{
	for (size_t i = 0; i < n; i++) {
		const struct module_page_req *w = &want[i];

		if (!module_eeprom_find(e, w->i2c, w->bank, w->page, w->upper)) {
			*req = *w;
			return 1;
		}
	}
	return 0;
}

static int next_sff8472(const struct module_eeprom *e, const uint8_t *lower,
			struct module_page_req *req)
{
	/* A0h 0-127 holds identity and options; A2h 0-127 every diagnostic. */
	if (!(lower[92] & 0x40))	/* digital diagnostic monitoring implemented */
		return 0;
	if (module_eeprom_find(e, MODULE_I2C_A2, 0, 0, false))
		return 0;
	return req_set(req, MODULE_I2C_A2, 0, 0, false);
}

static int next_sff8636(const struct module_eeprom *e, const uint8_t *lower,
			struct module_page_req *req)
{
	const struct module_page_req want[] = {
		{ MODULE_I2C_A0, 0, 0x00, true },
		{ MODULE_I2C_A0, 0, 0x03, true },
	};

	/* Byte 2 bit 2, Flat_mem: upper page 00h only. */
	return next_missing(e, want, lower[2] & 0x04 ? 1 : 2, req);
}

/* CMIS page 01h byte 142 bits 1-0: banks 0, 0-1, 0-3; 0 when unknown. */
static unsigned int cmis_banks(const uint8_t *p01)
{
	switch (p01[142 - 128] & 0x03) {
	case 0:
		return 1;
	case 1:
		return 2;
	case 2:
		return 4;
	default:
		return 0;
	}
}

static int next_cmis(const struct module_eeprom *e, const uint8_t *lower,
		     struct module_page_req *req)
{
	const struct module_page_req want[] = {
		{ MODULE_I2C_A0, 0, 0x00, true },
		{ MODULE_I2C_A0, 0, 0x01, true },
		{ MODULE_I2C_A0, 0, 0x02, true },
	};
	const uint8_t *p01;
	unsigned int banks;

	/* Byte 2 bit 7, MemoryModel: flat (page 00h only). */
	if (next_missing(e, want, lower[2] & 0x80 ? 1 : 3, req))
		return 1;
	if (lower[2] & 0x80)
		return 0;
	p01 = module_eeprom_data(e, MODULE_I2C_A0, 0, 0x01, true);
	if (!p01)
		return 0;
	banks = cmis_banks(p01);
	for (unsigned int b = 0; b < banks; b++)
		if (!module_eeprom_find(e, MODULE_I2C_A0, (uint8_t)b, 0x11, true))
			return req_set(req, MODULE_I2C_A0, (uint8_t)b, 0x11, true);
	return 0;
}

int module_eeprom_next(const struct module_eeprom *e, struct module_page_req *req)
{
	const struct module_page *lp = module_eeprom_find(e, MODULE_I2C_A0, 0, 0, false);

	if (!lp)
		return req_set(req, MODULE_I2C_A0, 0, 0, false);
	if (lp->err)
		return 0;
	switch (module_spec_of(lp->data[0])) {
	case MODULE_SPEC_SFF8472:
		return next_sff8472(e, lp->data, req);
	case MODULE_SPEC_SFF8636:
		return next_sff8636(e, lp->data, req);
	case MODULE_SPEC_CMIS:
		return next_cmis(e, lp->data, req);
	default:
		return 0;
	}
}

void module_init(struct fab_module *m)
{
	memset(m, 0, sizeof(*m));
	m->length = (struct module_length){ -1, -1, -1, -1, -1, -1, -1.0 };
}

void module_note(struct fab_module *m, const char *fmt, ...)
{
	va_list ap;

	if (m->n_notes >= MODULE_NOTES_MAX)
		return;
	va_start(ap, fmt);
	str_vfmt(m->notes[m->n_notes++], sizeof(m->notes[0]), fmt, ap);
	va_end(ap);
}

const char *module_page_why(const struct module_page *p)
{
	return p ? strerror(-p->err) : "not asked for";
}

double module_mw_to_dbm(double mw)
{
	if (mw <= 0)
		return -INFINITY;
	return 10.0 * log10(mw);
}

void module_ascii(char *out, const uint8_t *p, size_t len)
{
	size_t n = len;

	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\0'))
		n--;
	for (size_t i = 0; i < n; i++)
		out[i] = p[i] >= 32 && p[i] <= 126 ? (char)p[i] : '_';
	out[n] = '\0';
}

bool module_bytes_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

const char *module_level_name(enum module_level l)
{
	static const char *const names[MODULE_LEVELS] = {
		"high_alarm", "low_alarm", "high_warning", "low_warning",
	};

	return (unsigned int)l < MODULE_LEVELS ? names[l] : "";
}

const char *module_qty_name(enum module_qty q)
{
	static const char *const names[MODULE_QTYS] = {
		"temperature", "voltage", "bias", "tx_power", "rx_power",
	};

	return (unsigned int)q < MODULE_QTYS ? names[q] : "";
}

const char *module_qty_unit(enum module_qty q)
{
	static const char *const units[MODULE_QTYS] = { "C", "V", "mA", "mW", "mW" };

	return (unsigned int)q < MODULE_QTYS ? units[q] : "";
}

/* SFF-8024 table 4-1. */
const char *sff8024_id_name(uint8_t id)
{
	static const char *const names[] = {
		[0x01] = "GBIC", [0x02] = "soldered module", [0x03] = "SFP/SFP+/SFP28",
		[0x04] = "300 pin XBI", [0x05] = "XENPAK", [0x06] = "XFP", [0x07] = "XFF",
		[0x08] = "XFP-E", [0x09] = "XPAK", [0x0a] = "X2", [0x0b] = "DWDM-SFP/SFP+",
		[0x0c] = "QSFP", [0x0d] = "QSFP+", [0x0e] = "CXP", [0x0f] = "HD 4X",
		[0x10] = "HD 8X", [0x11] = "QSFP28", [0x12] = "CXP2", [0x13] = "CDFP",
		[0x14] = "HD 4X fanout", [0x15] = "HD 8X fanout", [0x16] = "CDFP style 3",
		[0x17] = "microQSFP", [0x18] = "QSFP-DD", [0x19] = "OSFP", [0x1a] = "SFP-DD",
		[0x1b] = "DSFP", [0x1c] = "MiniLink x4", [0x1d] = "MiniLink x8",
		[0x1e] = "QSFP+ (CMIS)", [0x1f] = "SFP-DD (CMIS)", [0x20] = "SFP+ (CMIS)",
	};

	return id < sizeof(names) / sizeof(names[0]) && names[id] ? names[id] : "";
}

/* SFF-8024 table 4-3. */
const char *sff8024_connector_name(uint8_t c)
{
	static const char *const names[] = {
		[0x01] = "SC", [0x02] = "FC style 1 copper", [0x03] = "FC style 2 copper",
		[0x04] = "BNC/TNC", [0x05] = "FC coax", [0x06] = "FiberJack", [0x07] = "LC",
		[0x08] = "MT-RJ", [0x09] = "MU", [0x0a] = "SG", [0x0b] = "optical pigtail",
		[0x0c] = "MPO 1x12", [0x0d] = "MPO 2x16", [0x20] = "HSSDC II",
		[0x21] = "copper pigtail", [0x22] = "RJ45", [0x23] = "no separable connector",
		[0x24] = "MXC 2x16", [0x25] = "CS", [0x26] = "SN", [0x27] = "MPO 2x12",
		[0x28] = "MPO 1x16",
	};

	return c < sizeof(names) / sizeof(names[0]) && names[c] ? names[c] : "";
}

/* SFF-8024 table 4-4 (extended specification compliance codes). */
const char *sff8024_ext_compliance_name(uint8_t c)
{
	static const char *const names[] = {
		[0x01] = "100G AOC or 25GAUI C2M AOC (BER 5e-5)",
		[0x02] = "100GBASE-SR4 or 25GBASE-SR",
		[0x03] = "100GBASE-LR4 or 25GBASE-LR",
		[0x04] = "100GBASE-ER4 or 25GBASE-ER",
		[0x05] = "100GBASE-SR10",
		[0x06] = "100G CWDM4",
		[0x07] = "100G PSM4",
		[0x08] = "100G ACC or 25GAUI C2M ACC (BER 5e-5)",
		[0x0b] = "100GBASE-CR4 or 25GBASE-CR CA-L",
		[0x0c] = "25GBASE-CR CA-S",
		[0x0d] = "25GBASE-CR CA-N",
		[0x10] = "40GBASE-ER4",
		[0x11] = "4 x 10GBASE-SR",
		[0x12] = "40G PSM4",
		[0x16] = "10GBASE-T with SFI",
		[0x17] = "100G CLR4",
		[0x18] = "100G AOC or 25GAUI C2M AOC (BER 1e-12)",
		[0x19] = "100G ACC or 25GAUI C2M ACC (BER 1e-12)",
		[0x1a] = "100GE-DWDM2",
		[0x1b] = "100G 1550 nm WDM",
		[0x1c] = "10GBASE-T short reach",
		[0x1d] = "5GBASE-T",
		[0x1e] = "2.5GBASE-T",
		[0x1f] = "40G SWDM4",
		[0x20] = "100G SWDM4",
		[0x21] = "100G PAM4 BiDi",
		[0x25] = "100GBASE-DR",
		[0x26] = "100G-FR or 100GBASE-FR1",
		[0x27] = "100G-LR or 100GBASE-LR1",
		[0x30] = "ACC 50GAUI/100GAUI-2/200GAUI-4 (BER 1e-6)",
		[0x31] = "AOC 50GAUI/100GAUI-2/200GAUI-4 (BER 1e-6)",
		[0x32] = "ACC 50GAUI/100GAUI-2/200GAUI-4 (BER 2.6e-4)",
		[0x33] = "AOC 50GAUI/100GAUI-2/200GAUI-4 (BER 2.6e-4)",
		[0x40] = "50GBASE-CR, 100GBASE-CR2 or 200GBASE-CR4",
		[0x41] = "50GBASE-SR, 100GBASE-SR2 or 200GBASE-SR4",
		[0x42] = "50GBASE-FR or 200GBASE-DR4",
		[0x43] = "200GBASE-FR4",
		[0x44] = "200G 1550 nm PSM4",
		[0x45] = "50GBASE-LR",
		[0x46] = "200GBASE-LR4",
	};

	return c < sizeof(names) / sizeof(names[0]) && names[c] ? names[c] : "";
}
