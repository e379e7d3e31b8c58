// SPDX-License-Identifier: GPL-2.0-or-later
/* Port counters as evidence (counter_eval.h). */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"
#include "model/counter_eval.h"
#include "model/ptr_index.h"
#include "util/array.h"

#define E COUNTER_SEV_ERROR
#define W COUNTER_SEV_WARN
#define I COUNTER_SEV_INFO

/*
 * The table.  Sources: the IB spec's PortCounters (errors are faults,
 * PortXmitWait is congestion: guilbaults/infiniband-exporter#12), the mlx5
 * ethtool documentation (physical-layer and buffer counters), the RDMA
 * hw_counters of mlx5 and rxe, and ROCm/cvs's rule: a rise in
 * err/drop/discard is an error, in retry/timeout/out-of-order a warning,
 * CNP/ECN rising by more than 1000 a warning.  Keep docs/diagnose.md in step.
 */
static const struct counter_rule rules_default[] = {
	/* InfiniBand PMA PortCounters / PortCountersExtended */
	{ "SymbolErrorCounter", "symbol_errors", "symbol errors on the wire (bad cable, transceiver or port)", E, 0 },
	{ "LinkErrorRecoveryCounter", "link_error_recovery", "link retrained after errors", E, 0 },
	{ "LinkDownedCounter", "link_downed", "link went down (flap)", E, 0 },
	{ "PortRcvErrors", "port_rcv_errors", "received packets with errors", E, 0 },
	{ "PortRcvRemotePhysicalErrors", "port_rcv_remote_physical_errors", "packets marked bad upstream", E, 0 },
	{ "PortXmitDiscards", "port_xmit_discards", "packets dropped on transmit (down port, congestion timeout)", E, 0 },
	{ "LocalLinkIntegrityErrors", "local_link_integrity_errors", "local physical errors over the limit", E, 0 },
	{ "ExcessiveBufferOverrunErrors", "excessive_buffer_overrun_errors", "receive buffer overruns", E, 0 },
	{ "PortRcvSwitchRelayErrors", "port_rcv_switch_relay_errors", "packets the switch could not forward", W, 0 },
	{ "PortXmitWait", "port_xmit_wait", "ticks with data to send and no credit: congestion, not an error", I, 0 },
	/* Ethernet physical layer and buffers (mlx5 ethtool -S) */
	{ "rx_pcs_symbol_err_phy", NULL, "PCS symbol errors: high bit error rate, replace the cable", E, 0 },
	{ "rx_symbol_err_phy", NULL, "symbol errors on receive", E, 0 },
	{ "rx_crc_errors_phy", NULL, "frames with bad FCS", E, 0 },
	{ "rx_discards_phy", NULL, "frames dropped for lack of receive buffer in the port", E, 0 },
	{ "tx_discards_phy", NULL, "frames dropped on transmit", E, 0 },
	{ "tx_pause_storm_error_events", NULL, "pause storm: the NIC stopped honouring pause, drops follow", E, 0 },
	{ "tx_pause_storm_warning_events", NULL, "pause frames sent continuously (storm warning)", W, 0 },
	{ "rx_buffer_passed_thres_phy", NULL, "receive buffer above 85 % full", W, 0 },
	{ "rx_prio*_pause", NULL, "PFC pause frames received on a priority (peer congested)", W, 1000 },
	{ "tx_prio*_pause", NULL, "PFC pause frames sent on a priority (this port congested)", W, 1000 },
	{ "rx_prio*_pause_duration", NULL, "time paused by the peer on a priority", I, 0 },
	{ "tx_prio*_pause_duration", NULL, "time this port paused its peer on a priority", I, 0 },
	{ "rx_pause_ctrl_phy", NULL, "global pause frames received", W, 1000 },
	{ "tx_pause_ctrl_phy", NULL, "global pause frames sent", W, 1000 },
	{ "rx_out_of_buffer", NULL, "packets dropped: no receive WQE posted (host too slow)", E, 0 },
	{ "rx_prio*_discards", NULL, "frames dropped on a priority for lack of buffer", E, 0 },
	{ "rx_prio*_buf_discard", NULL, "frames dropped on a priority's buffer", E, 0 },
	{ "rx_prio*_cong_discard", NULL, "frames dropped on a priority by congestion", E, 0 },
	{ "rx_prio*_marked", NULL, "frames ECN-marked on a priority", I, 0 },
	{ "link_down_events_phy", NULL, "link went down (flap)", E, 0 },
	{ "rx_corrected_bits_phy", NULL, "bits the FEC corrected (a weak link; rises slowly when healthy)", I, 0 },
	{ "rx_err_lane_*_phy", NULL, "symbol errors on one lane", E, 0 },
	/* Linux netdev statistics (/sys/class/net/IF/statistics, any driver) */
	{ "rx_crc_errors", NULL, "frames with bad FCS (netdev statistics)", E, 0 },
	{ "rx_frame_errors", NULL, "misaligned frames (netdev statistics)", E, 0 },
	{ "rx_length_errors", NULL, "frames with a bad length (netdev statistics)", E, 0 },
	{ "rx_errors", NULL, "receive errors of any kind (netdev statistics)", E, 0 },
	{ "tx_errors", NULL, "transmit errors of any kind (netdev statistics)", E, 0 },
	{ "rx_missed_errors", NULL, "frames the NIC had no room for (netdev statistics)", E, 0 },
	{ "rx_fifo_errors", NULL, "receive FIFO overruns (netdev statistics)", E, 0 },
	{ "rx_over_errors", NULL, "receive ring overruns (netdev statistics)", E, 0 },
	{ "tx_fifo_errors", NULL, "transmit FIFO underruns (netdev statistics)", E, 0 },
	{ "tx_carrier_errors", NULL, "carrier lost while sending (netdev statistics)", E, 0 },
	{ "rx_dropped", NULL, "packets dropped on receive (netdev statistics; also unwanted protocols)", W, 0 },
	{ "tx_dropped", NULL, "packets dropped on transmit (netdev statistics)", W, 0 },
	{ "carrier_changes", NULL, "carrier went down or up (link flap)", E, 0 },
	/* RDMA hw_counters (mlx5, rxe) */
	{ "np_cnp_sent", NULL, "CNPs sent as notification point (ECN-marked traffic arrived)", W, 1000 },
	{ "rp_cnp_handled", NULL, "CNPs handled as reaction point (rate cut)", W, 1000 },
	{ "np_ecn_marked_roce_packets", NULL, "ECN-marked RoCE packets received", W, 1000 },
	{ "out_of_sequence", NULL, "packets out of sequence (loss upstream)", W, 0 },
	{ "packet_seq_err", NULL, "NAK sequence errors received (loss)", W, 0 },
	{ "implied_nak_seq_err", NULL, "implied NAK sequence errors (loss)", W, 0 },
	{ "local_ack_timeout_err", NULL, "ACK timeouts: retransmissions", W, 0 },
	{ "duplicate_request", NULL, "duplicate requests: the peer retransmitted", W, 0 },
	{ "rnr_nak_retry_err", NULL, "RNR NAK retries exhausted", E, 0 },
	{ "req_cqe_error", NULL, "requester completions in error", E, 0 },
	{ "resp_cqe_error", NULL, "responder completions in error", E, 0 },
	{ "rx_icrc_encapsulated", NULL, "RoCE packets with bad ICRC", E, 0 },
	{ "out_of_seq_request", NULL, "rxe: requests out of sequence (loss)", W, 0 },
	{ "rcvd_seq_err", NULL, "rxe: sequence errors received (loss)", W, 0 },
	{ "completer_retry_err", NULL, "rxe: completer retried (retransmission)", W, 0 },
	{ "retry_exceeded_err", NULL, "rxe: retries exhausted, QP in error", E, 0 },
	{ "out_of_buffer", NULL, "RoCE packets dropped: no receive WQE posted (hw_counters)", E, 0 },
	{ "roce_adp_retrans", NULL, "adaptive retransmissions (loss)", W, 0 },
	{ "roce_slow_restart", NULL, "slow restarts after retransmission timeouts", W, 0 },
	{ "resp_local_length_error", NULL, "responder: message longer than the posted buffer", E, 0 },
	{ "rcvd_rnr_err", NULL, "rxe: RNR NAKs received (receiver not ready)", W, 0 },
	{ "send_rnr_err", NULL, "rxe: RNR NAKs sent", W, 0 },
	{ "retry_rnr_exceeded_err", NULL, "rxe: RNR retries exhausted, QP in error", E, 0 },
	{ "send_err", NULL, "rxe: packets the interface would not send", E, 0 },
};

#undef E
#undef W
#undef I

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

void counter_policy_default(struct counter_policy *pol)
{
	size_t n;
	const struct counter_rule *r = counter_rules_default(&n);

	_Static_assert(ARRAY_SIZE(rules_default) <= COUNTER_RULES_MAX,
		       "COUNTER_RULES_MAX too small");
	memcpy(pol->rules, r, n * sizeof(*r));
	pol->n = n;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* The rule named exactly @name (or by its alias), glob or not; -1 none. */
static int rule_by_name(const struct counter_policy *pol, const char *name)
{
	for (size_t i = 0; i < pol->n; i++) {
		const struct counter_rule *r = &pol->rules[i];

		if (strcmp(r->name, name) == 0 || (r->alias && strcmp(r->alias, name) == 0))
			return (int)i;
	}
	return -1;
}

const struct counter_rule *counter_policy_find(const struct counter_policy *pol, const char *name)
{
	int i = rule_by_name(pol, name);

	if (i >= 0)
		return &pol->rules[i];
	/* Globs: the longest pattern wins ("rx_prio*_pause_duration" over "rx_prio*_pause"). */
	const struct counter_rule *best = NULL;

	for (size_t k = 0; k < pol->n; k++) {
		const struct counter_rule *r = &pol->rules[k];

		if (is_glob(r->name) && fnmatch(r->name, name, 0) == 0 &&
		    (!best || strlen(r->name) > strlen(best->name)))
			best = r;
	}
	return best;
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
		if (!ov[i].name || rule_by_name(pol, ov[i].name) < 0)
			return unknown_name(pol, &ov[i], err);
		if (ov[i].has_sev && !counter_sev_name(ov[i].sev))
			return fab_err_input(err, -EINVAL, "%s%scounters: %s: bad severity",
					     ov[i].where ? ov[i].where : "",
					     ov[i].where ? ": " : "", ov[i].name);
	}
	for (size_t i = 0; i < n; i++) {
		struct counter_rule *r = &pol->rules[rule_by_name(pol, ov[i].name)];

		if (ov[i].has_threshold)
			r->threshold = ov[i].threshold;
		if (ov[i].has_sev)
			r->sev = ov[i].sev;
	}
	return 0;
}

void counter_snap_init(struct counter_snap *s)
{
	memset(s, 0, sizeof(*s));
}

void counter_snap_fini(struct counter_snap *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int counter_snap_add(struct counter_snap *s, const struct topo_port *port, const char *name,
		     uint64_t value)
{
	if (array_reserve((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0)
		return -ENOMEM;
	struct counter_sample *c = &s->v[s->n++];

	c->port = port;
	str_fmt(c->name, sizeof(c->name), "%s", name);
	c->value = value;
	return 0;
}

int counter_snap_add_topo_port(struct counter_snap *s, const struct topo_port *port)
{
	return counter_snap_add_port_as(s, port, port);
}

int counter_snap_add_port_as(struct counter_snap *s, const struct topo_port *port,
			     const struct topo_port *from)
{
	if (!(from->facts & TOPO_F_COUNTERS))
		return 0;
	for (int c = 0; c < TOPO_CNT_MAX; c++) {
		int rc = counter_snap_add(s, port, topo_counter_name(c), from->counters[c]);

		if (rc)
			return rc;
	}
	return 0;
}

void counter_report_fini(struct counter_report *r)
{
	free(r->findings);
	free(r->ports);
	memset(r, 0, sizeof(*r));
}

static int sample_cmp(const void *x, const void *y)
{
	const struct counter_sample *a = *(const struct counter_sample *const *)x;
	const struct counter_sample *b = *(const struct counter_sample *const *)y;
	uintptr_t pa = (uintptr_t)a->port, pb = (uintptr_t)b->port;

	if (pa != pb)
		return pa < pb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static const struct counter_sample **sorted_view(const struct counter_snap *s)
{
	const struct counter_sample **v = malloc((s->n ? s->n : 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		v[i] = &s->v[i];
	qsort(v, s->n, sizeof(*v), sample_cmp);
	return v;
}

/* The port's entry in r->ports (the last one, since ports come grouped). */
static struct counter_port_read *port_entry(struct counter_report *r, const struct ptr_index *ix,
					   const struct topo_port *port, size_t cap)
{
	if (r->n_ports && r->ports[r->n_ports - 1].port == port)
		return &r->ports[r->n_ports - 1];
	if (r->n_ports == cap)
		return NULL;
	struct counter_port_read *p = &r->ports[r->n_ports++];

	p->port = port;
	size_t li = ptr_index_find(ix, port ? port->link : NULL);

	p->link = li == SIZE_MAX ? COUNTER_NO_LINK : (uint32_t)li;
	p->compared = 0;
	return p;
}

int counter_eval(const struct topo *t, const struct counter_policy *pol,
		 const struct counter_snap *before, const struct counter_snap *after,
		 struct counter_report *out)
{
	struct counter_policy def;
	struct counter_report r = { 0 };
	const struct counter_sample **vb = NULL, **va = NULL;
	struct ptr_index ix = { 0 };
	int rc = ptr_index_init(&ix, t->n_links);

	if (!pol) {
		counter_policy_default(&def);
		pol = &def;
	}
	vb = sorted_view(before);
	va = sorted_view(after);
	r.findings = malloc((after->n ? after->n : 1) * sizeof(*r.findings));
	r.ports = malloc((after->n ? after->n : 1) * sizeof(*r.ports));
	if (rc || !vb || !va || !r.findings || !r.ports) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < t->n_links; i++)
		ptr_index_set(&ix, i, t->links[i]);
	ptr_index_sort(&ix);
	for (size_t i = 0; i < after->n; i++) {
		const struct counter_sample *a = va[i], **bp;
		const struct counter_rule *rule = counter_policy_find(pol, a->name);

		if (!rule) {
			r.n_unknown++;
			continue;
		}
		bp = bsearch(&a, vb, before->n, sizeof(*vb), sample_cmp);
		if (!bp) {
			r.n_absent++;
			continue;
		}
		struct counter_port_read *pr = port_entry(&r, &ix, a->port, after->n);

		pr->compared++;
		const struct counter_sample *b = *bp;
		bool reset = a->value < b->value;
		uint64_t delta = reset ? 0 : a->value - b->value;

		if (!reset && delta <= rule->threshold)
			continue;
		struct counter_finding *f = &r.findings[r.n_findings++];

		f->port = a->port;
		f->link = pr->link;
		str_fmt(f->name, sizeof(f->name), "%s", a->name);
		f->before = b->value;
		f->after = a->value;
		f->delta = delta;
		f->threshold = rule->threshold;
		f->sev = reset ? COUNTER_SEV_INFO : rule->sev;
		f->reset = reset;
	}
	/* Known samples present only in @before are absent too. */
	for (size_t i = 0; i < before->n; i++)
		if (counter_policy_find(pol, vb[i]->name) &&
		    !bsearch(&vb[i], va, after->n, sizeof(*va), sample_cmp))
			r.n_absent++;
	*out = r;
	memset(&r, 0, sizeof(r));
	rc = 0;
out:
	counter_report_fini(&r);
	ptr_index_fini(&ix);
	free(vb);
	free(va);
	return rc;
}
