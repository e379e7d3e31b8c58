// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DCB netlink (libmnl): IEEE PFC, ETS, max rate per TC, the receive buffers
 * (DCB_ATTR_DCB_BUFFER), the APP table (DSCP -> priority is selector 5) and
 * the app-trust table (kernel >= 6.3), the way iproute2's
 * dcb(8) talks to net/dcb/dcbnl.c.  Messages and reply parsing are the
 * pure functions of nl_dcb.h; the sys_ops entry points (nl_dcb_*) wrap
 * them in one request each, with NLM_F_ACK and the extended ack.
 *
 * Kernel behaviour this code is written against (net/dcb/dcbnl.c):
 *  - a device without dcbnl_ops answers every command -EOPNOTSUPP;
 *  - DCB_CMD_IEEE_GET answers only the parts whose get op exists (ETS,
 *    PFC, ...); the APP table always (the kernel keeps it);
 *  - DCB_CMD_IEEE_SET/_DEL ack with 0 even when the driver refused: the
 *    driver's error is in the reply's DCB_ATTR_IEEE u8, and a part whose
 *    set op is missing is skipped silently, so setters read first and
 *    refuse what the driver did not answer;
 *  - kernels before 6.3 ignore DCB_ATTR_DCB_APP_TRUST_TABLE (attribute
 *    above their DCB_ATTR_IEEE_MAX) and APP entries of type DCB_ATTR_DCB_APP
 *    (PCP), silently: refused here with -EOPNOTSUPP instead;
 *  - dcb_ieee_setapp() answers -EEXIST for an entry already there and
 *    dcb_ieee_delapp() -ENOENT for one that is not: add/del send only the
 *    entries that change something, and undo a partial change on error.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>

#include "sys/nl_dcb.h"
#include "sys/nl_util.h"
#include "sys/sys_real.h"
#include "util/array.h"

_Static_assert(DCB_ATTR_DCB_BUFFER + 1 == NL_DCB_ATTR_APP_TRUST_TABLE,
	       "DCB_ATTR_DCB_APP_TRUST_TABLE follows DCB_ATTR_DCB_BUFFER");
_Static_assert(DCB_ATTR_IEEE_APP + 1 == NL_DCB_ATTR_DCB_APP,
	       "DCB_ATTR_DCB_APP follows DCB_ATTR_IEEE_APP");
_Static_assert(sizeof(struct dcb_app) == 4, "struct dcb_app is 4 bytes");

/* --- message builders (pure) --------------------------------------------- */

static struct nlmsghdr *dcb_msg_begin(void *buf, uint32_t seq, uint16_t type, uint8_t cmd,
				      const char *ifname)
{
	struct nlmsghdr *nlh;
	struct dcbmsg *d;

	if (!ifname || !ifname[0] || strlen(ifname) >= IFNAMSIZ)
		return NULL;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	d = mnl_nlmsg_put_extra_header(nlh, sizeof(*d));
	d->dcb_family = AF_UNSPEC;
	d->cmd = cmd;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, ifname);
	return nlh;
}

struct nlmsghdr *nl_dcb_msg_get(void *buf, uint32_t seq, const char *ifname)
{
	return dcb_msg_begin(buf, seq, RTM_GETDCB, DCB_CMD_IEEE_GET, ifname);
}

/*
 * Our PFC and ETS against the kernel's struct ieee_pfc and ieee_ets, written
 * once for both directions: F(kernel field, our field) for a scalar, A() for
 * an array (of the same length: checked).  Our structs have no other fields.
 */
#define PFC_FIELDS(F, A) \
	F(pfc_cap, pfc_cap) F(pfc_en, pfc_en) F(mbc, mbc) F(delay, delay_bits) \
	A(requests, requests) A(indications, indications)
#define ETS_FIELDS(F, A) \
	F(willing, willing) F(ets_cap, ets_cap) F(cbs, cbs) \
	A(tc_tx_bw, tc_tx_bw_pct) A(tc_rx_bw, tc_rx_bw_pct) A(tc_tsa, tc_tsa) \
	A(prio_tc, prio_tc) A(tc_reco_bw, tc_reco_bw_pct) A(tc_reco_tsa, tc_reco_tsa) \
	A(reco_prio_tc, reco_prio_tc)

#define TO_KERNEL(kf, of)	k->kf = o->of;
#define FROM_KERNEL(kf, of)	o->of = k->kf;
#define ARRAY_COPY(dst, src)							\
	_Static_assert(ARRAY_SIZE(dst) == ARRAY_SIZE(src), #dst " and " #src);	\
	for (size_t i = 0; i < ARRAY_SIZE(dst); i++)				\
		dst[i] = src[i];
#define TO_KERNEL_A(kf, of)	ARRAY_COPY(k->kf, o->of)
#define FROM_KERNEL_A(kf, of)	ARRAY_COPY(o->of, k->kf)

static void pfc_to_kernel(const struct fab_dcb_pfc *o, struct ieee_pfc *k)
{
	memset(k, 0, sizeof(*k));
	PFC_FIELDS(TO_KERNEL, TO_KERNEL_A)
}

static void pfc_from_kernel(const struct ieee_pfc *k, struct fab_dcb_pfc *o)
{
	PFC_FIELDS(FROM_KERNEL, FROM_KERNEL_A)
}

static void ets_to_kernel(const struct fab_dcb_ets *o, struct ieee_ets *k)
{
	memset(k, 0, sizeof(*k));
	ETS_FIELDS(TO_KERNEL, TO_KERNEL_A)
}

static void ets_from_kernel(const struct ieee_ets *k, struct fab_dcb_ets *o)
{
	ETS_FIELDS(FROM_KERNEL, FROM_KERNEL_A)
}

/* DCB_CMD_IEEE_SET of one DCB_ATTR_IEEE part: @type with the kernel struct @k of @len bytes. */
static struct nlmsghdr *dcb_msg_ieee_set(void *buf, uint32_t seq, const char *ifname,
					 uint16_t type, const void *k, size_t len)
{
	struct nlmsghdr *nlh = dcb_msg_begin(buf, seq, RTM_SETDCB, DCB_CMD_IEEE_SET, ifname);
	struct nlattr *nest;

	if (!nlh)
		return NULL;
	nest = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_put(nlh, type, len, k);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

struct nlmsghdr *nl_dcb_msg_pfc_set(void *buf, uint32_t seq, const char *ifname,
				    const struct fab_dcb_pfc *pfc)
{
	struct ieee_pfc k;

	pfc_to_kernel(pfc, &k);
	return dcb_msg_ieee_set(buf, seq, ifname, DCB_ATTR_IEEE_PFC, &k, sizeof(k));
}

struct nlmsghdr *nl_dcb_msg_ets_set(void *buf, uint32_t seq, const char *ifname,
				    const struct fab_dcb_ets *ets)
{
	struct ieee_ets k;

	ets_to_kernel(ets, &k);
	return dcb_msg_ieee_set(buf, seq, ifname, DCB_ATTR_IEEE_ETS, &k, sizeof(k));
}

struct nlmsghdr *nl_dcb_msg_maxrate_set(void *buf, uint32_t seq, const char *ifname,
					const uint64_t *tc_maxrate_kbps)
{
	struct ieee_maxrate k;

	memset(&k, 0, sizeof(k));
	memcpy(k.tc_maxrate, tc_maxrate_kbps, sizeof(k.tc_maxrate));
	return dcb_msg_ieee_set(buf, seq, ifname, DCB_ATTR_IEEE_MAXRATE, &k, sizeof(k));
}

struct nlmsghdr *nl_dcb_msg_buffer_set(void *buf, uint32_t seq, const char *ifname,
				       const struct fab_dcb_buffer *b)
{
	struct dcbnl_buffer k;

	memset(&k, 0, sizeof(k));
	memcpy(k.prio2buffer, b->prio2buffer, sizeof(k.prio2buffer));
	memcpy(k.buffer_size, b->buffer_size, sizeof(k.buffer_size));
	k.total_size = b->total_size;
	return dcb_msg_ieee_set(buf, seq, ifname, DCB_ATTR_DCB_BUFFER, &k, sizeof(k));
}

/* PCP entries travel as DCB_ATTR_DCB_APP (kernel >= 6.3), the IEEE ones as DCB_ATTR_IEEE_APP. */
static uint16_t app_attr_type(uint8_t selector)
{
	return selector == FAB_DCB_APP_SEL_PCP ? NL_DCB_ATTR_DCB_APP : DCB_ATTR_IEEE_APP;
}

struct nlmsghdr *nl_dcb_msg_app(void *buf, uint32_t seq, const char *ifname, bool del,
				const struct fab_dcb_app *apps, size_t n)
{
	struct nlmsghdr *nlh;
	struct nlattr *ieee, *table;

	if (n > NL_DCB_APP_MAX)
		return NULL;
	nlh = dcb_msg_begin(buf, seq, RTM_SETDCB, del ? DCB_CMD_IEEE_DEL : DCB_CMD_IEEE_SET,
			    ifname);
	if (!nlh)
		return NULL;
	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	table = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
	for (size_t i = 0; i < n; i++) {
		struct dcb_app k = {
			.selector = apps[i].selector,
			.priority = apps[i].priority,
			.protocol = apps[i].protocol,
		};

		mnl_attr_put(nlh, app_attr_type(k.selector), sizeof(k), &k);
	}
	mnl_attr_nest_end(nlh, table);
	mnl_attr_nest_end(nlh, ieee);
	return nlh;
}

struct nlmsghdr *nl_dcb_msg_trust_set(void *buf, uint32_t seq, const char *ifname,
				      const uint8_t *sel, size_t n)
{
	struct nlmsghdr *nlh;
	struct nlattr *ieee, *table;

	if (n > FAB_DCB_TRUST_MAX)
		return NULL;
	nlh = dcb_msg_begin(buf, seq, RTM_SETDCB, DCB_CMD_IEEE_SET, ifname);
	if (!nlh)
		return NULL;
	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	table = mnl_attr_nest_start(nlh, NL_DCB_ATTR_APP_TRUST_TABLE);
	for (size_t i = 0; i < n; i++)
		mnl_attr_put_u8(nlh, app_attr_type(sel[i]), sel[i]);
	mnl_attr_nest_end(nlh, table);
	mnl_attr_nest_end(nlh, ieee);
	return nlh;
}

/* --- reply parsing (pure) ------------------------------------------------ */

/* The dcbmsg of a reply of @type, or NULL when @nlh is not one / is truncated. */
static const struct dcbmsg *dcb_reply_hdr(const struct nlmsghdr *nlh, size_t len, uint16_t type)
{
	if (len < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN ||
	    nlh->nlmsg_len > len || nlh->nlmsg_type != type ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct dcbmsg))
		return NULL;
	return mnl_nlmsg_get_payload(nlh);
}

static int dcb_parse_apps(const struct nlattr *table, struct fab_dcb *dcb)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, table) {
		uint16_t type = mnl_attr_get_type(a);
		struct dcb_app k;
		struct fab_dcb_app app;

		if (type != DCB_ATTR_IEEE_APP && type != NL_DCB_ATTR_DCB_APP)
			continue;
		if (mnl_attr_get_payload_len(a) < sizeof(k))
			return -EBADMSG;
		memcpy(&k, mnl_attr_get_payload(a), sizeof(k));
		app.selector = k.selector;
		app.priority = k.priority;
		app.protocol = k.protocol;
		if (fab_dcb_app_add(dcb, &app) < 0)
			return -ENOMEM;
	}
	dcb->app_supported = true;
	return 0;
}

static int dcb_parse_trust(const struct nlattr *table, struct fab_dcb *dcb)
{
	const struct nlattr *a;

	dcb->n_trust = 0;
	mnl_attr_for_each_nested(a, table) {
		uint16_t type = mnl_attr_get_type(a);

		if (type != DCB_ATTR_IEEE_APP && type != NL_DCB_ATTR_DCB_APP)
			continue;
		if (mnl_attr_get_payload_len(a) < 1)
			return -EBADMSG;
		if (dcb->n_trust >= FAB_DCB_TRUST_MAX)
			return -EBADMSG;
		dcb->trust[dcb->n_trust++] = mnl_attr_get_u8(a);
	}
	dcb->trust_supported = true;
	return 0;
}

/* DCB_ATTR_IEEE_MAXRATE (kbit/s per TC) and DCB_ATTR_DCB_BUFFER; 0 or -EBADMSG. */
static int dcb_parse_rates(const struct nlattr *a, struct fab_dcb *dcb)
{
	struct ieee_maxrate mr;
	struct dcbnl_buffer b;

	if (mnl_attr_get_type(a) == DCB_ATTR_IEEE_MAXRATE) {
		if (mnl_attr_get_payload_len(a) < sizeof(mr))
			return -EBADMSG;
		memcpy(&mr, mnl_attr_get_payload(a), sizeof(mr));
		memcpy(dcb->tc_maxrate_kbps, mr.tc_maxrate, sizeof(dcb->tc_maxrate_kbps));
		dcb->maxrate_supported = true;
		return 0;
	}
	if (mnl_attr_get_payload_len(a) < sizeof(b))
		return -EBADMSG;
	memcpy(&b, mnl_attr_get_payload(a), sizeof(b));
	memcpy(dcb->buffer.prio2buffer, b.prio2buffer, sizeof(dcb->buffer.prio2buffer));
	memcpy(dcb->buffer.buffer_size, b.buffer_size, sizeof(dcb->buffer.buffer_size));
	dcb->buffer.total_size = b.total_size;
	dcb->buffer_supported = true;
	return 0;
}

static int dcb_parse_ieee(const struct nlattr *ieee, struct fab_dcb *dcb)
{
	const struct nlattr *a;
	struct ieee_pfc pfc;
	struct ieee_ets ets;
	int rc;

	mnl_attr_for_each_nested(a, ieee) {
		switch (mnl_attr_get_type(a)) {
		case DCB_ATTR_IEEE_MAXRATE:
		case DCB_ATTR_DCB_BUFFER:
			rc = dcb_parse_rates(a, dcb);
			if (rc < 0)
				return rc;
			break;
		case DCB_ATTR_IEEE_ETS:
			if (mnl_attr_get_payload_len(a) < sizeof(ets))
				return -EBADMSG;
			memcpy(&ets, mnl_attr_get_payload(a), sizeof(ets));
			ets_from_kernel(&ets, &dcb->ets);
			dcb->ets_supported = true;
			break;
		case DCB_ATTR_IEEE_PFC:
			if (mnl_attr_get_payload_len(a) < sizeof(pfc))
				return -EBADMSG;
			/* Netlink payloads are 4-byte aligned, struct ieee_pfc has u64s. */
			memcpy(&pfc, mnl_attr_get_payload(a), sizeof(pfc));
			pfc_from_kernel(&pfc, &dcb->pfc);
			dcb->pfc_supported = true;
			break;
		case DCB_ATTR_IEEE_APP_TABLE:
			if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
				return -EBADMSG;
			rc = dcb_parse_apps(a, dcb);
			if (rc < 0)
				return rc;
			break;
		case NL_DCB_ATTR_APP_TRUST_TABLE:
			if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
				return -EBADMSG;
			rc = dcb_parse_trust(a, dcb);
			if (rc < 0)
				return rc;
			break;
		}
	}
	return 0;
}

int nl_dcb_reply_parse(const struct nlmsghdr *nlh, size_t len, struct fab_dcb *dcb)
{
	const struct dcbmsg *d = dcb_reply_hdr(nlh, len, RTM_GETDCB);
	const struct nlattr *a;
	int rc;

	if (!d || d->cmd != DCB_CMD_IEEE_GET)
		return -EBADMSG;
	mnl_attr_for_each(a, nlh, sizeof(*d)) {
		switch (mnl_attr_get_type(a)) {
		case DCB_ATTR_IFNAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
				return -EBADMSG;
			snprintf(dcb->ifname, sizeof(dcb->ifname), "%s", mnl_attr_get_str(a));
			break;
		case DCB_ATTR_IEEE:
			if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
				return -EBADMSG;
			rc = dcb_parse_ieee(a, dcb);
			if (rc < 0)
				return rc;
			break;
		case DCB_ATTR_DCBX:
			if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
				return -EBADMSG;
			dcb->dcbx = mnl_attr_get_u8(a);
			dcb->dcbx_supported = true;
			break;
		}
	}
	return 0;
}

int nl_dcb_set_reply_parse(const struct nlmsghdr *nlh, size_t len, int *error)
{
	const struct dcbmsg *d = dcb_reply_hdr(nlh, len, RTM_SETDCB);
	const struct nlattr *a;

	if (!d || (d->cmd != DCB_CMD_IEEE_SET && d->cmd != DCB_CMD_IEEE_DEL))
		return -EBADMSG;
	*error = 0;
	mnl_attr_for_each(a, nlh, sizeof(*d)) {
		if (mnl_attr_get_type(a) != DCB_ATTR_IEEE)
			continue;
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			return -EBADMSG;
		/* The driver's -errno, truncated to u8 by nla_put_u8(). */
		*error = (int8_t)mnl_attr_get_u8(a);
		if (*error > 0)
			*error = -EIO;
		return 0;
	}
	return 0;
}

/* --- requests ------------------------------------------------------------ */

struct dcb_reply {
	struct fab_dcb *dcb;	/* GET: filled; may be NULL for SET */
	int rc;			/* parse error */
	int set_error;		/* driver's error from a SET/DEL reply */
	bool got;
};

static int dcb_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dcb_reply *r = data;
	int rc;

	if (nlh->nlmsg_type == RTM_GETDCB && r->dcb) {
		rc = nl_dcb_reply_parse(nlh, nlh->nlmsg_len, r->dcb);
	} else if (nlh->nlmsg_type == RTM_SETDCB) {
		rc = nl_dcb_set_reply_parse(nlh, nlh->nlmsg_len, &r->set_error);
	} else {
		return MNL_CB_OK;
	}
	if (rc < 0) {
		r->rc = rc;
		return MNL_CB_ERROR;
	}
	r->got = true;
	return MNL_CB_OK;
}

/* True when the running kernel is at least @major.@minor; @rel gets its release. */
static bool kernel_at_least(unsigned int major, unsigned int minor, char *rel, size_t len)
{
	struct utsname u;
	unsigned int ma = 0, mi = 0;

	if (uname(&u) < 0) {
		snprintf(rel, len, "unknown");
		return false;
	}
	snprintf(rel, len, "%s", u.release);
	if (sscanf(u.release, "%u.%u", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

/*
 * Send @nlh, collect the reply into @dcb (GET) and turn every failure into
 * "dcb: IFNAME: OP: reason".  @feature names what is missing when the
 * device has no DCB at all ("pfc" -> "dcb: veth0: pfc not supported by driver").
 */
static int dcb_exchange(const char *ifname, struct nlmsghdr *nlh, struct fab_dcb *dcb,
			const char *op, const char *feature, struct fab_err *err)
{
	struct dcb_reply r = { .dcb = dcb };
	char extack[256], reason[400];
	struct nl_sock s;
	int rc;

	if (!nlh)
		return fab_err_input(err, -EINVAL, "dcb: %s: %s: request too large", ifname, op);
	if (nl_sock_open(&s, NETLINK_ROUTE, err) < 0) {
		fab_err_prefix(err, "dcb: %s", ifname);
		return err->code;
	}
	nlh->nlmsg_seq = ++s.seq;
	rc = nl_talk(&s, nlh, dcb_reply_cb, &r, extack, sizeof(extack));
	nl_sock_close(&s);
	if (rc == -EOPNOTSUPP)
		return fab_err_set(err, rc, "dcb: %s: %s not supported by driver%s%s%s", ifname,
				   feature, extack[0] ? " (" : "", extack, extack[0] ? ")" : "");
	if (rc == -ENODEV)
		return fab_err_set(err, rc, "dcb: %s: no such device", ifname);
	if (rc == -EPERM)
		return fab_err_set(err, rc, "dcb: %s: %s: %s (needs CAP_NET_ADMIN)", ifname, op,
				   nl_strerror(rc, extack, reason, sizeof(reason)));
	if (rc < 0 && r.rc < 0)
		rc = r.rc;
	if (rc == -EBADMSG)
		return fab_err_set(err, rc, "dcb: %s: %s: malformed reply from the kernel",
				   ifname, op);
	if (rc < 0)
		return fab_err_set(err, rc, "dcb: %s: %s: %s", ifname, op,
				   nl_strerror(rc, extack, reason, sizeof(reason)));
	if (r.set_error == -EOPNOTSUPP)
		return fab_err_set(err, r.set_error, "dcb: %s: %s not supported by driver",
				   ifname, feature);
	if (r.set_error < 0)
		return fab_err_set(err, r.set_error, "dcb: %s: %s: %s (rejected by driver)",
				   ifname, op, strerror(-r.set_error));
	if (dcb && !r.got)
		return fab_err_set(err, -EBADMSG, "dcb: %s: %s: no reply from the kernel",
				   ifname, op);
	return 0;
}

static int dcb_ifname_check(const char *ifname, struct fab_err *err)
{
	if (!ifname || !ifname[0] || strlen(ifname) >= IFNAMSIZ)
		return fab_err_input(err, -EINVAL, "dcb: '%s': invalid interface name",
				     ifname ? ifname : "");
	return 0;
}

int nl_dcb_read(struct sys *sys, const char *ifname, struct fab_dcb *dcb, struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	int rc;

	rc = dcb_ifname_check(ifname, err);
	if (rc < 0)
		return rc;
	nlh = nl_dcb_msg_get(buf, 0, ifname);
	rc = dcb_exchange(ifname, nlh, dcb, "read", "dcb", err);
	if (rc == 0)
		snprintf(dcb->ifname, sizeof(dcb->ifname), "%s", ifname);
	return rc;
}

/*
 * Read the current state for a setter into @cur; -EOPNOTSUPP names
 * @feature, also when @supported (NULL, or a flag of @cur) is false then.
 */
static int dcb_read_for(const char *ifname, struct fab_dcb *cur, const char *feature,
			const bool *supported, struct fab_err *err)
{
	int rc = nl_dcb_read(NULL, ifname, cur, err);

	if (rc == -EOPNOTSUPP || (rc == 0 && supported && !*supported))
		return fab_err_set(err, -EOPNOTSUPP, "dcb: %s: %s not supported by driver", ifname,
				   feature);
	return rc;
}

int nl_dcb_pfc_set(struct sys *sys, const char *ifname, const struct fab_dcb_pfc *pfc,
		   struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct fab_dcb cur;
	struct fab_dcb_pfc k;
	int rc;

	fab_dcb_init(&cur);
	rc = dcb_read_for(ifname, &cur, "pfc", &cur.pfc_supported, err);
	if (rc < 0)
		goto out;
	/* As dcb(8): the whole struct as read, with the fields we own changed. */
	k = cur.pfc;
	k.pfc_en = pfc->pfc_en;
	k.mbc = pfc->mbc;
	k.delay_bits = pfc->delay_bits;
	rc = dcb_exchange(ifname, nl_dcb_msg_pfc_set(buf, 0, ifname, &k), NULL, "set pfc",
			  "pfc", err);
out:
	fab_dcb_fini(&cur);
	return rc;
}

int nl_dcb_maxrate_set(struct sys *sys, const char *ifname, const uint64_t *tc_maxrate_kbps,
		       struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct fab_dcb cur;
	int rc;

	fab_dcb_init(&cur);
	rc = dcb_read_for(ifname, &cur, "maxrate", &cur.maxrate_supported, err);
	if (rc == 0)
		rc = dcb_exchange(ifname, nl_dcb_msg_maxrate_set(buf, 0, ifname, tc_maxrate_kbps),
				  NULL, "set maxrate", "maxrate", err);
	fab_dcb_fini(&cur);
	return rc;
}

int nl_dcb_buffer_set(struct sys *sys, const char *ifname, const struct fab_dcb_buffer *b,
		      struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct fab_dcb cur;
	struct fab_dcb_buffer k;
	int rc;

	fab_dcb_init(&cur);
	rc = dcb_read_for(ifname, &cur, "buffer", &cur.buffer_supported, err);
	if (rc < 0)
		goto out;
	/* As dcb(8): the struct as read (total_size is read only), the mapping and sizes ours. */
	k = cur.buffer;
	memcpy(k.prio2buffer, b->prio2buffer, sizeof(k.prio2buffer));
	memcpy(k.buffer_size, b->buffer_size, sizeof(k.buffer_size));
	rc = dcb_exchange(ifname, nl_dcb_msg_buffer_set(buf, 0, ifname, &k), NULL, "set buffer",
			  "buffer", err);
out:
	fab_dcb_fini(&cur);
	return rc;
}

/* Why a driver may have said -EINVAL to @ets, for the message; "" when no idea. */
static void ets_hint(const struct fab_dcb_ets *ets, uint8_t ets_cap, char *buf, size_t len)
{
	unsigned int sum = 0;
	bool any = false;

	buf[0] = '\0';
	for (int i = 0; i < FAB_DCB_NTC; i++) {
		if (ets->tc_tsa[i] == FAB_DCB_TSA_ETS) {
			any = true;
			sum += ets->tc_tx_bw_pct[i];
		}
	}
	if (any && sum != 100) {
		snprintf(buf, len, ": ets bandwidths sum to %u%%, not 100%%", sum);
		return;
	}
	for (int p = 0; p < FAB_DCB_NPRIO; p++) {
		if (ets_cap && ets->prio_tc[p] >= ets_cap) {
			snprintf(buf, len, ": priority %d maps to tc %u, the device has %u tcs",
				 p, ets->prio_tc[p], ets_cap);
			return;
		}
	}
}

int nl_dcb_ets_set(struct sys *sys, const char *ifname, const struct fab_dcb_ets *ets,
		   struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct fab_dcb cur;
	struct fab_dcb_ets k;
	char hint[128];
	int rc;

	fab_dcb_init(&cur);
	rc = dcb_read_for(ifname, &cur, "ets", &cur.ets_supported, err);
	if (rc < 0)
		goto out;
	k = cur.ets;
	k.willing = ets->willing;
	memcpy(k.tc_tx_bw_pct, ets->tc_tx_bw_pct, sizeof(k.tc_tx_bw_pct));
	memcpy(k.tc_tsa, ets->tc_tsa, sizeof(k.tc_tsa));
	memcpy(k.prio_tc, ets->prio_tc, sizeof(k.prio_tc));
	rc = dcb_exchange(ifname, nl_dcb_msg_ets_set(buf, 0, ifname, &k), NULL, "set ets",
			  "ets", err);
	if (rc == -EINVAL) {
		ets_hint(&k, cur.ets.ets_cap, hint, sizeof(hint));
		if (hint[0]) {
			size_t l = strlen(err->msg);

			snprintf(err->msg + l, sizeof(err->msg) - l, "%s", hint);
		}
	}
out:
	fab_dcb_fini(&cur);
	return rc;
}

static bool app_eq(const struct fab_dcb_app *a, const struct fab_dcb_app *b)
{
	return a->selector == b->selector && a->protocol == b->protocol &&
	       a->priority == b->priority;
}

static bool app_in(const struct fab_dcb_app *apps, size_t n, const struct fab_dcb_app *app)
{
	for (size_t i = 0; i < n; i++)
		if (app_eq(&apps[i], app))
			return true;
	return false;
}

/*
 * Add (@del false) or delete @apps; entries that would not change anything
 * are left out (the kernel calls them -EEXIST / -ENOENT).  On failure the
 * entries this call changed are put back, best effort.
 */
static int dcb_app_change(const char *ifname, bool del, const struct fab_dcb_app *apps,
			  size_t n, struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	const char *op = del ? "delete app" : "add app";
	struct fab_dcb_app todo[NL_DCB_APP_MAX];
	struct fab_dcb cur, after;
	struct fab_err uerr;
	char rel[65];
	size_t m = 0;
	int rc;

	fab_dcb_init(&cur);
	fab_dcb_init(&after);
	if (n > NL_DCB_APP_MAX) {
		rc = fab_err_input(err, -E2BIG, "dcb: %s: %s: %zu entries, at most %d", ifname,
				   op, n, NL_DCB_APP_MAX);
		goto out;
	}
	rc = dcb_read_for(ifname, &cur, "app table", NULL, err);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		bool have = app_in(cur.apps, cur.n_apps, &apps[i]);

		if (apps[i].selector == FAB_DCB_APP_SEL_PCP &&
		    !kernel_at_least(6, 3, rel, sizeof(rel))) {
			rc = fab_err_set(err, -EOPNOTSUPP,
					 "dcb: %s: pcp app entries not supported by kernel %s (needs linux >= 6.3)",
					 ifname, rel);
			goto out;
		}
		if (have == del && !app_in(todo, m, &apps[i]))
			todo[m++] = apps[i];
	}
	if (m == 0)
		goto out;
	rc = dcb_exchange(ifname, nl_dcb_msg_app(buf, 0, ifname, del, todo, m), NULL, op,
			  "app table", err);
	if (rc == 0)
		goto out;
	/* Undo what went through before the driver stopped. */
	fab_err_init(&uerr);
	if (nl_dcb_read(NULL, ifname, &after, &uerr) == 0) {
		size_t u = 0;

		for (size_t i = 0; i < m; i++)
			if (app_in(after.apps, after.n_apps, &todo[i]) != del)
				todo[u++] = todo[i];
		if (u && dcb_exchange(ifname, nl_dcb_msg_app(buf, 0, ifname, !del, todo, u), NULL,
				      "undo", "app table", &uerr) < 0) {
			size_t l = strlen(err->msg);

			snprintf(err->msg + l, sizeof(err->msg) - l, "; undo failed: %s", uerr.msg);
		}
	}
out:
	fab_dcb_fini(&after);
	fab_dcb_fini(&cur);
	return rc;
}

int nl_dcb_app_add(struct sys *sys, const char *ifname, const struct fab_dcb_app *apps,
		   size_t n, struct fab_err *err)
{
	return dcb_app_change(ifname, false, apps, n, err);
}

int nl_dcb_app_del(struct sys *sys, const char *ifname, const struct fab_dcb_app *apps,
		   size_t n, struct fab_err *err)
{
	return dcb_app_change(ifname, true, apps, n, err);
}

int nl_dcb_trust_set(struct sys *sys, const char *ifname, const uint8_t *sel, size_t n,
		     struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct fab_dcb cur;
	char rel[65];
	int rc;

	fab_dcb_init(&cur);
	if (n > FAB_DCB_TRUST_MAX) {
		rc = fab_err_input(err, -E2BIG, "dcb: %s: trust table: %zu selectors, at most %d",
				   ifname, n, FAB_DCB_TRUST_MAX);
		goto out;
	}
	rc = dcb_read_for(ifname, &cur, "app-trust table", NULL, err);
	if (rc < 0)
		goto out;
	if (!cur.trust_supported) {
		if (!kernel_at_least(6, 3, rel, sizeof(rel)))
			rc = fab_err_set(err, -EOPNOTSUPP,
					 "dcb: %s: app-trust table not supported by kernel %s (DCB_ATTR_DCB_APP_TRUST_TABLE needs linux >= 6.3)",
					 ifname, rel);
		else
			rc = fab_err_set(err, -EOPNOTSUPP,
					 "dcb: %s: app-trust table not supported by driver", ifname);
		goto out;
	}
	rc = dcb_exchange(ifname, nl_dcb_msg_trust_set(buf, 0, ifname, sel, n), NULL,
			  "set trust", "app-trust table", err);
out:
	fab_dcb_fini(&cur);
	return rc;
}
