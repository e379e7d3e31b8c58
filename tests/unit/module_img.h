/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Module page images built from the specifications (large: keep them static), for the decoder,
 * verdict and renderer tests (test_module.c, test_optics.c,
 * test_render_optics.c): an SFP28 (SFF-8472), a QSFP28 (SFF-8636) and a
 * QSFP-DD (CMIS 5.0), each with diagnostics, thresholds and flags, and
 * helpers to change one field.  Offsets are written as the specifications
 * number them (upper-page fields 128-255).  Static: included by each test.
 */
#ifndef FAB_TESTS_MODULE_IMG_H
#define FAB_TESTS_MODULE_IMG_H

#include <stdint.h>
#include <string.h>

#include "model/module.h"

struct img {
	uint8_t a0[256];	/* SFF-8472 A0h / lower page + upper page 00h */
	uint8_t a2[256];	/* SFF-8472 A2h */
	uint8_t up[4][256][256];	/* upper pages by bank and page, bytes 128-255 used */
};

static inline void put16(uint8_t *p, unsigned int off, unsigned int v)
{
	p[off] = (uint8_t)(v >> 8);
	p[off + 1] = (uint8_t)v;
}

static inline void put_ascii(uint8_t *p, unsigned int off, unsigned int len, const char *s)
{
	memset(p + off, ' ', len);
	memcpy(p + off, s, strlen(s) < len ? strlen(s) : len);
}

static inline uint8_t sum8(const uint8_t *p, unsigned int from, unsigned int to)
{
	unsigned int s = 0;

	for (unsigned int i = from; i <= to; i++)
		s += p[i];
	return (uint8_t)s;
}

/* mW -> the 0.1 uW field; mA -> 2 uA; C -> 1/256; V -> 100 uV */
#define MW(x) ((unsigned int)((x) * 10000.0 + 0.5))
#define MA(x) ((unsigned int)((x) * 500.0 + 0.5))
#define DEGC(x) ((unsigned int)(uint16_t)(int16_t)((x) * 256.0))
#define VOLT(x) ((unsigned int)((x) * 10000.0 + 0.5))

/* Thresholds high alarm, low alarm, high warning, low warning at @off. */
static inline void put_th(uint8_t *p, unsigned int off, unsigned int ha, unsigned int la,
			  unsigned int hw, unsigned int lw)
{
	put16(p, off, ha);
	put16(p, off + 2, la);
	put16(p, off + 4, hw);
	put16(p, off + 6, lw);
}

/* ---- SFF-8472 ---- */

static inline void sfp_sums(struct img *m)
{
	m->a0[63] = sum8(m->a0, 0, 62);
	m->a0[95] = sum8(m->a0, 64, 94);
	m->a2[95] = sum8(m->a2, 0, 94);
}

static inline void sfp_build(struct img *m)
{
	uint8_t *a0 = m->a0, *a2 = m->a2;

	memset(m, 0, sizeof(*m));
	a0[0] = 0x03;			/* SFP */
	a0[1] = 0x04;
	a0[2] = 0x07;			/* LC */
	a0[3] = 0x10;			/* 10GBASE-SR */
	a0[12] = 0xff;
	a0[16] = 8;			/* OM2 80 m */
	a0[17] = 3;			/* OM1 30 m */
	a0[18] = 10;			/* OM4 100 m */
	a0[19] = 7;			/* OM3 70 m */
	put_ascii(a0, 20, 16, "FABRICCTL TEST");
	a0[36] = 0x02;			/* 25GBASE-SR */
	a0[37] = 0x00; a0[38] = 0x17; a0[39] = 0x6a;
	put_ascii(a0, 40, 16, "SFP28-SR-TEST");
	put_ascii(a0, 56, 4, "A1");
	put16(a0, 60, 850);
	put_ascii(a0, 68, 16, "SFP0001");
	put_ascii(a0, 84, 8, "250101");
	a0[92] = 0x68;			/* DDM, internally calibrated, average Rx power */
	a0[93] = 0xf0;			/* flags, soft TX_DISABLE, TX_FAULT, RX_LOS */
	a0[94] = 0x08;			/* SFF-8472 rev 12.3 */
	put_th(a2, 0, DEGC(75), DEGC(-5), DEGC(70), DEGC(0));
	put_th(a2, 8, VOLT(3.63), VOLT(2.97), VOLT(3.465), VOLT(3.135));
	put_th(a2, 16, MA(12), MA(2), MA(10), MA(3));
	put_th(a2, 24, MW(1.7783), MW(0.0794), MW(1.4125), MW(0.1259));
	put_th(a2, 32, MW(1.7783), MW(0.0316), MW(1.4125), MW(0.0501));
	put16(a2, 96, DEGC(41.5));
	put16(a2, 98, VOLT(3.3));
	put16(a2, 100, MA(6.5));
	put16(a2, 102, MW(0.6));
	put16(a2, 104, MW(0.5));
	sfp_sums(m);
}

/* ---- SFF-8636 ---- */

static inline uint8_t *u(struct img *m, unsigned int bank, unsigned int page)
{
	return m->up[bank][page];	/* indexed by the specification's offset */
}

static inline void qsfp_sums(struct img *m)
{
	uint8_t *p0 = u(m, 0, 0);

	p0[191] = sum8(p0, 128, 190);
	p0[223] = sum8(p0, 192, 222);
}

static inline void qsfp_build(struct img *m)
{
	uint8_t *lo = m->a0, *p0, *p3;

	memset(m, 0, sizeof(*m));
	p0 = u(m, 0, 0);
	p3 = u(m, 0, 3);
	lo[0] = 0x11;			/* QSFP28 */
	lo[1] = 0x08;			/* SFF-8636 rev 2.8-2.10 */
	lo[2] = 0x00;			/* paged */
	put16(lo, 22, DEGC(38.25));
	put16(lo, 26, VOLT(3.29));
	for (unsigned int i = 0; i < 4; i++) {
		put16(lo, 34 + 2 * i, MW(0.8 - 0.05 * i));	/* Rx */
		put16(lo, 42 + 2 * i, MA(7.0 + 0.25 * i));	/* bias */
		put16(lo, 50 + 2 * i, MW(0.9));			/* Tx */
	}
	p0[128] = 0x11;
	p0[130] = 0x0c;			/* MPO 1x12 */
	p0[131] = 0x80;			/* extended compliance in 192 */
	p0[143] = 35;			/* OM3 70 m */
	p0[146] = 50;			/* OM4 100 m */
	p0[147] = 0x00;			/* 850 nm VCSEL */
	put_ascii(p0, 148, 16, "FABRICCTL TEST");
	p0[165] = 0x00; p0[166] = 0x17; p0[167] = 0x6a;
	put_ascii(p0, 168, 16, "QSFP28-SR4-TEST");
	put_ascii(p0, 184, 2, "01");
	put16(p0, 186, 850 * 20);
	p0[192] = 0x02;			/* 100GBASE-SR4 */
	p0[195] = 0x0a;			/* Tx fault and Tx LOS reported */
	put_ascii(p0, 196, 16, "QSFP0001");
	put_ascii(p0, 212, 8, "250102");
	p0[220] = 0x3c;			/* temperature, Vcc, average Rx, Tx power */
	qsfp_sums(m);
	put_th(p3, 128, DEGC(75), DEGC(-5), DEGC(70), DEGC(0));
	put_th(p3, 144, VOLT(3.63), VOLT(2.97), VOLT(3.465), VOLT(3.135));
	put_th(p3, 176, MW(2.1878), MW(0.0437), MW(1.7378), MW(0.0871));	/* Rx */
	put_th(p3, 184, MA(12), MA(3), MA(11), MA(4));
	put_th(p3, 192, MW(2.1878), MW(0.1585), MW(1.7378), MW(0.2512));	/* Tx */
}

/* QSFP lane @lane's (1-4) Rx power in mW. */
static inline void qsfp_rx_mw(struct img *m, unsigned int lane, double mw)
{
	put16(m->a0, 34 + 2 * (lane - 1), MW(mw));
}

/* A clean QSFP28 with every lane's Rx at 0.8 mW. */
static inline void qsfp_even_build(struct img *m)
{
	qsfp_build(m);
	for (unsigned int i = 1; i <= 4; i++)
		qsfp_rx_mw(m, i, 0.8);
}

/* ---- CMIS ---- */

static inline void cmis_sums(struct img *m)
{
	uint8_t *p0 = u(m, 0, 0);

	p0[222] = sum8(p0, 128, 221);
}

static inline void cmis_build(struct img *m)
{
	uint8_t *lo = m->a0, *p0, *p1, *p2, *p11;

	memset(m, 0, sizeof(*m));
	p0 = u(m, 0, 0);
	p1 = u(m, 0, 1);
	p2 = u(m, 0, 2);
	p11 = u(m, 0, 0x11);
	lo[0] = 0x18;			/* QSFP-DD */
	lo[1] = 0x50;			/* CMIS 5.0 */
	lo[2] = 0x00;			/* paged */
	lo[3] = 0x03 << 1;		/* ModuleReady */
	put16(lo, 14, DEGC(45.5));
	put16(lo, 16, VOLT(3.31));
	lo[85] = 0x01;			/* optical MMF */
	lo[86] = 0x11;			/* 400GAUI-8 C2M */
	lo[87] = 0x10;			/* 400GBASE-SR8 */
	lo[88] = 0x88;			/* 8 host, 8 media lanes */
	lo[89] = 0x01;
	p0[128] = 0x18;
	put_ascii(p0, 129, 16, "FABRICCTL TEST");
	p0[145] = 0x00; p0[146] = 0x17; p0[147] = 0x6a;
	put_ascii(p0, 148, 16, "QSFPDD-SR8-TEST");
	put_ascii(p0, 164, 2, "02");
	put_ascii(p0, 166, 16, "QDD0001");
	put_ascii(p0, 182, 8, "250103");
	p0[203] = 0x0d;			/* MPO 2x16 */
	p0[212] = 0x00;			/* 850 nm VCSEL */
	cmis_sums(m);
	p1[133] = 0;
	p1[134] = 50;			/* OM4 100 m */
	p1[135] = 35;			/* OM3 70 m */
	put16(p1, 138, 850 * 20);	/* 0.05 nm units */
	p1[142] = 0x00;			/* bank 0 only */
	p1[151] = 0x10;			/* average Rx power */
	p1[157] = 0x03;			/* Tx fault and Tx LOS flags */
	p1[158] = 0x02;			/* Rx LOS flag */
	p1[159] = 0x03;			/* temperature and Vcc monitors */
	p1[160] = 0x07;			/* bias, Tx and Rx power monitors, bias x1 */
	put_th(p2, 128, DEGC(75), DEGC(-5), DEGC(70), DEGC(0));
	put_th(p2, 136, VOLT(3.63), VOLT(2.97), VOLT(3.465), VOLT(3.135));
	put_th(p2, 176, MW(3.1623), MW(0.1585), MW(2.5119), MW(0.2512));	/* Tx */
	put_th(p2, 184, MA(15), MA(3), MA(13), MA(4));
	put_th(p2, 192, MW(3.1623), MW(0.0794), MW(2.5119), MW(0.1259));	/* Rx */
	for (unsigned int i = 0; i < 8; i++) {
		put16(p11, 154 + 2 * i, MW(1.0));
		put16(p11, 170 + 2 * i, MA(8.0 + 0.1 * i));
		put16(p11, 186 + 2 * i, MW(0.9 - 0.02 * i));
	}
}

/* Every page the decoders of @m's kind ask for, in module_eeprom_next()'s order. */
static inline void img_fill(const struct img *m, struct module_eeprom *e)
{
	struct module_page_req req;

	module_eeprom_init(e);
	while (module_eeprom_next(e, &req) == 1) {
		const uint8_t *d;

		if (req.i2c == MODULE_I2C_A2)
			d = m->a2 + (req.upper ? 128 : 0);
		else if (!req.upper)
			d = m->a0;
		else if (m->a0[0] == 0x03)
			d = m->a0 + 128;
		else
			d = m->up[req.bank][req.page] + 128;
		module_eeprom_put(e, &req, d, 0);
	}
}

#endif
