/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DCB state of one netdev as DCB netlink (IEEE 802.1Qaz/Qbb, <linux/dcbnl.h>)
 * describes it: IEEE PFC, IEEE ETS, the APP table (DSCP -> priority and
 * friends) and the app-trust list.  Pure data, no I/O; src/sys/nl_dcb.c
 * fills it, src/model/changeset.c diffs against it.
 *
 * Ownership: a struct fab_dcb owns its apps array; fab_dcb_init() zeroes,
 * fab_dcb_fini() frees (NULL-safe), fab_dcb_app_add() appends a copy.
 *
 * Each part has its own `supported` flag: false means the driver did not
 * answer that part (no dcbnl_ops, or the op is missing); the values of an
 * unsupported part are zero and must not be compared.
 */
#ifndef FAB_MODEL_DCB_H
#define FAB_MODEL_DCB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAB_DCB_NPRIO	8	/* IEEE 802.1p priorities 0..7 */
#define FAB_DCB_NTC	8	/* IEEE_8021QAZ_MAX_TCS */

/* APP selectors (IEEE_8021QAZ_APP_SEL_*); defined here for older headers. */
#define FAB_DCB_APP_SEL_ETHERTYPE	1
#define FAB_DCB_APP_SEL_STREAM		2	/* TCP/SCTP port */
#define FAB_DCB_APP_SEL_DGRAM		3	/* UDP/DCCP port */
#define FAB_DCB_APP_SEL_ANY		4	/* TCP/SCTP/UDP/DCCP port */
#define FAB_DCB_APP_SEL_DSCP		5	/* protocol = DSCP 0..63 */
#define FAB_DCB_APP_SEL_PCP		255	/* DCB_APP_SEL_PCP: kernel >= 6.4, trust "pcp" */

/* Transmission selection algorithms (IEEE_8021QAZ_TSA_*). */
#define FAB_DCB_TSA_STRICT	0
#define FAB_DCB_TSA_CB_SHAPER	1
#define FAB_DCB_TSA_ETS		2
#define FAB_DCB_TSA_VENDOR	255

/* DCBX mode bits (DCB_CAP_DCBX_*). */
#define FAB_DCBX_HOST		0x01
#define FAB_DCBX_LLD_MANAGED	0x02
#define FAB_DCBX_VER_CEE	0x04
#define FAB_DCBX_VER_IEEE	0x08
#define FAB_DCBX_STATIC		0x10

/* struct ieee_pfc */
struct fab_dcb_pfc {
	uint8_t pfc_cap;		/* how many TCs may be lossless at once */
	uint8_t pfc_en;			/* bit p set: PFC on priority p */
	uint8_t mbc;			/* MACsec bypass capability */
	uint16_t delay_bits;		/* allowance for cable delay, in bit times */
	uint64_t requests[FAB_DCB_NPRIO];	/* pause frames sent, per prio (read only) */
	uint64_t indications[FAB_DCB_NPRIO];	/* pause frames received (read only) */
};

/* struct ieee_ets */
struct fab_dcb_ets {
	bool willing;
	uint8_t ets_cap;			/* number of TCs the device supports */
	uint8_t cbs;				/* credit-based shaper supported */
	uint8_t tc_tx_bw_pct[FAB_DCB_NTC];	/* ETS bandwidth share per TC, percent, sum 100 over ETS TCs */
	uint8_t tc_rx_bw_pct[FAB_DCB_NTC];
	uint8_t tc_tsa[FAB_DCB_NTC];		/* FAB_DCB_TSA_* per TC */
	uint8_t prio_tc[FAB_DCB_NPRIO];		/* traffic class of each priority */
	uint8_t tc_reco_bw_pct[FAB_DCB_NTC];	/* recommended (peer) values, read only */
	uint8_t tc_reco_tsa[FAB_DCB_NTC];
	uint8_t reco_prio_tc[FAB_DCB_NPRIO];
};

/* struct dcb_app */
struct fab_dcb_app {
	uint8_t selector;	/* FAB_DCB_APP_SEL_* */
	uint16_t protocol;	/* DSCP value, ethertype, port or PCP, by selector */
	uint8_t priority;	/* 0..7 */
};

#define FAB_DCB_TRUST_MAX 8
#define FAB_DCB_NBUF	8	/* DCBX_MAX_BUFFERS */

/* struct dcbnl_buffer (DCB_ATTR_DCB_BUFFER, iproute2 `dcb buffer`). */
struct fab_dcb_buffer {
	uint8_t prio2buffer[FAB_DCB_NPRIO];	/* receive buffer of each priority */
	uint32_t buffer_size[FAB_DCB_NBUF];	/* bytes */
	uint32_t total_size;			/* bytes, read only */
};

struct fab_dcb {
	char ifname[16];
	bool pfc_supported;	/* DCB_ATTR_IEEE_PFC answered */
	bool ets_supported;	/* DCB_ATTR_IEEE_ETS answered */
	bool app_supported;	/* DCB_ATTR_IEEE_APP_TABLE answered */
	bool trust_supported;	/* DCB_ATTR_DCB_APP_TRUST_TABLE answered (kernel >= 6.4 and driver) */
	bool dcbx_supported;	/* DCB_CMD_GDCBX answered */
	bool buffer_supported;	/* DCB_ATTR_DCB_BUFFER answered (mlx5) */
	bool maxrate_supported;	/* DCB_ATTR_IEEE_MAXRATE answered */
	struct fab_dcb_pfc pfc;
	struct fab_dcb_ets ets;
	struct fab_dcb_app *apps;	/* owned, in kernel order */
	size_t n_apps;
	uint8_t trust[FAB_DCB_TRUST_MAX];	/* selectors, highest precedence first */
	size_t n_trust;
	uint8_t dcbx;		/* FAB_DCBX_* bits */
	struct fab_dcb_buffer buffer;
	uint64_t tc_maxrate_kbps[FAB_DCB_NTC];	/* struct ieee_maxrate, 0 = unlimited */
};

void fab_dcb_init(struct fab_dcb *dcb);
void fab_dcb_fini(struct fab_dcb *dcb);
/* Append a copy of @app; 0 or -ENOMEM. */
int fab_dcb_app_add(struct fab_dcb *dcb, const struct fab_dcb_app *app);
/* Borrowed pointer to the entry with @selector and @protocol, or NULL. */
const struct fab_dcb_app *fab_dcb_app_find(const struct fab_dcb *dcb, uint8_t selector,
					   uint16_t protocol);

/* "dscp", "pcp", "ethertype", "stream", "dgram", "any"; NULL when unknown. */
const char *fab_dcb_sel_name(uint8_t selector);
/* Inverse of fab_dcb_sel_name; -1 when unknown. */
int fab_dcb_sel_parse(const char *name);
/* "strict", "cbs", "ets", "vendor"; NULL when unknown (parse: -1). */
const char *fab_dcb_tsa_name(uint8_t tsa);
int fab_dcb_tsa_parse(const char *name);

#endif
