// SPDX-License-Identifier: GPL-2.0-or-later
/* The counter rules: one table for every evaluator (counter_rules.h). */
#include <errno.h>
#include <fnmatch.h>
#include <string.h>

#include "model/counter_rules.h"
#include "util/array.h"
#include "util/str.h"

#define E COUNTER_SEV_ERROR
#define W COUNTER_SEV_WARN
#define I COUNTER_SEV_INFO
#define OFF COUNTER_OFF

/* An IB PMA counter: attribute name, JSON alias, sysfs name if not the alias, limit, threshold. */
#define PMA(name, alias, sysfs, limit, threshold, sev, meaning) \
	{ name, alias, sysfs, meaning, limit, threshold, sev }
/* A counter a host reads (ethtool -S, netdev statistics, hw_counters): judged in a window only. */
#define HOST(name, threshold, sev, meaning) \
	{ name, NULL, NULL, meaning, OFF, threshold, sev }

/*
 * The table: one entry per counter; docs/counters.md prints it (a unit test
 * compares the two).  Sources: the IB spec's PortCounters (errors are
 * faults, PortXmitWait is congestion: guilbaults/infiniband-exporter#12),
 * the mlx5 ethtool documentation (physical-layer and buffer counters), the
 * RDMA hw_counters of mlx5 and rxe, and ROCm/cvs's rule: a rise in
 * err/drop/discard is an error, in retry/timeout/out-of-order a warning,
 * CNP/ECN rising by more than 1000 a warning.  The limits are discover's
 * long-standing defaults for one reading of a counter that has never been
 * cleared.
 */
static const struct counter_rule rules_default[] = {
	/* InfiniBand PMA PortCounters / PortCountersExtended: faults and congestion */
	PMA("SymbolErrorCounter", "symbol_errors", "symbol_error", 10, 0, E,
	    "symbol errors on the wire (bad cable, transceiver or port)"),
	PMA("LinkErrorRecoveryCounter", "link_error_recovery", NULL, 10, 0, E,
	    "link retrained after errors"),
	PMA("LinkDownedCounter", "link_downed", NULL, 10, 0, E,
	    "link went down (flap)"),
	PMA("PortRcvErrors", "port_rcv_errors", NULL, 10, 0, E,
	    "received packets with errors"),
	PMA("PortRcvRemotePhysicalErrors", "port_rcv_remote_physical_errors", NULL, 10, 0, E,
	    "packets marked bad upstream"),
	PMA("PortXmitDiscards", "port_xmit_discards", NULL, 100, 0, E,
	    "packets dropped on transmit (down port, congestion timeout)"),
	PMA("LocalLinkIntegrityErrors", "local_link_integrity_errors", NULL, 10, 0, E,
	    "local physical errors over the limit"),
	PMA("ExcessiveBufferOverrunErrors", "excessive_buffer_overrun_errors", NULL, 10, 0, E,
	    "receive buffer overruns"),
	PMA("PortRcvSwitchRelayErrors", "port_rcv_switch_relay_errors", NULL, 100, 0, W,
	    "packets the switch could not forward"),
	PMA("PortXmitWait", "port_xmit_wait", NULL, OFF, 0, I,
	    "ticks with data to send and no credit: congestion, not an error"),
	/* Ethernet physical layer and buffers (mlx5 ethtool -S) */
	HOST("rx_pcs_symbol_err_phy", 0, E,
	     "PCS symbol errors: high bit error rate, replace the cable"),
	HOST("rx_symbol_err_phy", 0, E, "symbol errors on receive"),
	HOST("rx_crc_errors_phy", 0, E, "frames with bad FCS"),
	HOST("rx_discards_phy", 0, E, "frames dropped for lack of receive buffer in the port"),
	HOST("tx_discards_phy", 0, E, "frames dropped on transmit"),
	HOST("tx_pause_storm_error_events", 0, E,
	     "pause storm: the NIC stopped honouring pause, drops follow"),
	HOST("tx_pause_storm_warning_events", 0, W,
	     "pause frames sent continuously (storm warning)"),
	HOST("rx_buffer_passed_thres_phy", 0, W, "receive buffer above 85 % full"),
	HOST("rx_prio*_pause", 1000, W, "PFC pause frames received on a priority (peer congested)"),
	HOST("tx_prio*_pause", 1000, W,
	     "PFC pause frames sent on a priority (this port congested)"),
	HOST("rx_prio*_pause_duration", 0, I, "time paused by the peer on a priority"),
	HOST("tx_prio*_pause_duration", 0, I, "time this port paused its peer on a priority"),
	HOST("rx_pause_ctrl_phy", 1000, W, "global pause frames received"),
	HOST("tx_pause_ctrl_phy", 1000, W, "global pause frames sent"),
	HOST("rx_out_of_buffer", 0, E, "packets dropped: no receive WQE posted (host too slow)"),
	HOST("rx_prio*_discards", 0, E, "frames dropped on a priority for lack of buffer"),
	HOST("rx_prio*_buf_discard", 0, E, "frames dropped on a priority's buffer"),
	HOST("rx_prio*_cong_discard", 0, E, "frames dropped on a priority by congestion"),
	HOST("rx_prio*_marked", 0, I, "frames ECN-marked on a priority"),
	HOST("link_down_events_phy", 0, E, "link went down (flap)"),
	HOST("rx_corrected_bits_phy", 0, I,
	     "bits the FEC corrected (a weak link; rises slowly when healthy)"),
	HOST("rx_err_lane_*_phy", 0, E, "symbol errors on one lane"),
	/* Linux netdev statistics (/sys/class/net/IF/statistics, any driver) */
	HOST("rx_crc_errors", 0, E, "frames with bad FCS (netdev statistics)"),
	HOST("rx_frame_errors", 0, E, "misaligned frames (netdev statistics)"),
	HOST("rx_length_errors", 0, E, "frames with a bad length (netdev statistics)"),
	HOST("rx_errors", 0, E, "receive errors of any kind (netdev statistics)"),
	HOST("tx_errors", 0, E, "transmit errors of any kind (netdev statistics)"),
	HOST("rx_missed_errors", 0, E, "frames the NIC had no room for (netdev statistics)"),
	HOST("rx_fifo_errors", 0, E, "receive FIFO overruns (netdev statistics)"),
	HOST("rx_over_errors", 0, E, "receive ring overruns (netdev statistics)"),
	HOST("tx_fifo_errors", 0, E, "transmit FIFO underruns (netdev statistics)"),
	HOST("tx_carrier_errors", 0, E, "carrier lost while sending (netdev statistics)"),
	HOST("rx_dropped", 0, W,
	     "packets dropped on receive (netdev statistics; also unwanted protocols)"),
	HOST("tx_dropped", 0, W, "packets dropped on transmit (netdev statistics)"),
	HOST("carrier_changes", 0, E, "carrier went down or up (link flap)"),
	/* RDMA hw_counters (mlx5, rxe) */
	HOST("np_cnp_sent", 1000, W,
	     "CNPs sent as notification point (ECN-marked traffic arrived)"),
	HOST("rp_cnp_handled", 1000, W, "CNPs handled as reaction point (rate cut)"),
	HOST("np_ecn_marked_roce_packets", 1000, W, "ECN-marked RoCE packets received"),
	HOST("out_of_sequence", 0, W, "packets out of sequence (loss upstream)"),
	HOST("packet_seq_err", 0, W, "NAK sequence errors received (loss)"),
	HOST("implied_nak_seq_err", 0, W, "implied NAK sequence errors (loss)"),
	HOST("local_ack_timeout_err", 0, W, "ACK timeouts: retransmissions"),
	HOST("duplicate_request", 0, W, "duplicate requests: the peer retransmitted"),
	HOST("rnr_nak_retry_err", 0, E, "RNR NAK retries exhausted"),
	HOST("req_cqe_error", 0, E, "requester completions in error"),
	HOST("resp_cqe_error", 0, E, "responder completions in error"),
	HOST("rx_icrc_encapsulated", 0, E, "RoCE packets with bad ICRC"),
	HOST("out_of_seq_request", 0, W, "rxe: requests out of sequence (loss)"),
	HOST("rcvd_seq_err", 0, W, "rxe: sequence errors received (loss)"),
	HOST("completer_retry_err", 0, W, "rxe: completer retried (retransmission)"),
	HOST("retry_exceeded_err", 0, E, "rxe: retries exhausted, QP in error"),
	HOST("out_of_buffer", 0, E, "RoCE packets dropped: no receive WQE posted (hw_counters)"),
	HOST("roce_adp_retrans", 0, W, "adaptive retransmissions (loss)"),
	HOST("roce_slow_restart", 0, W, "slow restarts after retransmission timeouts"),
	HOST("resp_local_length_error", 0, E, "responder: message longer than the posted buffer"),
	HOST("rcvd_rnr_err", 0, W, "rxe: RNR NAKs received (receiver not ready)"),
	HOST("send_rnr_err", 0, W, "rxe: RNR NAKs sent"),
	HOST("retry_rnr_exceeded_err", 0, E, "rxe: RNR retries exhausted, QP in error"),
	HOST("send_err", 0, E, "rxe: packets the interface would not send"),
	/*
	 * InfiniBand PMA counters that are no evidence in a window: configuration
	 * (partitions, the SMA's VL15) held to a limit on one reading, and traffic.
	 * Last, so that the policy's list of names reads as it did.
	 */
	PMA("PortXmitConstraintErrors", "port_xmit_constraint_errors", NULL, 100, OFF, I,
	    "packets not sent: partition or raw-packet constraints (configuration)"),
	PMA("PortRcvConstraintErrors", "port_rcv_constraint_errors", NULL, 100, OFF, I,
	    "packets dropped on receive: partition or raw-packet constraints (configuration)"),
	PMA("VL15Dropped", "vl15_dropped", "VL15_dropped", 100, OFF, I,
	    "subnet management packets dropped (the SMA, not the link)"),
	PMA("PortXmitData", "port_xmit_data", NULL, OFF, OFF, I,
	    "data sent, in 4-byte words (extended when available): traffic"),
	PMA("PortRcvData", "port_rcv_data", NULL, OFF, OFF, I,
	    "data received, in 4-byte words (extended when available): traffic"),
	PMA("PortXmitPkts", "port_xmit_packets", NULL, OFF, OFF, I,
	    "packets sent (extended when available): traffic"),
	PMA("PortRcvPkts", "port_rcv_packets", NULL, OFF, OFF, I,
	    "packets received (extended when available): traffic"),
};

#undef PMA
#undef HOST
#undef E
#undef W
#undef I
#undef OFF

static const char *const sev_names[] = { "info", "warn", "error" };

const char *counter_sev_name(enum counter_sev s)
{
	return (unsigned int)s < ARRAY_SIZE(sev_names) ? sev_names[s] : NULL;
}

int counter_sev_parse(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(sev_names); i++)
		if (strcmp(sev_names[i], name) == 0)
			return (int)i;
	return -1;
}

const struct counter_rule *counter_rules_default(size_t *n)
{
	*n = ARRAY_SIZE(rules_default);
	return rules_default;
}

const struct counter_rule *counter_rules_sysfs(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(rules_default); i++)
		if (rules_default[i].sysfs && strcmp(rules_default[i].sysfs, name) == 0)
			return &rules_default[i];
	return NULL;
}

void counter_policy_default(struct counter_policy *pol)
{
	_Static_assert(ARRAY_SIZE(rules_default) <= COUNTER_RULES_MAX,
		       "COUNTER_RULES_MAX too small");
	memcpy(pol->rules, rules_default, sizeof(rules_default));
	pol->n = ARRAY_SIZE(rules_default);
}

/* @pol's entries, or the built-in table's when @pol is NULL. */
static const struct counter_rule *entries(const struct counter_policy *pol, size_t *n)
{
	if (!pol)
		return counter_rules_default(n);
	*n = pol->n;
	return pol->rules;
}

/* The entry named exactly @name (or by its alias), glob or not; -1 none. */
static int entry_index(const struct counter_rule *r, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(r[i].name, name) == 0 || (r[i].alias && strcmp(r[i].alias, name) == 0))
			return (int)i;
	return -1;
}

const struct counter_rule *counter_policy_entry(const struct counter_policy *pol,
						const char *name)
{
	size_t n;
	const struct counter_rule *r = entries(pol, &n);
	int i = entry_index(r, n, name);

	return i < 0 ? NULL : &r[i];
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

const struct counter_rule *counter_policy_find(const struct counter_policy *pol, const char *name)
{
	size_t n;
	const struct counter_rule *r = entries(pol, &n), *best = NULL;
	int i = entry_index(r, n, name);

	if (i >= 0)
		return r[i].threshold == COUNTER_OFF ? NULL : &r[i];
	/* Globs: the longest pattern wins ("rx_prio*_pause_duration" over "rx_prio*_pause"). */
	for (size_t k = 0; k < n; k++)
		if (is_glob(r[k].name) && fnmatch(r[k].name, name, 0) == 0 &&
		    (!best || strlen(r[k].name) > strlen(best->name)))
			best = &r[k];
	return best && best->threshold != COUNTER_OFF ? best : NULL;
}

static int unknown_name(const struct counter_policy *pol, const struct counter_override *ov,
			struct fab_err *err)
{
	char list[768];
	size_t len = 0;

	list[0] = '\0';
	for (size_t i = 0; i < pol->n && len < sizeof(list); i++) {
		int w = str_fmt(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
				 pol->rules[i].name);

		if (w < 0)
			break;
		len += (size_t)w;
	}
	return fab_err_input(err, -EINVAL, "%s%scounters: unknown counter '%s'; valid: %s",
			     ov->where ? ov->where : "", ov->where ? ": " : "", ov->name, list);
}

int counter_policy_apply(struct counter_policy *pol, const struct counter_override *ov, size_t n,
			 struct fab_err *err)
{
	for (size_t i = 0; i < n; i++) {
		if (!ov[i].name || entry_index(pol->rules, pol->n, ov[i].name) < 0)
			return unknown_name(pol, &ov[i], err);
		if (ov[i].has_sev && !counter_sev_name(ov[i].sev))
			return fab_err_input(err, -EINVAL, "%s%scounters: %s: bad severity",
					     ov[i].where ? ov[i].where : "",
					     ov[i].where ? ": " : "", ov[i].name);
	}
	for (size_t i = 0; i < n; i++) {
		struct counter_rule *r = &pol->rules[entry_index(pol->rules, pol->n, ov[i].name)];

		if (ov[i].has_threshold)
			r->threshold = ov[i].threshold;
		if (ov[i].has_sev)
			r->sev = ov[i].sev;
		if (ov[i].has_limit)
			r->limit = ov[i].limit;
	}
	return 0;
}
