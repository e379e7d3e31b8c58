// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The module decoders on page images built from the specifications
 * (module_img.h): every field at its edge values, the pages each kind
 * asks for, and what a decoder says when a page is missing.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/module.h"
#include "module_img.h"

static struct img img;
static struct module_eeprom ee;
static struct fab_module mod;

#define assert_near(a, b) assert_true(fabs((double)(a) - (double)(b)) < 1e-6)

static bool has_note(const struct fab_module *m, const char *part)
{
	for (unsigned int i = 0; i < m->n_notes; i++)
		if (strstr(m->notes[i], part))
			return true;
	return false;
}

static void decode(void)
{
	img_fill(&img, &ee);
	assert_int_equal(module_decode(&ee, &mod), 0);
}

/* ---- the walk ---- */

static void test_eeprom_put_find(void **state)
{
	struct module_page_req r = { MODULE_I2C_A0, 0, 3, true };
	uint8_t d[MODULE_PAGE_LEN] = { 7 };

	(void)state;
	module_eeprom_init(&ee);
	assert_int_equal(module_eeprom_put(&ee, &r, d, 0), 0);
	assert_int_equal(module_eeprom_put(&ee, &r, d, 0), -EEXIST);
	assert_int_equal(module_eeprom_data(&ee, MODULE_I2C_A0, 0, 3, true)[0], 7);
	assert_null(module_eeprom_data(&ee, MODULE_I2C_A0, 0, 3, false));
	r.page = 4;
	assert_int_equal(module_eeprom_put(&ee, &r, NULL, -EIO), 0);
	assert_null(module_eeprom_data(&ee, MODULE_I2C_A0, 0, 4, true));
	assert_int_equal(module_eeprom_find(&ee, MODULE_I2C_A0, 0, 4, true)->err, -EIO);
	for (r.page = 5; ee.n < MODULE_PAGES_MAX; r.page++)
		assert_int_equal(module_eeprom_put(&ee, &r, d, 0), 0);
	assert_int_equal(module_eeprom_put(&ee, &r, d, 0), -ENOSPC);
}

static void test_walk_sfp(void **state)
{
	(void)state;
	sfp_build(&img);
	img_fill(&img, &ee);
	assert_int_equal(ee.n, 2);	/* A0h lower, A2h lower */
	assert_int_equal(ee.pages[1].i2c, MODULE_I2C_A2);
	img.a0[92] = 0x20;		/* no diagnostics: A2h is never asked for */
	img_fill(&img, &ee);
	assert_int_equal(ee.n, 1);
}

static void test_walk_qsfp(void **state)
{
	(void)state;
	qsfp_build(&img);
	img_fill(&img, &ee);
	assert_int_equal(ee.n, 3);	/* lower, 00h, 03h */
	assert_int_equal(ee.pages[2].page, 3);
	img.a0[2] = 0x04;		/* Flat_mem: page 00h only */
	img_fill(&img, &ee);
	assert_int_equal(ee.n, 2);
}

static void test_walk_cmis(void **state)
{
	(void)state;
	cmis_build(&img);
	img_fill(&img, &ee);
	assert_int_equal(ee.n, 5);	/* lower, 00h, 01h, 02h, 11h */
	assert_int_equal(ee.pages[4].page, 0x11);
	u(&img, 0, 1)[142] = 0x02;	/* banks 0-3 */
	img_fill(&img, &ee);
	assert_int_equal(ee.n, 8);
	assert_int_equal(ee.pages[7].bank, 3);
	assert_int_equal(ee.pages[7].page, 0x11);
	u(&img, 0, 1)[142] = 0x03;	/* reserved: no lane pages */
	img_fill(&img, &ee);
	assert_int_equal(ee.n, 4);
	img.a0[2] = 0x80;		/* flat */
	img_fill(&img, &ee);
	assert_int_equal(ee.n, 2);
}

static void test_unknown_id(void **state)
{
	(void)state;
	sfp_build(&img);
	img.a0[0] = 0x06;		/* XFP: no decoder */
	img_fill(&img, &ee);
	assert_int_equal(ee.n, 1);
	assert_int_equal(module_decode(&ee, &mod), -EPROTONOSUPPORT);
	assert_false(mod.present);
	assert_true(has_note(&mod, "identifier 0x06 (XFP)"));
	module_eeprom_init(&ee);
	assert_int_equal(module_decode(&ee, &mod), -ENODEV);
}

/* ---- SFF-8472 ---- */

static void test_sfp_identity(void **state)
{
	(void)state;
	sfp_build(&img);
	decode();
	assert_int_equal(mod.spec, MODULE_SPEC_SFF8472);
	assert_string_equal(mod.type, "SFP/SFP+/SFP28");
	assert_string_equal(mod.vendor, "FABRICCTL TEST");
	assert_string_equal(mod.pn, "SFP28-SR-TEST");
	assert_string_equal(mod.rev, "A1");
	assert_string_equal(mod.sn, "SFP0001");
	assert_string_equal(mod.date, "250101");
	assert_string_equal(mod.connector, "LC");
	assert_string_equal(mod.compliance, "100GBASE-SR4 or 25GBASE-SR");
	assert_string_equal(mod.media, "optical MMF");
	assert_string_equal(mod.spec_rev, "SFF-8472 rev 12.3");
	assert_int_equal(mod.length.om3_m, 70);
	assert_int_equal(mod.length.om4_m, 100);
	assert_int_equal(mod.length.om1_m, 30);
	assert_int_equal(mod.length.smf_m, 0);
	assert_near(mod.wavelength_nm, 850);
	assert_int_equal(mod.oui[2], 0x6a);
	assert_int_equal(mod.n_notes, 0);
	/* unprintable bytes are '_', trailing blanks and NULs go */
	img.a0[20] = 0x07;
	memset(img.a0 + 40, 0, 16);
	sfp_sums(&img);
	decode();
	assert_string_equal(mod.vendor, "_ABRICCTL TEST");
	assert_string_equal(mod.pn, "");
	/* a passive cable: copper length in metres, no wavelength */
	img.a0[8] = 0x04;
	img.a0[18] = 3;
	sfp_sums(&img);
	decode();
	assert_string_equal(mod.media, "passive copper");
	assert_near(mod.length.cable_m, 3);
	assert_near(mod.wavelength_nm, 0);
}

static void test_sfp_diagnostics(void **state)
{
	(void)state;
	sfp_build(&img);
	decode();
	assert_true(mod.dom && mod.flags_ok && mod.th.ok && mod.rx_power_avg);
	assert_int_equal(mod.n_lanes, 1);
	assert_near(mod.temp_c.v, 41.5);
	assert_near(mod.vcc_v.v, 3.3);
	assert_near(mod.lane[0].bias_ma.v, 6.5);
	assert_near(mod.lane[0].tx_mw.v, 0.6);
	assert_near(mod.lane[0].rx_mw.v, 0.5);
	assert_near(mod.th.v[MODULE_TEMP][MODULE_LOW_ALARM], -5);
	assert_near(mod.th.v[MODULE_VCC][MODULE_HIGH_WARN], 3.465);
	assert_near(mod.th.v[MODULE_BIAS][MODULE_LOW_WARN], 3);
	assert_near(mod.th.v[MODULE_TX_POWER][MODULE_LOW_ALARM], 0.0794);
	assert_near(mod.th.v[MODULE_RX_POWER][MODULE_HIGH_ALARM], 1.7783);
	/* edges: the extreme codes of each field */
	put16(img.a2, 96, 0x8000);
	put16(img.a2, 98, 0xffff);
	put16(img.a2, 100, 0xffff);
	put16(img.a2, 102, 0);
	put16(img.a2, 104, 0xffff);
	sfp_sums(&img);
	decode();
	assert_near(mod.temp_c.v, -128);
	assert_near(mod.vcc_v.v, 6.5535);
	assert_near(mod.lane[0].bias_ma.v, 131.07);
	assert_near(mod.lane[0].tx_mw.v, 0);
	assert_near(mod.lane[0].rx_mw.v, 6.5535);
	assert_true(isinf(module_mw_to_dbm(mod.lane[0].tx_mw.v)));
	put16(img.a2, 96, 0x7fff);
	sfp_sums(&img);
	decode();
	assert_near(mod.temp_c.v, 32767 / 256.0);
	/* OMA instead of average power */
	img.a0[92] &= (uint8_t)~0x08;
	sfp_sums(&img);
	decode();
	assert_false(mod.rx_power_avg);
}

static void test_sfp_flags(void **state)
{
	static const struct {
		unsigned int byte, bit;
		enum module_qty q;
		enum module_level lv;
	} map[] = {
		{ 112, 7, MODULE_TEMP, MODULE_HIGH_ALARM },
		{ 112, 6, MODULE_TEMP, MODULE_LOW_ALARM },
		{ 112, 5, MODULE_VCC, MODULE_HIGH_ALARM }, { 112, 4, MODULE_VCC, MODULE_LOW_ALARM },
		{ 112, 3, MODULE_BIAS, MODULE_HIGH_ALARM },
		{ 112, 2, MODULE_BIAS, MODULE_LOW_ALARM },
		{ 112, 1, MODULE_TX_POWER, MODULE_HIGH_ALARM },
		{ 112, 0, MODULE_TX_POWER, MODULE_LOW_ALARM },
		{ 113, 7, MODULE_RX_POWER, MODULE_HIGH_ALARM },
		{ 113, 6, MODULE_RX_POWER, MODULE_LOW_ALARM },
		{ 116, 7, MODULE_TEMP, MODULE_HIGH_WARN }, { 116, 4, MODULE_VCC, MODULE_LOW_WARN },
		{ 116, 2, MODULE_BIAS, MODULE_LOW_WARN },
		{ 117, 6, MODULE_RX_POWER, MODULE_LOW_WARN },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		uint8_t got;

		sfp_build(&img);
		img.a2[map[i].byte] = (uint8_t)(1u << map[i].bit);
		sfp_sums(&img);
		decode();
		got = map[i].q == MODULE_TEMP ? mod.temp_flags : map[i].q == MODULE_VCC ?
		      mod.vcc_flags : mod.lane[0].flags[map[i].q];
		assert_int_equal(got, MODULE_FLAG(map[i].lv));
	}
	/* status byte 110: Rx LOS (bit 1), Tx fault (bit 2) */
	sfp_build(&img);
	img.a2[110] = 0x06;
	sfp_sums(&img);
	decode();
	assert_true(mod.lane[0].rx_los && mod.lane[0].tx_fault);
	img.a0[93] = 0x80;		/* soft RX_LOS / TX_FAULT not implemented */
	sfp_sums(&img);
	decode();
	assert_false(mod.lane[0].rx_los_ok || mod.lane[0].rx_los || mod.lane[0].tx_fault);
	img.a0[93] = 0x00;		/* no flags at all */
	sfp_sums(&img);
	decode();
	assert_false(mod.flags_ok);
}

static void put_float(uint8_t *p, float f)
{
	uint32_t v;

	memcpy(&v, &f, 4);
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* External calibration (SFF-8472 9.x): slope 8.8, signed offset; Rx a polynomial. */
static void test_sfp_external_calibration(void **state)
{
	(void)state;
	sfp_build(&img);
	img.a0[92] = 0x58;			/* DDM, external calibration, average */
	put16(img.a2, 96, 1000);		/* raw temperature */
	img.a2[84] = 2; img.a2[85] = 128;	/* T slope 2.5 */
	put16(img.a2, 86, (uint16_t)-500);	/* T offset -500 */
	put16(img.a2, 100, 1000);		/* raw bias */
	img.a2[76] = 1; img.a2[77] = 0;		/* slope 1.0 */
	put16(img.a2, 78, 250);			/* offset +250 */
	put16(img.a2, 104, 100);		/* raw Rx */
	put_float(img.a2 + 56, 0.0f);		/* Rx_PWR(4) */
	put_float(img.a2 + 60, 0.0f);		/* Rx_PWR(3) */
	put_float(img.a2 + 64, 0.5f);		/* Rx_PWR(2) */
	put_float(img.a2 + 68, 2.0f);		/* Rx_PWR(1) */
	put_float(img.a2 + 72, 10.0f);		/* Rx_PWR(0) */
	sfp_sums(&img);
	decode();
	assert_near(mod.temp_c.v, (2.5 * 1000 - 500) / 256.0);
	assert_near(mod.lane[0].bias_ma.v, 1250 / 500.0);
	/* 0.5 * 100^2 + 2 * 100 + 10 = 5210 (0.1 uW) */
	assert_near(mod.lane[0].rx_mw.v, 0.521);
}

static void test_sfp_missing_a2(void **state)
{
	struct module_page_req r = { MODULE_I2C_A0, 0, 0, false };

	(void)state;
	sfp_build(&img);
	module_eeprom_init(&ee);
	module_eeprom_put(&ee, &r, img.a0, 0);
	r.i2c = MODULE_I2C_A2;
	module_eeprom_put(&ee, &r, NULL, -EIO);
	assert_int_equal(module_decode(&ee, &mod), 0);
	assert_false(mod.dom);
	assert_false(mod.temp_c.ok);
	assert_true(has_note(&mod, "A2h: not read: Input/output error"));
	/* a corrupted A0h is said, not silently used */
	img.a0[30] ^= 1;
	img_fill(&img, &ee);
	assert_int_equal(module_decode(&ee, &mod), 0);
	assert_true(has_note(&mod, "CC_BASE"));
	/* thresholds all zero: none */
	sfp_build(&img);
	memset(img.a2, 0, 40);
	sfp_sums(&img);
	decode();
	assert_false(mod.th.ok);
	assert_true(has_note(&mod, "no alarm or warning thresholds"));
}

/* ---- SFF-8636 ---- */

static void test_qsfp(void **state)
{
	(void)state;
	qsfp_build(&img);
	decode();
	assert_int_equal(mod.spec, MODULE_SPEC_SFF8636);
	assert_string_equal(mod.type, "QSFP28");
	assert_string_equal(mod.spec_rev, "SFF-8636 rev 2.8-2.10");
	assert_string_equal(mod.vendor, "FABRICCTL TEST");
	assert_string_equal(mod.pn, "QSFP28-SR4-TEST");
	assert_string_equal(mod.rev, "01");
	assert_string_equal(mod.sn, "QSFP0001");
	assert_string_equal(mod.connector, "MPO 1x12");
	assert_string_equal(mod.compliance, "100GBASE-SR4 or 25GBASE-SR");
	assert_string_equal(mod.media, "optical MMF");
	assert_int_equal(mod.length.om3_m, 70);
	assert_int_equal(mod.length.om4_m, 100);
	assert_near(mod.wavelength_nm, 850);
	assert_int_equal(mod.n_notes, 0);
	assert_int_equal(mod.n_lanes, 4);
	assert_near(mod.temp_c.v, 38.25);
	assert_near(mod.vcc_v.v, 3.29);
	for (unsigned int i = 0; i < 4; i++) {
		assert_near(mod.lane[i].rx_mw.v, 0.8 - 0.05 * i);
		assert_near(mod.lane[i].bias_ma.v, 7.0 + 0.25 * i);
		assert_near(mod.lane[i].tx_mw.v, 0.9);
	}
	assert_true(mod.th.ok);
	assert_near(mod.th.v[MODULE_RX_POWER][MODULE_LOW_ALARM], 0.0437);
	assert_near(mod.th.v[MODULE_BIAS][MODULE_HIGH_ALARM], 12);
	assert_near(mod.th.v[MODULE_TX_POWER][MODULE_LOW_WARN], 0.2512);
	assert_near(mod.th.v[MODULE_VCC][MODULE_LOW_ALARM], 2.97);
}

static void test_qsfp_flags(void **state)
{
	(void)state;
	qsfp_build(&img);
	img.a0[6] = 0x80;	/* temperature high alarm */
	img.a0[7] = 0x10;	/* Vcc low warning */
	img.a0[9] = 0x01;	/* lane 2 Rx low warning */
	img.a0[10] = 0x40;	/* lane 3 Rx low alarm */
	img.a0[12] = 0x08;	/* lane 4 bias high alarm */
	img.a0[13] = 0x20;	/* lane 1 Tx high warning */
	img.a0[3] = 0x24;	/* Rx LOS lane 3, Tx LOS lane 2 */
	img.a0[4] = 0x01;	/* Tx fault lane 1 */
	decode();
	assert_int_equal(mod.temp_flags, MODULE_FLAG(MODULE_HIGH_ALARM));
	assert_int_equal(mod.vcc_flags, MODULE_FLAG(MODULE_LOW_WARN));
	assert_int_equal(mod.lane[1].flags[MODULE_RX_POWER], MODULE_FLAG(MODULE_LOW_WARN));
	assert_int_equal(mod.lane[2].flags[MODULE_RX_POWER], MODULE_FLAG(MODULE_LOW_ALARM));
	assert_int_equal(mod.lane[3].flags[MODULE_BIAS], MODULE_FLAG(MODULE_HIGH_ALARM));
	assert_int_equal(mod.lane[0].flags[MODULE_TX_POWER], MODULE_FLAG(MODULE_HIGH_WARN));
	assert_int_equal(mod.lane[0].flags[MODULE_RX_POWER], 0);
	assert_true(mod.lane[2].rx_los && !mod.lane[1].rx_los);
	assert_true(mod.lane[1].tx_los && !mod.lane[2].tx_los);
	assert_true(mod.lane[0].tx_fault && !mod.lane[1].tx_fault);
}

static void test_qsfp_edges(void **state)
{
	(void)state;
	/* monitoring not advertised: no temperature, no Vcc, no Tx power */
	qsfp_build(&img);
	u(&img, 0, 0)[220] = 0x00;
	qsfp_sums(&img);
	decode();
	assert_false(mod.temp_c.ok || mod.vcc_v.ok || mod.lane[0].tx_mw.ok);
	assert_true(mod.lane[0].rx_mw.ok);
	/* a passive copper cable: no optical monitors, a cable length */
	qsfp_build(&img);
	u(&img, 0, 0)[147] = 0xa0;
	u(&img, 0, 0)[146] = 2;
	qsfp_sums(&img);
	decode();
	assert_string_equal(mod.media, "passive copper");
	assert_near(mod.length.cable_m, 2);
	assert_false(mod.lane[0].rx_mw.ok || mod.lane[0].bias_ma.ok);
	assert_true(has_note(&mod, "copper cable"));
	/* flat memory: no page 03h */
	qsfp_build(&img);
	img.a0[2] = 0x04;
	decode();
	assert_false(mod.th.ok);
	assert_true(mod.flat);
	assert_true(has_note(&mod, "flat memory"));
	/* page 03h failed */
	qsfp_build(&img);
	img_fill(&img, &ee);
	ee.pages[2].err = -ETIMEDOUT;
	assert_int_equal(module_decode(&ee, &mod), 0);
	assert_false(mod.th.ok);
	assert_true(has_note(&mod, "page 03h: not read: Connection timed out"));
	/* page 00h failed: what the lower page holds is still decoded, identity is not */
	qsfp_build(&img);
	img_fill(&img, &ee);
	ee.pages[1].err = -EIO;
	assert_int_equal(module_decode(&ee, &mod), 0);
	assert_string_equal(mod.vendor, "");
	assert_true(has_note(&mod, "page 00h: not read"));
	/* temperature edge: -40 C */
	qsfp_build(&img);
	put16(img.a0, 22, DEGC(-40));
	decode();
	assert_near(mod.temp_c.v, -40);
}

/* ---- CMIS ---- */

static void test_cmis(void **state)
{
	(void)state;
	cmis_build(&img);
	decode();
	assert_int_equal(mod.spec, MODULE_SPEC_CMIS);
	assert_string_equal(mod.type, "QSFP-DD");
	assert_string_equal(mod.spec_rev, "CMIS 5.0");
	assert_string_equal(mod.state, "ModuleReady");
	assert_string_equal(mod.vendor, "FABRICCTL TEST");
	assert_string_equal(mod.pn, "QSFPDD-SR8-TEST");
	assert_string_equal(mod.sn, "QDD0001");
	assert_string_equal(mod.rev, "02");
	assert_string_equal(mod.connector, "MPO 2x16");
	assert_string_equal(mod.media, "optical MMF");
	assert_string_equal(mod.compliance, "400GBASE-SR8");
	assert_int_equal(mod.length.om4_m, 100);
	assert_int_equal(mod.length.om3_m, 70);
	assert_near(mod.wavelength_nm, 850);
	assert_int_equal(mod.n_notes, 0);
	assert_int_equal(mod.n_lanes, 8);
	assert_near(mod.temp_c.v, 45.5);
	assert_near(mod.vcc_v.v, 3.31);
	for (unsigned int i = 0; i < 8; i++) {
		assert_near(mod.lane[i].tx_mw.v, 1.0);
		assert_near(mod.lane[i].bias_ma.v, 8.0 + 0.1 * i);
		assert_near(mod.lane[i].rx_mw.v, 0.9 - 0.02 * i);
	}
	assert_near(mod.th.v[MODULE_TX_POWER][MODULE_HIGH_ALARM], 3.1623);
	assert_near(mod.th.v[MODULE_BIAS][MODULE_LOW_WARN], 4);
	assert_near(mod.th.v[MODULE_RX_POWER][MODULE_LOW_ALARM], 0.0794);
	assert_near(mod.th.v[MODULE_TEMP][MODULE_HIGH_WARN], 70);
}

static void test_cmis_flags(void **state)
{
	uint8_t *p11;

	(void)state;
	cmis_build(&img);
	p11 = u(&img, 0, 0x11);
	img.a0[9] = 0x01 | 0x80;	/* temperature high alarm, Vcc low warning */
	p11[150] = 0x04;		/* lane 3 Rx low alarm */
	p11[152] = 0x01;		/* lane 1 Rx low warning */
	p11[143] = 0x80;		/* lane 8 bias high alarm */
	p11[141] = 0x02;		/* lane 2 Tx high warning */
	p11[147] = 0x10;		/* lane 5 Rx LOS */
	p11[135] = 0x40;		/* lane 7 Tx fault */
	decode();
	assert_int_equal(mod.temp_flags, MODULE_FLAG(MODULE_HIGH_ALARM));
	assert_int_equal(mod.vcc_flags, MODULE_FLAG(MODULE_LOW_WARN));
	assert_int_equal(mod.lane[2].flags[MODULE_RX_POWER], MODULE_FLAG(MODULE_LOW_ALARM));
	assert_int_equal(mod.lane[0].flags[MODULE_RX_POWER], MODULE_FLAG(MODULE_LOW_WARN));
	assert_int_equal(mod.lane[7].flags[MODULE_BIAS], MODULE_FLAG(MODULE_HIGH_ALARM));
	assert_int_equal(mod.lane[1].flags[MODULE_TX_POWER], MODULE_FLAG(MODULE_HIGH_WARN));
	assert_int_equal(mod.lane[1].flags[MODULE_RX_POWER], 0);
	assert_true(mod.lane[4].rx_los && !mod.lane[3].rx_los);
	assert_true(mod.lane[6].tx_fault && !mod.lane[5].tx_fault);
	/* Rx LOS not advertised: not decoded */
	u(&img, 0, 1)[158] = 0;
	decode();
	assert_false(mod.lane[4].rx_los_ok || mod.lane[4].rx_los);
}

static void test_cmis_edges(void **state)
{
	(void)state;
	/* bias multiplier x4 scales values and thresholds */
	cmis_build(&img);
	u(&img, 0, 1)[160] = 0x07 | 0x10;
	decode();
	assert_near(mod.lane[0].bias_ma.v, 32.0);
	assert_near(mod.th.v[MODULE_BIAS][MODULE_HIGH_ALARM], 60);
	/* monitors not advertised: none */
	cmis_build(&img);
	u(&img, 0, 1)[159] = 0;
	u(&img, 0, 1)[160] = 0;
	decode();
	assert_false(mod.temp_c.ok || mod.lane[0].rx_mw.ok || mod.dom);
	/* four media lanes of eight */
	cmis_build(&img);
	img.a0[88] = 0x44;
	decode();
	assert_int_equal(mod.n_lanes, 4);
	/* two banks: sixteen lanes */
	cmis_build(&img);
	img.a0[88] = 0x00;
	u(&img, 0, 1)[142] = 0x01;
	put16(u(&img, 1, 0x11), 186, MW(0.25));
	decode();
	assert_int_equal(mod.n_lanes, 16);
	assert_near(mod.lane[8].rx_mw.v, 0.25);
	/* flat memory (a passive DAC): identity only */
	cmis_build(&img);
	img.a0[2] = 0x80;
	img.a0[85] = 0x03;
	u(&img, 0, 0)[202] = 0x40 | 2;	/* 2 m */
	cmis_sums(&img);
	decode();
	assert_true(mod.flat);
	assert_string_equal(mod.media, "passive copper");
	assert_near(mod.length.cable_m, 2);
	assert_false(mod.temp_c.ok || mod.th.ok || mod.n_lanes);
	/* cable length multipliers: 0.1 m and 100 m */
	u(&img, 0, 0)[202] = 0x00 | 25;
	cmis_sums(&img);
	decode();
	assert_near(mod.length.cable_m, 2.5);
	u(&img, 0, 0)[202] = 0xc0 | 3;
	cmis_sums(&img);
	decode();
	assert_near(mod.length.cable_m, 300);
	/* page 02h failed: no thresholds, said */
	cmis_build(&img);
	img_fill(&img, &ee);
	ee.pages[3].err = -EIO;
	assert_int_equal(module_decode(&ee, &mod), 0);
	assert_false(mod.th.ok);
	assert_true(has_note(&mod, "page 02h: not read"));
	assert_int_equal(mod.n_lanes, 8);
	/* state ModuleFault, checksum */
	cmis_build(&img);
	img.a0[3] = 0x05 << 1;
	u(&img, 0, 0)[150] ^= 0x20;
	decode();
	assert_string_equal(mod.state, "ModuleFault");
	assert_true(has_note(&mod, "checksum"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eeprom_put_find),
		cmocka_unit_test(test_walk_sfp),
		cmocka_unit_test(test_walk_qsfp),
		cmocka_unit_test(test_walk_cmis),
		cmocka_unit_test(test_unknown_id),
		cmocka_unit_test(test_sfp_identity),
		cmocka_unit_test(test_sfp_diagnostics),
		cmocka_unit_test(test_sfp_flags),
		cmocka_unit_test(test_sfp_external_calibration),
		cmocka_unit_test(test_sfp_missing_a2),
		cmocka_unit_test(test_qsfp),
		cmocka_unit_test(test_qsfp_flags),
		cmocka_unit_test(test_qsfp_edges),
		cmocka_unit_test(test_cmis),
		cmocka_unit_test(test_cmis_flags),
		cmocka_unit_test(test_cmis_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
