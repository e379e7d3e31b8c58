// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CMIS 4.0 / 5.x (QSFP-DD, OSFP, QSFP112 and other CMIS modules), up to
 * 8 lanes a bank.  Offsets and units are the specification's (CMIS 5.2
 * sections 8.2-8.4 and 8.7-8.9; tables 8-4 to 8-10, 8-22 to 8-31, 8-40
 * to 8-46, 8-60, 8-76 to 8-80):
 *
 *   lower  1 revision (major, minor nibbles), 2 bit 7 MemoryModel (flat),
 *          3 bits 3-1 module state, 9 module flags (bits 0-3 temperature
 *          high alarm, low alarm, high warning, low warning; bits 4-7 the
 *          same for Vcc), 14-15 temperature, 16-17 Vcc, 85 media type,
 *          86-89 first application (87 media interface, 88 bits 3-0 media
 *          lane count)
 *   00h    129-144 vendor, 145-147 OUI, 148-163 PN, 164-165 rev, 166-181 SN,
 *          182-189 date, 202 cable assembly length (bits 7-6 multiplier
 *          0.1/1/10/100 m, bits 5-0 value), 203 connector, 212 media
 *          interface technology, 222 checksum (bytes 128-221)
 *   01h    132 SMF length (bits 7-6: 0.1 or 1 km), 133 OM5, 134 OM4,
 *          135 OM3 (2 m), 136 OM2 (1 m), 138-139 wavelength (0.05 nm),
 *          142 bits 1-0 banks (0, 0-1, 0-3), 151 bit 4 Rx power is average,
 *          157 bit 0 Tx fault and bit 1 Tx LOS flags, 158 bit 1 Rx LOS flag
 *          supported, 159 bit 0 temperature and bit 1 Vcc monitor, 160 bit 0
 *          bias, bit 1 Tx power, bit 2 Rx power monitor, bits 4-3 bias
 *          multiplier (x1, x2, x4)
 *   02h    128-135 temperature, 136-143 Vcc, 176-183 Tx power, 184-191
 *          bias, 192-199 Rx power thresholds (high alarm, low alarm, high
 *          warning, low warning)
 *   11h    (bank b: lanes 8b+1 to 8b+8, bit i = lane i+1) 135 Tx fault,
 *          136 Tx LOS, 139-142 Tx power, 143-146 bias flags, 147 Rx LOS,
 *          149-152 Rx power flags (high alarm, low alarm, high warning, low
 *          warning); 154-169 Tx power, 170-185 bias, 186-201 Rx power
 *
 * Units: temperature 1/256 C signed, Vcc 100 uV, bias 2 uA (times the
 * multiplier), power 0.1 uW.
 */
#include <errno.h>
#include <string.h>

#include "model/module.h"
#include "util/str.h"

#define LANES_PER_BANK 8

#define U(p, off) ((p)[(off) - 128])	/* a byte of an upper page, by its address */

static void media(struct fab_module *m, const uint8_t *lower, const uint8_t *p0)
{
	static const char *const types[] = {
		"", "optical MMF", "optical SMF", "passive copper", "active cable", "BASE-T",
	};
	static const char *const mmf[] = {
		[0x01] = "10GBASE-SW", [0x02] = "10GBASE-SR", [0x03] = "25GBASE-SR",
		[0x04] = "40GBASE-SR4", [0x05] = "40GE SWDM4", [0x06] = "40GE BiDi",
		[0x07] = "50GBASE-SR", [0x08] = "100GBASE-SR10", [0x09] = "100GBASE-SR4",
		[0x0a] = "100GE SWDM4", [0x0b] = "100GE BiDi", [0x0c] = "100GBASE-SR2",
		[0x0d] = "100G-SR", [0x0e] = "200GBASE-SR4", [0x0f] = "400GBASE-SR16",
		[0x10] = "400GBASE-SR8", [0x11] = "400G-SR4", [0x12] = "800G-SR8",
		[0x1a] = "400GBASE-SR4.2",
	};
	uint8_t t = lower[85], mi = lower[87];
	unsigned int mult[4] = { 1, 10, 100, 1000 };	/* tenths of a metre */
	uint8_t len = U(p0, 202);

	if (t < sizeof(types) / sizeof(types[0]))
		str_fmt(m->media, sizeof(m->media), "%s", types[t]);
	if (t == 1 && mi < sizeof(mmf) / sizeof(mmf[0]) && mmf[mi])
		str_fmt(m->compliance, sizeof(m->compliance), "%s", mmf[mi]);
	else if (t && mi)
		str_fmt(m->compliance, sizeof(m->compliance), "media interface 0x%02x", mi);
	if (len)
		m->length.cable_m = (len & 0x3f) * mult[len >> 6] / 10.0;
}

static void identity(struct fab_module *m, const uint8_t *lower, const uint8_t *p0)
{
	unsigned int sum = 0;

	str_fmt(m->spec_rev, sizeof(m->spec_rev), "CMIS %u.%u", lower[1] >> 4, lower[1] & 0x0f);
	module_ascii(m->vendor, &U(p0, 129), 16);
	memcpy(m->oui, &U(p0, 145), 3);
	module_ascii(m->pn, &U(p0, 148), 16);
	module_ascii(m->rev, &U(p0, 164), 2);
	module_ascii(m->sn, &U(p0, 166), 16);
	module_ascii(m->date, &U(p0, 182), 8);
	str_fmt(m->connector, sizeof(m->connector), "%s", sff8024_connector_name(U(p0, 203)));
	media(m, lower, p0);
	for (unsigned int i = 128; i <= 221; i++)
		sum += U(p0, i);
	if ((uint8_t)sum != U(p0, 222))
		module_note(m, "page 00h: checksum mismatch (bytes 128-221)");
}

static void state(struct fab_module *m, const uint8_t *lower)
{
	static const char *const names[8] = {
		"", "ModuleLowPwr", "ModulePwrUp", "ModuleReady", "ModulePwrDn", "ModuleFault",
		"", "",
	};

	str_fmt(m->state, sizeof(m->state), "%s", names[(lower[3] >> 1) & 0x07]);
}

static void page01(struct fab_module *m, const uint8_t *p1)
{
	static const unsigned int km_mult[4] = { 100, 1000, 0, 0 };	/* metres a step */
	uint8_t smf = U(p1, 132);

	m->length.smf_m = (int)((smf & 0x3f) * km_mult[smf >> 6]);
	m->length.om5_m = U(p1, 133) * 2;
	m->length.om4_m = U(p1, 134) * 2;
	m->length.om3_m = U(p1, 135) * 2;
	m->length.om2_m = U(p1, 136);
	if (m->media[0] == 'o')	/* optical: the nominal wavelength means something */
		m->wavelength_nm = module_be16(&U(p1, 138)) * 0.05;
	m->rx_power_avg = U(p1, 151) & 0x10;
}

/* The four flag bytes at @off (high alarm, low alarm, high warning, low warning), bit @bit. */
static uint8_t lane_flags(const uint8_t *p11, unsigned int off, unsigned int bit)
{
	uint8_t f = 0;

	for (unsigned int lv = 0; lv < MODULE_LEVELS; lv++)
		if (U(p11, off + lv) & (1u << bit))
			f |= MODULE_FLAG(lv);
	return f;
}

static void bank(struct fab_module *m, const uint8_t *p1, const uint8_t *p11, unsigned int b)
{
	static const unsigned int mult[4] = { 1, 2, 4, 1 };
	uint8_t mon = U(p1, 160), fl_tx = U(p1, 157), fl_rx = U(p1, 158);
	double bias_unit = mult[(mon >> 3) & 0x03] / 500.0;

	for (unsigned int i = 0; i < LANES_PER_BANK; i++) {
		unsigned int n = b * LANES_PER_BANK + i;
		struct module_lane *l = &m->lane[n];

		if (n >= MODULE_LANES_MAX)
			return;
		if (mon & 0x01)
			l->bias_ma = module_val_of(module_be16(&U(p11, 170 + 2 * i)) * bias_unit);
		if (mon & 0x02)
			l->tx_mw = module_val_of(module_be16(&U(p11, 154 + 2 * i)) / 10000.0);
		if (mon & 0x04)
			l->rx_mw = module_val_of(module_be16(&U(p11, 186 + 2 * i)) / 10000.0);
		l->flags[MODULE_TX_POWER] = lane_flags(p11, 139, i);
		l->flags[MODULE_BIAS] = lane_flags(p11, 143, i);
		l->flags[MODULE_RX_POWER] = lane_flags(p11, 149, i);
		l->tx_fault_ok = fl_tx & 0x01;
		l->tx_fault = l->tx_fault_ok && (U(p11, 135) & (1u << i));
		l->tx_los_ok = fl_tx & 0x02;
		l->tx_los = l->tx_los_ok && (U(p11, 136) & (1u << i));
		l->rx_los_ok = fl_rx & 0x02;
		l->rx_los = l->rx_los_ok && (U(p11, 147) & (1u << i));
	}
}

static void thresholds(struct fab_module *m, const uint8_t *p1, const uint8_t *p2)
{
	static const unsigned int off[MODULE_QTYS] = { 128, 136, 184, 176, 192 };
	static const unsigned int mult[4] = { 1, 2, 4, 1 };
	double div[MODULE_QTYS] = { 256.0, 10000.0, 500.0, 10000.0, 10000.0 };

	div[MODULE_BIAS] /= mult[(U(p1, 160) >> 3) & 0x03];
	m->th.ok = !module_bytes_zero(p2, 200 - 128);
	if (!m->th.ok) {
		module_note(m, "page 02h: no alarm or warning thresholds (bytes 128-199 are zero)");
		return;
	}
	for (unsigned int q = 0; q < MODULE_QTYS; q++)
		for (unsigned int lv = 0; lv < MODULE_LEVELS; lv++) {
			const uint8_t *f = &U(p2, off[q] + 2 * lv);

			double raw = q == MODULE_TEMP ? module_be16s(f) : (int)module_be16(f);

			m->th.v[q][lv] = raw / div[q];
		}
}

/* Module monitors (lower page) as page 01h advertises them. */
static void module_monitors(struct fab_module *m, const uint8_t *lower, const uint8_t *p1)
{
	uint8_t adv = U(p1, 159), f = lower[9];

	if (adv & 0x01)
		m->temp_c = module_val_of(module_be16s(lower + 14) / 256.0);
	if (adv & 0x02)
		m->vcc_v = module_val_of(module_be16(lower + 16) / 10000.0);
	m->flags_ok = true;
	for (unsigned int lv = 0; lv < MODULE_LEVELS; lv++) {
		if (f & (1u << lv))
			m->temp_flags |= MODULE_FLAG(lv);
		if (f & (0x10u << lv))
			m->vcc_flags |= MODULE_FLAG(lv);
	}
	m->dom = (adv & 0x03) || (U(p1, 160) & 0x07);
}

static const uint8_t *page(const struct module_eeprom *e, struct fab_module *m, uint8_t bnk,
			   uint8_t pg)
{
	const struct module_page *p = module_eeprom_find(e, MODULE_I2C_A0, bnk, pg, true);

	if (p && !p->err)
		return p->data;
	if (bnk)
		module_note(m, "bank %u page %02xh: not read: %s", bnk, pg, module_page_why(p));
	else
		module_note(m, "page %02xh: not read: %s", pg, module_page_why(p));
	return NULL;
}

/* Media lanes of the first application, or every lane of the banks read. */
static unsigned int lane_count(const uint8_t *lower, unsigned int banks)
{
	unsigned int n = lower[88] & 0x0f, max = banks * LANES_PER_BANK;

	if (max > MODULE_LANES_MAX)
		max = MODULE_LANES_MAX;
	return n && n <= max ? n : max;
}

static void paged(const struct module_eeprom *e, struct fab_module *m, const uint8_t *lower)
{
	const uint8_t *p1 = page(e, m, 0, 0x01), *p2, *p11;
	unsigned int banks = 0;

	if (!p1)
		return;
	page01(m, p1);
	module_monitors(m, lower, p1);
	p2 = page(e, m, 0, 0x02);
	if (p2)
		thresholds(m, p1, p2);
	for (unsigned int b = 0; b < 4; b++) {
		if (!module_eeprom_find(e, MODULE_I2C_A0, (uint8_t)b, 0x11, true) && b)
			break;
		p11 = page(e, m, (uint8_t)b, 0x11);
		if (!p11)
			break;
		bank(m, p1, p11, b);
		banks++;
	}
	if (banks)
		m->n_lanes = lane_count(lower, banks);
}

int cmis_decode(const struct module_eeprom *e, struct fab_module *m)
{
	const uint8_t *lower = module_eeprom_data(e, MODULE_I2C_A0, 0, 0, false);
	const uint8_t *p0;

	if (!lower)
		return -ENODEV;
	m->id = lower[0];
	m->spec = MODULE_SPEC_CMIS;
	m->present = true;
	str_fmt(m->type, sizeof(m->type), "%s", sff8024_id_name(m->id));
	m->flat = lower[2] & 0x80;
	state(m, lower);
	p0 = page(e, m, 0, 0x00);
	if (!p0)
		return 0;
	identity(m, lower, p0);
	if (m->flat) {
		module_note(m, "flat memory: no monitors, thresholds or lane pages");
		return 0;
	}
	paged(e, m, lower);
	return 0;
}
