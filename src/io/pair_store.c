// SPDX-License-Identifier: GPL-2.0-or-later
/* The sweep's per-pair results in spools; see pair_store.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/pair_store.h"
#include "util/spool.h"

/* One pair on the spool: fixed size, every figure as it was measured. */
struct pair_rec {
	uint32_t a, b, round, klass;
	uint8_t status, expect_src, flags, pad;
	uint16_t reason_len, pad2;
	uint64_t reason_off;
	uint64_t lat_n;
	double lat[6];			/* min, p50, p99, p999, max, mean */
	struct {
		double avg, min, secs;
		uint64_t bytes;
		uint32_t intervals, sport;	/* sport: the direction's UDP source port */
	} bw[2];			/* ab, ba */
	double pct_rated, expected_mbps, test_s;
	double base_ab_mbps, base_ba_mbps, change_pct;
};

_Static_assert(sizeof(struct pair_rec) == 216, "the record size docs and pair_store.h give");

enum {
	F_LAT = 1 << 0,
	F_AB = 1 << 1,
	F_BA = 1 << 2,
	F_RETESTED = 1 << 3,
	F_FIRST_SLOW = 1 << 4,
	F_SLOW_LAT = 1 << 5,
	F_BASE = 1 << 6,
	F_NEAR_REF = 1 << 7,
};

struct pair_store {
	struct spool *recs, *text;
	size_t n;
	/* The reason appended last: pairs of one dead worker share theirs. */
	uint64_t last_off;
	uint16_t last_len;
	char last[sizeof(((struct sweep_pair *)0)->reason)];
};

/* Environment variable @name as a number of bytes; @dflt when unset, not a number or over @max. */
static size_t env_bytes(const char *name, size_t dflt, unsigned long long max)
{
	const char *e = getenv(name);
	char *end;
	unsigned long long v;

	if (!e || !*e)
		return dflt;
	v = strtoull(e, &end, 10);
	return *end || v > max ? dflt : (size_t)v;
}

static size_t budget(void)
{
	return env_bytes("FABRICCTL_SPOOL_MEM", PAIR_STORE_MEM, SIZE_MAX);
}

int pair_store_new(struct pair_store **out, size_t expected, struct fab_err *err)
{
	struct pair_store *ps = calloc(1, sizeof(*ps));
	size_t fallback = budget(), mem = fallback;
	/* 0: the spools' own (SPOOL_WINDOW) */
	size_t window = env_bytes("FABRICCTL_SPOOL_WINDOW", 0, 1ull << 30);

	if ((uint64_t)expected * sizeof(struct pair_rec) > mem)
		mem = 0;
	if (!ps)
		return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	if (spool_new(&ps->recs, mem, err) < 0 || spool_new(&ps->text, mem, err) < 0) {
		pair_store_free(ps);
		return -ENOMEM;
	}
	if (window) {
		spool_set_window(ps->recs, window);
		spool_set_window(ps->text, window);
	}
	/* A full $TMPDIR: the budget again in memory before the store refuses. */
	spool_set_fallback(ps->recs, fallback);
	spool_set_fallback(ps->text, fallback);
	*out = ps;
	return 0;
}

int pair_store_check(size_t n_pairs, struct fab_err *err)
{
	return spool_check((uint64_t)n_pairs * sizeof(struct pair_rec), budget(), err);
}

void pair_store_free(struct pair_store *ps)
{
	if (!ps)
		return;
	spool_free(ps->recs);
	spool_free(ps->text);
	free(ps);
}

size_t pair_store_count(const struct pair_store *ps)
{
	return ps->n;
}

bool pair_store_on_file(const struct pair_store *ps)
{
	return spool_on_file(ps->recs);
}

/* The reason text on the text spool (the last one again when it is the same). */
static int reason_pack(struct pair_store *ps, const char *reason, struct pair_rec *r,
		       struct fab_err *err)
{
	size_t len = strnlen(reason, sizeof(ps->last) - 1);
	int rc;

	r->reason_len = (uint16_t)len;
	r->reason_off = 0;
	if (!len)
		return 0;
	if (len == ps->last_len && memcmp(reason, ps->last, len) == 0) {
		r->reason_off = ps->last_off;
		return 0;
	}
	rc = spool_append(ps->text, reason, len, &r->reason_off, err);
	if (rc < 0)
		return rc;
	memcpy(ps->last, reason, len);
	ps->last_len = (uint16_t)len;
	ps->last_off = r->reason_off;
	return 0;
}

/*
 * The record against struct sweep_pair, written once for both directions:
 * F(record field, pair field) for a value, G(flag, pair field) for a bool;
 * status and expect_src (enums in a byte) and the reason are moved apart.
 */
#define REC_BW(F, d, dir) \
	F(bw[d].avg, dir.avg_mbps) F(bw[d].min, dir.min_mbps) F(bw[d].secs, dir.secs) \
	F(bw[d].bytes, dir.bytes) F(bw[d].intervals, dir.intervals)
#define REC_FIELDS(F) \
	F(bw[0].sport, sport_ab) F(bw[1].sport, sport_ba) \
	F(a, a) F(b, b) F(round, round) F(klass, klass) \
	F(lat_n, lat_ns.n) F(lat[0], lat_ns.min) F(lat[1], lat_ns.p50) F(lat[2], lat_ns.p99) \
	F(lat[3], lat_ns.p999) F(lat[4], lat_ns.max) F(lat[5], lat_ns.mean) \
	REC_BW(F, 0, ab) REC_BW(F, 1, ba) \
	F(pct_rated, pct_rated) F(expected_mbps, expected_mbps) F(test_s, test_s) \
	F(base_ab_mbps, base_ab_mbps) F(base_ba_mbps, base_ba_mbps) F(change_pct, change_pct)
#define REC_FLAGS(G) \
	G(F_LAT, have_lat) G(F_AB, ab.measured) G(F_BA, ba.measured) G(F_RETESTED, retested) \
	G(F_FIRST_SLOW, first_slow) G(F_SLOW_LAT, slow_lat) G(F_BASE, have_base) \
	G(F_NEAR_REF, near_ref)

#define PACK(rf, pf)		r->rf = p->pf;
#define UNPACK(rf, pf)		p->pf = r->rf;
#define PACK_FLAG(bit, pf)	r->flags |= p->pf ? bit : 0;
#define UNPACK_FLAG(bit, pf)	p->pf = r->flags & bit;

static int pack(struct pair_store *ps, const struct sweep_pair *p, struct pair_rec *r,
		struct fab_err *err)
{
	memset(r, 0, sizeof(*r));
	REC_FIELDS(PACK)
	REC_FLAGS(PACK_FLAG)
	r->status = (uint8_t)p->status;
	r->expect_src = (uint8_t)p->expect_src;
	return reason_pack(ps, p->reason, r, err);
}

static int unpack(struct pair_store *ps, const struct pair_rec *r, struct sweep_pair *p,
		  struct fab_err *err)
{
	memset(p, 0, sizeof(*p));
	REC_FIELDS(UNPACK)
	REC_FLAGS(UNPACK_FLAG)
	p->status = (enum sweep_status)r->status;
	p->expect_src = (enum sweep_expect)r->expect_src;
	if (r->reason_len >= sizeof(p->reason))
		return fab_err_set(err, -EIO, "sweep: pair store: damaged record");
	if (r->reason_len && spool_read(ps->text, r->reason_off, p->reason, r->reason_len, err) < 0)
		return -EIO;
	p->reason[r->reason_len] = '\0';
	return 0;
}

int pair_store_append(struct pair_store *ps, const struct sweep_pair *p, struct fab_err *err)
{
	struct pair_rec r;
	int rc = pack(ps, p, &r, err);

	if (rc == 0)
		rc = spool_append(ps->recs, &r, sizeof(r), NULL, err);
	if (rc == 0)
		ps->n++;
	return rc;
}

int pair_store_get(struct pair_store *ps, size_t i, struct sweep_pair *out, struct fab_err *err)
{
	struct pair_rec r;
	int rc;

	if (i >= ps->n)
		return fab_err_set(err, -EINVAL, "sweep: pair store: no record %zu", i);
	rc = spool_read(ps->recs, (uint64_t)i * sizeof(r), &r, sizeof(r), err);
	return rc < 0 ? rc : unpack(ps, &r, out, err);
}

int pair_store_put(struct pair_store *ps, size_t i, const struct sweep_pair *p, struct fab_err *err)
{
	struct pair_rec r;
	int rc;

	if (i >= ps->n)
		return fab_err_set(err, -EINVAL, "sweep: pair store: no record %zu", i);
	rc = pack(ps, p, &r, err);
	return rc < 0 ? rc : spool_write(ps->recs, (uint64_t)i * sizeof(r), &r, sizeof(r), err);
}
