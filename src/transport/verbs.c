// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Verbs transport: one RC queue pair per test, RDMA-write ping-pong
 * latency and RDMA-write bandwidth, in the manner of perftest's
 * ib_write_lat and ib_write_bw (docs/verbs.md); see transport.h for the
 * five steps.
 *
 * Each side registers one buffer:
 *
 *   [lat slot: lat_bytes][bw slot: bw_bytes]  remotely writable, published
 *   [lat source][control receive slots][control send slots]   local only
 *
 * and publishes its QP (LID, QPN, PSN, GID, rkey, addr, slot sizes, MTU
 * and the sweep's token) through the controller; the GID is the port's
 * RoCE v2 entry that carries the node's address, looked up again for every
 * connection (verbs_gid.h).  On InfiniBand the peer is addressed by LID.
 *
 * Token: checked twice.  The endpoint relayed by the controller carries
 * it, and a side refuses to connect its QP to an endpoint with another
 * token; then the first message on the data path (the client's HELLO
 * SEND) carries it again, and the server serves nothing until it matches
 * (the server's READY answers with it too).
 *
 * On the data path, after HELLO/READY (SEND/RECV, 64-byte messages):
 *   latency   the client writes msg_bytes into the server's lat slot and
 *             polls the last byte of its own lat slot; the server polls
 *             its slot and writes back (the last byte carries the
 *             iteration number).  Warm-up round trips are not timed.
 *   fwd bw    the client keeps tx_depth writes of bw_bytes outstanding,
 *             one in cq_mod signalled, for duration_ms, timing
 *             completions after a warm-up window; then sends FWD_DONE.
 *   rev bw    the same from the server, which sends its figures in
 *             REV_DONE.
 *   BYE       from the client: the server is done.
 * The side that only receives waits on a completion channel (poll() with
 * the cancel fd and the deadline); the active side busy-polls like
 * perftest, but after spin_ns without progress it yields (latency) or
 * sleeps on the completion channel (bandwidth), so that Soft-RoCE and the
 * peer get the CPU on a crowded host.  Every wait is bounded by
 * spec.timeout_ms and the cancel fd.
 *
 * Knobs that perftest has come in the spec (struct tp_verbs_tuning, sweep
 * --verbs-bw-bytes, --verbs-tx-depth, --verbs-cq-mod, --verbs-spin-us):
 * spin_us is how long a wait spins before it yields (latency) or sleeps on
 * the completion channel (bandwidth).  The bandwidth message is the
 * smaller of both sides' bw slots.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/random.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "transport/tp_util.h"
#include "transport/transport.h"
#include "transport/verbs_gid.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/log.h"

#define VB_MAGIC 0x46414256u		/* "FABV" */
#define VB_CTRL_BYTES 64
#define VB_RECV_SLOTS 8
#define VB_SEND_SLOTS 4
#define VB_LAT_MAX_BYTES (1024 * 1024)
#define VB_LAT_SIGNAL 16		/* one latency write in 16 signalled */
#define VB_INLINE_BYTES 220
#define VB_CHECK_NS 5000000ull		/* cancel/deadline checks while spinning */
#define VERBS_FLOW_LABEL_ENV "FABRICCTL_VERBS_FLOW_LABEL"	/* 0: the plan's labels not used (tests) */

enum vb_msg {
	VB_HELLO = 1,
	VB_READY,
	VB_FWD_DONE,
	VB_REV_DONE,
	VB_BYE,
};

/* wr_id: kind in the top byte, a count or slot below. */
#define WR_KIND(id) ((id) >> 56)
#define WR_VAL(id) ((id) & 0x00ffffffffffffffull)
#define WR_ID(kind, val) ((uint64_t)(kind) << 56 | (uint64_t)(val))
enum { WR_RECV = 1, WR_CTRL, WR_DATA, WR_LAT };

struct vb_ctrl {
	uint32_t magic;
	uint32_t type;
	uint8_t token[TP_TOKEN_LEN];
	uint64_t fig[5];
};
_Static_assert(sizeof(struct vb_ctrl) <= VB_CTRL_BYTES, "control message too big");

struct tp_session {
	bool server;
	struct tp_params p;
	char dev[64];
	char local_addr[48];
	unsigned int port;
	unsigned int bw_bytes, tx_depth, cq_mod, lat_bytes;
	uint64_t spin_ns;		/* pure spinning before yielding / sleeping */

	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned char *buf;
	size_t buf_len;
	unsigned char *lat, *bw, *lat_src, *rcv, *snd;
	unsigned int max_inline;
	unsigned int send_slot;

	bool ethernet;
	/*
	 * RoCE v2: the GID in use is of type RoCE v2 (checked with verbs at
	 * connect), so packets are UDP and have a source port (flow label,
	 * pairs[].udp_sport).  RoCE v1 (Ethernet, no IP, no UDP) and
	 * InfiniBand never are.
	 */
	bool roce_v2;
	enum ibv_mtu mtu;
	struct verbs_ep me, peer;
	uint32_t flow_label;		/* GRH flow label of our QP (RoCE); 0: the kernel's */
	bool plan_ignored;		/* VERBS_FLOW_LABEL_ENV=0: the plan's labels not used */
	bool connected;
	unsigned int msg_bytes;		/* bandwidth message: min of both sides */

	/* completion bookkeeping */
	uint64_t data_done;		/* data writes completed (signalled counts) */
	uint64_t ctrl_done;		/* control sends completed */
	uint64_t ctrl_posted;
	struct vb_ctrl rq[VB_RECV_SLOTS];	/* received, not yet consumed */
	unsigned int rq_head, rq_len;
	unsigned int cq_events;
};

/* ---- small helpers ---- */

static unsigned int mtu_bytes(enum ibv_mtu m)
{
	return 128u << m;
}

static enum ibv_mtu mtu_enum(unsigned int bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	default: return IBV_MTU_4096;
	}
}

/* "verbs: rxe0: port 1: " prefix for every message about the device. */
#define VB_ERR(s, err, code, fmt, ...) \
	fab_err_set(err, code, "verbs: %s: port %u: " fmt, (s)->dev, (s)->port, ##__VA_ARGS__)

static int wc_errno(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_RETRY_EXC_ERR:
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return -ETIMEDOUT;
	case IBV_WC_REM_ACCESS_ERR:
	case IBV_WC_LOC_PROT_ERR:
		return -EACCES;
	case IBV_WC_WR_FLUSH_ERR:
		return -ECONNRESET;
	default:
		return -EIO;
	}
}

/* ---- completions ---- */

static int post_recv(struct tp_session *s, unsigned int slot, struct fab_err *err)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(s->rcv + slot * VB_CTRL_BYTES),
		.length = VB_CTRL_BYTES,
		.lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = WR_ID(WR_RECV, slot), .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int rc = ibv_post_recv(s->qp, &wr, &bad);

	if (rc)
		return VB_ERR(s, err, -rc, "post receive: %s", strerror(rc));
	return 0;
}

/* Reap what the CQ has; returns the number of completions or -errno. */
static int cq_reap(struct tp_session *s, struct fab_err *err)
{
	struct ibv_wc wc[16];
	int n = ibv_poll_cq(s->cq, 16, wc), rc;

	if (n < 0)
		return VB_ERR(s, err, -EIO, "poll cq failed");
	for (int i = 0; i < n; i++) {
		uint64_t kind = WR_KIND(wc[i].wr_id), val = WR_VAL(wc[i].wr_id);

		if (wc[i].status != IBV_WC_SUCCESS)
			return VB_ERR(s, err, wc_errno(wc[i].status),
				      "%s completion: %s (vendor error 0x%x)",
				      kind == WR_RECV ? "receive" : kind == WR_CTRL ? "send" : "rdma write",
				      ibv_wc_status_str(wc[i].status), wc[i].vendor_err);
		switch (kind) {
		case WR_RECV: {
			unsigned int slot = (unsigned int)val;
			struct vb_ctrl *m;

			if (s->rq_len == VB_RECV_SLOTS)
				return VB_ERR(s, err, -EPROTO, "peer sent too many control messages");
			m = &s->rq[(s->rq_head + s->rq_len) % VB_RECV_SLOTS];
			memset(m, 0, sizeof(*m));
			if (wc[i].byte_len >= sizeof(*m))
				memcpy(m, s->rcv + slot * VB_CTRL_BYTES, sizeof(*m));
			s->rq_len++;
			rc = post_recv(s, slot, err);
			if (rc < 0)
				return rc;
			break;
		}
		case WR_CTRL:
			s->ctrl_done++;
			break;
		case WR_DATA:
			s->data_done += val;
			break;
		default:
			break;	/* WR_LAT: only frees send queue slots */
		}
	}
	return n;
}

/*
 * Block (completion channel) until the CQ has something, @deadline_ns or
 * a cancel.  Completions are reaped by the caller.
 */
static int cq_block(struct tp_session *s, int cancel_fd, uint64_t deadline_ns,
		    struct fab_err *err)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int rc;

	rc = ibv_req_notify_cq(s->cq, 0);
	if (rc)
		return VB_ERR(s, err, -rc, "arm cq: %s", strerror(rc));
	/* Something may have arrived before the CQ was armed. */
	rc = cq_reap(s, err);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	rc = tp_wait_fd(s->chan->fd, POLLIN, cancel_fd, deadline_ns);
	if (rc == -ECANCELED)
		return fab_err_set(err, rc, "verbs: cancelled");
	if (rc < 0 && rc != -ETIMEDOUT)
		return VB_ERR(s, err, rc, "poll: %s", strerror(-rc));
	if (rc < 0)
		return rc;
	if (ibv_get_cq_event(s->chan, &ev_cq, &ev_ctx) == 0)
		ibv_ack_cq_events(ev_cq, 1);
	return 0;
}

/* Post a control message (signalled SEND). */
static int ctrl_send(struct tp_session *s, enum vb_msg type, const uint64_t *fig,
		     struct fab_err *err)
{
	unsigned char *slot = s->snd + (s->send_slot++ % VB_SEND_SLOTS) * VB_CTRL_BYTES;
	struct vb_ctrl m = { .magic = VB_MAGIC, .type = type };
	struct ibv_sge sge = { .addr = (uintptr_t)slot, .length = VB_CTRL_BYTES,
			       .lkey = s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = WR_ID(WR_CTRL, 0), .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	int rc;

	memcpy(m.token, s->p.token, TP_TOKEN_LEN);
	if (fig)
		memcpy(m.fig, fig, sizeof(m.fig));
	memset(slot, 0, VB_CTRL_BYTES);
	memcpy(slot, &m, sizeof(m));
	rc = ibv_post_send(s->qp, &wr, &bad);
	if (rc)
		return VB_ERR(s, err, -rc, "post send: %s", strerror(rc));
	s->ctrl_posted++;
	return 0;
}

static const char *msg_name(uint32_t t)
{
	static const char *names[] = { "?", "hello", "ready", "fwd-done", "rev-done", "bye" };

	return t < ARRAY_SIZE(names) ? names[t] : "?";
}

/* Reap the CQ, or block until it has something: 0, or -errno (-ETIMEDOUT left to the caller). */
static int cq_progress(struct tp_session *s, int cancel_fd, uint64_t deadline_ns,
		       struct fab_err *err)
{
	int rc = cq_reap(s, err);

	if (rc != 0)
		return rc < 0 ? rc : 0;
	return cq_block(s, cancel_fd, deadline_ns, err);
}

/* Wait for the next control message, which must be @type with our token. */
static int ctrl_wait(struct tp_session *s, enum vb_msg type, struct vb_ctrl *out, int cancel_fd,
		     uint64_t deadline_ns, struct fab_err *err)
{
	struct vb_ctrl *m;
	int rc;

	while (!s->rq_len) {
		rc = cq_progress(s, cancel_fd, deadline_ns, err);
		if (rc == -ETIMEDOUT)
			return VB_ERR(s, err, rc, "no %s from the peer in time", msg_name(type));
		if (rc < 0)
			return rc;
	}
	m = &s->rq[s->rq_head];
	s->rq_head = (s->rq_head + 1) % VB_RECV_SLOTS;
	s->rq_len--;
	if (m->magic != VB_MAGIC || !tp_token_equal(m->token, s->p.token))
		return VB_ERR(s, err, -EACCES, "peer did not present the sweep's token");
	if (m->type != type)
		return VB_ERR(s, err, -EPROTO, "want %s from the peer, got %s", msg_name(type),
			      msg_name(m->type));
	if (out)
		*out = *m;
	return 0;
}

/* Wait until every control send posted so far has completed. */
static int ctrl_flush(struct tp_session *s, int cancel_fd, uint64_t deadline_ns,
		      struct fab_err *err)
{
	int rc;

	while (s->ctrl_done < s->ctrl_posted) {
		rc = cq_progress(s, cancel_fd, deadline_ns, err);
		if (rc == -ETIMEDOUT)
			return VB_ERR(s, err, rc, "peer did not acknowledge a control message");
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- open, connect, close ---- */

static void session_free(struct tp_session *s)
{
	if (!s)
		return;
	if (s->qp)
		ibv_destroy_qp(s->qp);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->chan)
		ibv_destroy_comp_channel(s->chan);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ctx)
		ibv_close_device(s->ctx);
	free(s->buf);
	free(s);
}

static int device_open(struct tp_session *s, struct fab_err *err)
{
	struct ibv_device **list;
	int n = 0, rc = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return VB_ERR(s, err, errno ? -errno : -ENODEV, "no rdma devices: %s",
			      strerror(errno ? errno : ENODEV));
	for (int i = 0; i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), s->dev) == 0) {
			s->ctx = ibv_open_device(list[i]);
			if (!s->ctx)
				rc = VB_ERR(s, err, errno ? -errno : -ENODEV, "open: %s",
					    strerror(errno ? errno : ENODEV));
			break;
		}
	if (!s->ctx && rc == 0)
		rc = VB_ERR(s, err, -ENODEV, "no such rdma device");
	ibv_free_device_list(list);
	return rc;
}

/* Port state, link layer, the address's GID (RoCE) or LID (IB). */
static int port_resolve(struct tp_session *s, struct fab_err *err)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry ge;
	union ibv_gid g;
	unsigned int idx;
	int rc;

	rc = ibv_query_port(s->ctx, (uint8_t)s->port, &pa);
	if (rc)
		return VB_ERR(s, err, -rc, "query port: %s", strerror(rc));
	if (pa.state != IBV_PORT_ACTIVE)
		return VB_ERR(s, err, -ENETDOWN, "port is %s, not active",
			      ibv_port_state_str(pa.state));
	s->mtu = pa.active_mtu;
	s->ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	s->me.mtu_bytes = mtu_bytes(pa.active_mtu);
	if (s->ethernet) {
		rc = verbs_gid_find(NULL, s->dev, s->port, s->local_addr, &idx, s->me.gid, err);
		if (rc < 0)
			return rc;
		/*
		 * The table may change under us (bond failover): check with
		 * verbs, the type too (the same GID sits at one index as
		 * RoCE v1 and at the next as RoCE v2; a renumbered table can
		 * put the v1 entry where sysfs showed the v2 one).
		 */
		rc = ibv_query_gid_ex(s->ctx, (uint32_t)s->port, idx, &ge, 0);
		if (rc)
			return VB_ERR(s, err, rc > 0 ? -rc : -EIO, "query gid %u failed", idx);
		rc = verbs_gid_recheck(s->dev, s->port, idx, s->me.gid, ge.gid.raw,
				       ge.gid_type == IBV_GID_TYPE_ROCE_V2, s->local_addr, err);
		if (rc < 0)
			return rc;
		s->roce_v2 = true;
		s->me.gid_index = (int)idx;
		s->me.lid = 0;
	} else {
		if (pa.lid == 0)
			return VB_ERR(s, err, -ENETDOWN, "no lid (is a subnet manager running?)");
		s->me.lid = pa.lid;
		s->me.gid_index = 0;
		if (ibv_query_gid(s->ctx, (uint8_t)s->port, 0, &g) == 0)
			memcpy(s->me.gid, g.raw, 16);
	}
	fab_info("verbs: %s: port %u: %s %s, gid index %d, mtu %u", s->dev, s->port,
		 s->ethernet ? "roce" : "ib lid", s->ethernet ? s->local_addr : "",
		 s->me.gid_index, s->me.mtu_bytes);
	return 0;
}

/* Is environment variable @name set to "0"? */
static bool env_is_zero(const char *name)
{
	const char *v = getenv(name);

	return v && !strcmp(v, "0");
}

/* A session's parameters and tuning, before any verbs object exists. */
static int session_params(struct tp_session *s, const struct tp_params *p, bool server,
			  struct fab_err *err)
{
	s->server = server;
	s->p = *p;
	snprintf(s->local_addr, sizeof(s->local_addr), "%s", p->local_addr ? p->local_addr : "");
	s->p.local_addr = s->local_addr;
	snprintf(s->dev, sizeof(s->dev), "%s", p->dev ? p->dev : "");
	s->p.dev = s->dev;
	s->port = p->dev_port ? p->dev_port : 1;
	s->me.gid_index = -1;
	if (!*s->dev)
		return fab_err_set(err, -EINVAL, "verbs: %s: no rdma device (give rdma=DEV in the "
				   "hosts file)", s->local_addr);
	if (s->port > 255)
		return fab_err_set(err, -EINVAL, "verbs: %s: bad port %u", s->dev, s->port);
	s->lat_bytes = s->p.spec.msg_bytes ? s->p.spec.msg_bytes : 2;
	if (s->lat_bytes > VB_LAT_MAX_BYTES)
		s->lat_bytes = VB_LAT_MAX_BYTES;
	if (s->p.spec.interval_ms == 0)
		s->p.spec.interval_ms = 100;
	/* 0: the default (struct tp_verbs_tuning). */
	s->bw_bytes = s->p.spec.verbs.bw_bytes ? s->p.spec.verbs.bw_bytes : 65536;
	s->tx_depth = s->p.spec.verbs.tx_depth ? s->p.spec.verbs.tx_depth : 128;
	s->cq_mod = s->p.spec.verbs.cq_mod ? s->p.spec.verbs.cq_mod : 32;
	if (s->bw_bytes > VERBS_EP_MAX_REGION)
		return fab_err_set(err, -EINVAL, "verbs: bw_bytes %u larger than %u", s->bw_bytes,
				   VERBS_EP_MAX_REGION);
	if (s->cq_mod > s->tx_depth)
		s->cq_mod = s->tx_depth;
	s->spin_ns = s->p.spec.verbs.spin_us * 1000ull;
	/* The client's QP sends a -> b (sport_fwd), the server's b -> a. */
	s->flow_label = verbs_sport_flow_label(server ? s->p.spec.sport_rev : s->p.spec.sport_fwd);
	/*
	 * A test setting (docs/paths.md "RoCE v2"): this worker's QPs keep the
	 * kernel's label, as a worker that does not steer would, and its
	 * record says so for both QPs (its peer is started the same way), so
	 * the controller's check of the recorded ports sees the plan ignored.
	 */
	s->plan_ignored = env_is_zero(VERBS_FLOW_LABEL_ENV);
	if (s->plan_ignored)
		s->flow_label = 0;
	return 0;
}

/* One registered buffer: lat slot, bw slot (remote), lat source, control slots. */
static int session_buffer(struct tp_session *s, struct fab_err *err)
{
	size_t lat_room = (s->lat_bytes + 63) & ~(size_t)63;
	size_t bw_room = (s->bw_bytes + 63) & ~(size_t)63;

	s->buf_len = lat_room + bw_room + lat_room +
		     (VB_RECV_SLOTS + VB_SEND_SLOTS) * VB_CTRL_BYTES;
	if (posix_memalign((void **)&s->buf, 4096, s->buf_len))
		return fab_err_set(err, -ENOMEM, "verbs: out of memory");
	memset(s->buf, 0, s->buf_len);
	s->lat = s->buf;
	s->bw = s->lat + lat_room;
	s->lat_src = s->bw + bw_room;
	s->rcv = s->lat_src + lat_room;
	s->snd = s->rcv + VB_RECV_SLOTS * VB_CTRL_BYTES;
	memset(s->bw, 0xa5, s->bw_bytes);

	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd)
		return VB_ERR(s, err, errno ? -errno : -ENOMEM, "alloc pd: %s", strerror(errno));
	s->mr = ibv_reg_mr(s->pd, s->buf, s->buf_len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!s->mr)
		return VB_ERR(s, err, errno ? -errno : -ENOMEM, "register %zu bytes: %s",
			      s->buf_len, strerror(errno));
	return 0;
}

/* The completion channel, the CQ and the RC QP. */
static int session_queues(struct tp_session *s, struct fab_err *err)
{
	unsigned int send_wr = s->tx_depth + VB_LAT_SIGNAL + VB_SEND_SLOTS + 4;
	struct ibv_qp_init_attr qia;

	s->chan = ibv_create_comp_channel(s->ctx);
	if (!s->chan)
		return VB_ERR(s, err, errno ? -errno : -ENOMEM, "completion channel: %s",
			      strerror(errno));
	fcntl(s->chan->fd, F_SETFL, fcntl(s->chan->fd, F_GETFL) | O_NONBLOCK);
	s->cq = ibv_create_cq(s->ctx, (int)(send_wr + VB_RECV_SLOTS + 4), NULL, s->chan, 0);
	if (!s->cq)
		return VB_ERR(s, err, errno ? -errno : -ENOMEM, "create cq: %s", strerror(errno));
	memset(&qia, 0, sizeof(qia));
	qia.send_cq = s->cq;
	qia.recv_cq = s->cq;
	qia.qp_type = IBV_QPT_RC;
	qia.sq_sig_all = 0;
	qia.cap.max_send_wr = send_wr;
	qia.cap.max_recv_wr = VB_RECV_SLOTS;
	qia.cap.max_send_sge = 1;
	qia.cap.max_recv_sge = 1;
	qia.cap.max_inline_data = VB_INLINE_BYTES;
	s->qp = ibv_create_qp(s->pd, &qia);
	if (!s->qp) {
		/* Some devices take no inline data: fall back to none. */
		qia.cap.max_inline_data = 0;
		s->qp = ibv_create_qp(s->pd, &qia);
	}
	if (!s->qp)
		return VB_ERR(s, err, errno ? -errno : -ENOMEM, "create rc qp: %s", strerror(errno));
	s->max_inline = qia.cap.max_inline_data;
	return 0;
}

/* QP to INIT, receives posted, and this side's endpoint filled in. */
static int session_qp_init(struct tp_session *s, struct fab_err *err)
{
	struct ibv_qp_attr qa;
	uint32_t psn = 0;
	int rc;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.pkey_index = 0;
	qa.port_num = (uint8_t)s->port;
	qa.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	rc = ibv_modify_qp(s->qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			   IBV_QP_ACCESS_FLAGS);
	if (rc)
		return VB_ERR(s, err, -rc, "qp to init: %s", strerror(rc));
	for (unsigned int i = 0; i < VB_RECV_SLOTS; i++) {
		rc = post_recv(s, i, err);
		if (rc < 0)
			return rc;
	}
	if (getrandom(&psn, sizeof(psn), 0) != sizeof(psn))
		psn = (uint32_t)clock_mono_ns();
	s->me.qpn = s->qp->qp_num;
	s->me.psn = psn & 0xffffff;
	s->me.rkey = s->mr->rkey;
	s->me.addr = (uintptr_t)s->lat;
	s->me.lat_bytes = (uint32_t)s->lat_bytes;
	s->me.bw_bytes = (uint32_t)s->bw_bytes;
	memcpy(s->me.token, s->p.token, TP_TOKEN_LEN);
	return 0;
}

static int session_open(const struct tp_params *p, bool server, struct tp_session **out,
			struct fab_err *err)
{
	/* In order; each step's objects are freed by session_free(). */
	static int (*const steps[])(struct tp_session *s, struct fab_err *err) = {
		device_open, port_resolve, session_buffer, session_queues, session_qp_init,
	};
	struct tp_session *s;
	int rc;

	s = calloc(1, sizeof(*s));
	if (!s)
		return fab_err_set(err, -ENOMEM, "verbs: out of memory");
	rc = session_params(s, p, server, err);
	for (size_t i = 0; rc == 0 && i < ARRAY_SIZE(steps); i++)
		rc = steps[i](s, err);
	if (rc < 0)
		goto out;
	*out = s;
	s = NULL;
out:
	session_free(s);
	return rc;
}

/* Take the peer's endpoint and move our QP to RTR and RTS. */
static int session_connect(struct tp_session *s, const json_t *peer, struct fab_err *err)
{
	struct ibv_qp_attr qa;
	int rc;

	rc = verbs_ep_from_json(peer, &s->peer, err);
	if (rc < 0)
		return rc;
	if (!tp_token_equal(s->peer.token, s->p.token))
		return VB_ERR(s, err, -EACCES, "peer endpoint does not carry the sweep's token");
	if (s->peer.lat_bytes < s->lat_bytes)
		return VB_ERR(s, err, -EPROTO, "peer's latency slot (%u bytes) is smaller than the "
			      "message (%u bytes)", s->peer.lat_bytes, s->lat_bytes);
	if (!s->ethernet && s->peer.lid == 0)
		return VB_ERR(s, err, -EPROTO, "infiniband port but the peer has no lid");
	s->msg_bytes = s->bw_bytes < s->peer.bw_bytes ? s->bw_bytes : s->peer.bw_bytes;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = s->mtu < mtu_enum(s->peer.mtu_bytes) ? s->mtu : mtu_enum(s->peer.mtu_bytes);
	qa.dest_qp_num = s->peer.qpn;
	qa.rq_psn = s->peer.psn;
	qa.max_dest_rd_atomic = 1;
	qa.min_rnr_timer = 12;
	qa.ah_attr.port_num = (uint8_t)s->port;
	qa.ah_attr.sl = 0;
	if (s->ethernet) {
		qa.ah_attr.is_global = 1;
		memcpy(qa.ah_attr.grh.dgid.raw, s->peer.gid, 16);
		qa.ah_attr.grh.sgid_index = (uint8_t)s->me.gid_index;
		qa.ah_attr.grh.hop_limit = 64;
		qa.ah_attr.grh.traffic_class = 0;
		qa.ah_attr.grh.flow_label = s->flow_label;
	} else {
		qa.ah_attr.dlid = (uint16_t)s->peer.lid;
	}
	rc = ibv_modify_qp(s->qp, &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			   IBV_QP_MIN_RNR_TIMER);
	if (rc)
		return VB_ERR(s, err, -rc, "qp to rtr (peer qpn %u): %s", s->peer.qpn, strerror(rc));
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.timeout = 14;	/* 4.096 us * 2^14 = 67 ms per try */
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.sq_psn = s->me.psn;
	qa.max_rd_atomic = 1;
	rc = ibv_modify_qp(s->qp, &qa, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (rc)
		return VB_ERR(s, err, -rc, "qp to rts: %s", strerror(rc));
	s->connected = true;
	fab_info("verbs: %s: port %u: qpn %u connected to qpn %u, bw message %u bytes", s->dev,
		 s->port, s->me.qpn, s->peer.qpn, s->msg_bytes);
	if (s->roce_v2)
		fab_info("verbs: %s: port %u: qpn %u: flow label %u: RoCE v2 UDP source port %u",
			 s->dev, s->port, s->me.qpn, s->flow_label,
			 verbs_udp_sport(s->flow_label, s->me.qpn, s->peer.qpn));
	return 0;
}

/*
 * The UDP source ports of both QPs (RoCE v2): ours from our label, the
 * server's from the label the same plan gives it (session_params()).
 */
static void session_sports(const struct tp_session *s, struct tp_result *res)
{
	uint32_t fl_rev = s->plan_ignored ? 0 : verbs_sport_flow_label(s->p.spec.sport_rev);

	if (!s->roce_v2)	/* IB, RoCE v1: no UDP */
		return;
	res->sport_fwd = verbs_udp_sport(s->flow_label, s->me.qpn, s->peer.qpn);
	res->sport_rev = verbs_udp_sport(fl_rev, s->peer.qpn, s->me.qpn);
}

static int endpoint_out(struct tp_session *s, json_t **endpoint, struct fab_err *err)
{
	*endpoint = verbs_ep_to_json(&s->me);
	if (!*endpoint)
		return fab_err_set(err, -ENOMEM, "verbs: out of memory");
	return 0;
}

/* A session with its endpoint for the peer; a client's is connected to @peer first. */
static int session_start(const struct tp_params *p, bool server, const json_t *peer,
			 struct tp_session **out, json_t **endpoint, struct fab_err *err)
{
	struct tp_session *s = NULL;
	int rc;

	rc = session_open(p, server, &s, err);
	if (rc < 0)
		return rc;
	if (!server)
		rc = session_connect(s, peer, err);
	if (rc == 0)
		rc = endpoint_out(s, endpoint, err);
	if (rc < 0) {
		session_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

static int verbs_server_open(const struct tp_params *p, struct tp_session **out,
			     json_t **endpoint, struct fab_err *err)
{
	return session_start(p, true, NULL, out, endpoint, err);
}

static int verbs_client_open(const struct tp_params *p, const json_t *peer,
			     struct tp_session **out, json_t **endpoint, struct fab_err *err)
{
	return session_start(p, false, peer, out, endpoint, err);
}

static int verbs_server_peer(struct tp_session *s, const json_t *peer, struct fab_err *err)
{
	return session_connect(s, peer, err);
}

/* ---- latency: RDMA-write ping-pong, polling the last byte ---- */

static int lat_post(struct tp_session *s, unsigned int i, struct fab_err *err)
{
	struct ibv_sge sge = { .addr = (uintptr_t)s->lat_src, .length = s->lat_bytes,
			       .lkey = s->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = s->peer.addr, .rkey = s->peer.rkey },
	};
	struct ibv_send_wr *bad;
	int rc;

	if (i % VB_LAT_SIGNAL == VB_LAT_SIGNAL - 1) {
		wr.send_flags |= IBV_SEND_SIGNALED;
		wr.wr_id = WR_ID(WR_LAT, VB_LAT_SIGNAL);
	}
	if (s->lat_bytes <= s->max_inline)
		wr.send_flags |= IBV_SEND_INLINE;
	s->lat_src[s->lat_bytes - 1] = (uint8_t)(i + 1);
	rc = ibv_post_send(s->qp, &wr, &bad);
	if (rc)
		return VB_ERR(s, err, -rc, "post rdma write: %s", strerror(rc));
	return 0;
}

/*
 * Spin until the last byte of our lat slot is @want.  After spin_ns of
 * pure spinning (more than a hardware round trip) the loop yields the CPU
 * between polls, so that on a host with fewer CPUs than spinning
 * processes (a VM, an oversubscribed node) the peer and the kernel's
 * Soft-RoCE work get to run at once instead of at the next timer tick.
 */
static int lat_spin(struct tp_session *s, uint8_t want, int cancel_fd, uint64_t deadline_ns,
		    struct fab_err *err)
{
	volatile uint8_t *last = s->lat + s->lat_bytes - 1;
	uint64_t t0 = clock_mono_ns(), next_check = t0 + VB_CHECK_NS;
	unsigned int spins = 0;
	int rc;

	while (*last != want) {
		uint64_t now;

		if ((++spins & 255) != 0)
			continue;
		rc = cq_reap(s, err);
		if (rc < 0)
			return rc;
		now = clock_mono_ns();
		if (now - t0 > s->spin_ns)
			sched_yield();
		if (now >= next_check) {
			if (now >= deadline_ns)
				return VB_ERR(s, err, -ETIMEDOUT, "latency: peer stalled");
			if (tp_cancelled(cancel_fd))
				return fab_err_set(err, -ECANCELED, "verbs: cancelled");
			next_check = now + VB_CHECK_NS;
		}
	}
	return 0;
}

static unsigned int lat_warmup(unsigned int iters)
{
	unsigned int warm = iters / 10;

	return warm > 1000 ? 1000 : warm;
}

static int lat_serve(struct tp_session *s, int cancel_fd, uint64_t deadline_ns,
		     struct fab_err *err)
{
	unsigned int total = s->p.spec.lat_iters + lat_warmup(s->p.spec.lat_iters);
	int rc;

	for (unsigned int i = 0; i < total; i++) {
		rc = lat_spin(s, (uint8_t)(i + 1), cancel_fd, deadline_ns, err);
		if (rc < 0)
			return rc;
		rc = lat_post(s, i, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int lat_client(struct tp_session *s, int cancel_fd, uint64_t deadline_ns,
		      struct tp_result *res, struct fab_err *err)
{
	unsigned int iters = s->p.spec.lat_iters, warm = lat_warmup(iters);
	double *lat = malloc(iters * sizeof(*lat));
	int rc = 0;

	if (!lat)
		return fab_err_set(err, -ENOMEM, "verbs: out of memory");
	for (unsigned int i = 0; i < warm + iters; i++) {
		uint64_t t0 = clock_mono_ns();

		rc = lat_post(s, i, err);
		if (rc < 0)
			goto out;
		rc = lat_spin(s, (uint8_t)(i + 1), cancel_fd, deadline_ns, err);
		if (rc < 0)
			goto out;
		if (i >= warm)
			lat[i - warm] = (double)(clock_mono_ns() - t0);
	}
	res->have_lat = stats_summarize(lat, iters, &res->lat_ns) == 0;
out:
	free(lat);
	return rc;
}

/* ---- bandwidth: a window of RDMA writes, timed at the sender ---- */

/*
 * Write to the peer's bw slot for duration_ms with tx_depth writes in
 * flight; the first window is warm-up.  Fills @fig.
 */
static int bw_send(struct tp_session *s, int cancel_fd, uint64_t deadline_ns, uint64_t fig[5],
		   struct fab_err *err)
{
	struct ibv_sge sge = { .addr = (uintptr_t)s->bw, .length = s->msg_bytes,
			       .lkey = s->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = s->peer.addr + s->peer.lat_bytes, .rkey = s->peer.rkey },
	};
	struct tp_meter m = { .interval_ns = (uint64_t)s->p.spec.interval_ms * 1000000ull };
	uint64_t end = 0, posted = 0, sig_posted = 0, counted = 0, warm = s->tx_depth;
	uint64_t start_done = s->data_done, next_check, progress_ns;
	bool metering = false;
	struct ibv_send_wr *bad;
	int rc = 0;

	if (s->msg_bytes <= s->max_inline)
		wr.send_flags = IBV_SEND_INLINE;
	progress_ns = clock_mono_ns();
	next_check = progress_ns + VB_CHECK_NS;
	end = progress_ns + (uint64_t)s->p.spec.duration_ms * 1000000ull;
	for (;;) {
		uint64_t now = clock_mono_ns(), done;

		if (now < end) {
			while (posted - (s->data_done - start_done) < s->tx_depth) {
				bool sig = (posted + 1) % s->cq_mod == 0;

				wr.send_flags = sig ? wr.send_flags | IBV_SEND_SIGNALED
						    : wr.send_flags & ~(unsigned int)IBV_SEND_SIGNALED;
				wr.wr_id = WR_ID(WR_DATA, s->cq_mod);
				rc = ibv_post_send(s->qp, &wr, &bad);
				if (rc) {
					rc = VB_ERR(s, err, -rc, "post rdma write: %s", strerror(rc));
					goto out;
				}
				posted++;
				if (sig)
					sig_posted = posted;
			}
		} else if (s->data_done - start_done >= sig_posted) {
			break;		/* every signalled write is back */
		}
		rc = cq_reap(s, err);
		if (rc < 0)
			goto out;
		done = s->data_done - start_done;
		if (done > counted) {
			now = clock_mono_ns();
			if (!metering && done >= warm) {
				/* Warm-up over: time from here. */
				metering = true;
				m.t0 = m.t_last = now;
			} else if (metering && tp_meter_add(&m, now, (done - counted) * s->msg_bytes) < 0) {
				rc = fab_err_set(err, -ENOMEM, "verbs: out of memory");
				goto out;
			}
			counted = done;
			progress_ns = now;
		} else if (rc == 0 && now - progress_ns > s->spin_ns) {
			/*
			 * Window full and nothing back after a spin: sleep on the
			 * completion channel (bounded for the checks below), which
			 * leaves the CPU to Soft-RoCE or the peer on a crowded host.
			 */
			uint64_t until = now + VB_CHECK_NS;

			rc = cq_block(s, cancel_fd, until < deadline_ns ? until : deadline_ns, err);
			if (rc < 0 && rc != -ETIMEDOUT)
				goto out;
			now = clock_mono_ns();
		}
		if (now >= next_check) {
			if (now >= deadline_ns) {
				rc = VB_ERR(s, err, -ETIMEDOUT, "bandwidth: writes not completing");
				goto out;
			}
			if (tp_cancelled(cancel_fd)) {
				rc = fab_err_set(err, -ECANCELED, "verbs: cancelled");
				goto out;
			}
			next_check = now + VB_CHECK_NS;
		}
	}
	if (!metering)
		fab_warn("verbs: %s: port %u: bandwidth test too short for a warm-up window of %u "
			 "writes: no figure", s->dev, s->port, s->tx_depth);
	tp_meter_figures(&m, fig);
	rc = 0;
out:
	tp_meter_fini(&m);
	return rc;
}

/* ---- runs ---- */

static int verbs_server_run(struct tp_session *s, int cancel_fd, struct fab_err *err)
{
	uint64_t deadline = clock_mono_ns() + (uint64_t)s->p.spec.timeout_ms * 1000000ull;
	bool bw = s->p.spec.duration_ms > 0;
	uint64_t fig[5];
	int rc;

	if (!s->connected)
		return VB_ERR(s, err, -ENOTCONN, "no peer endpoint");
	rc = ctrl_wait(s, VB_HELLO, NULL, cancel_fd, deadline, err);
	if (rc < 0)
		return rc;
	rc = ctrl_send(s, VB_READY, NULL, err);
	if (rc < 0)
		return rc;
	if (s->p.spec.lat_iters) {
		rc = lat_serve(s, cancel_fd, deadline, err);
		if (rc < 0)
			return rc;
	}
	if (bw && s->p.spec.bw_fwd) {
		rc = ctrl_wait(s, VB_FWD_DONE, NULL, cancel_fd, deadline, err);
		if (rc < 0)
			return rc;
	}
	if (bw && s->p.spec.bw_rev) {
		rc = bw_send(s, cancel_fd, deadline, fig, err);
		if (rc < 0)
			return rc;
		rc = ctrl_send(s, VB_REV_DONE, fig, err);
		if (rc < 0)
			return rc;
	}
	rc = ctrl_wait(s, VB_BYE, NULL, cancel_fd, deadline, err);
	if (rc < 0)
		return rc;
	return ctrl_flush(s, cancel_fd, deadline, err);
}

static int verbs_client_run(struct tp_session *s, int cancel_fd, struct tp_result *res,
			    struct fab_err *err)
{
	uint64_t deadline = clock_mono_ns() + (uint64_t)s->p.spec.timeout_ms * 1000000ull;
	bool bw = s->p.spec.duration_ms > 0;
	struct vb_ctrl m;
	uint64_t fig[5];
	int rc;

	memset(res, 0, sizeof(*res));
	session_sports(s, res);
	rc = ctrl_send(s, VB_HELLO, NULL, err);
	if (rc < 0)
		return rc;
	rc = ctrl_wait(s, VB_READY, NULL, cancel_fd, deadline, err);
	if (rc < 0)
		return rc;
	if (s->p.spec.lat_iters) {
		rc = lat_client(s, cancel_fd, deadline, res, err);
		if (rc < 0)
			return rc;
	}
	if (bw && s->p.spec.bw_fwd) {
		rc = bw_send(s, cancel_fd, deadline, fig, err);
		if (rc < 0)
			return rc;
		if (fig[1])
			tp_bw_from_figures(&res->fwd, fig);
		rc = ctrl_send(s, VB_FWD_DONE, NULL, err);
		if (rc < 0)
			return rc;
	}
	if (bw && s->p.spec.bw_rev) {
		rc = ctrl_wait(s, VB_REV_DONE, &m, cancel_fd, deadline, err);
		if (rc < 0)
			return rc;
		if (m.fig[1])
			tp_bw_from_figures(&res->rev, m.fig);
	}
	rc = ctrl_send(s, VB_BYE, NULL, err);
	if (rc < 0)
		return rc;
	return ctrl_flush(s, cancel_fd, deadline, err);
}

const struct transport_ops transport_verbs_ops = {
	.name = "verbs",
	.server_open = verbs_server_open,
	.client_open = verbs_client_open,
	.server_peer = verbs_server_peer,
	.server_run = verbs_server_run,
	.client_run = verbs_client_run,
	.close = session_free,
};
