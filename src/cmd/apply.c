// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl apply [--dry-run] [--try SECONDS] PROFILE
 *
 * Load the profile (bad input: exit 2, nothing touched), read the node
 * through sys_ops, diff into a plan (model/plan.c), print and run it.
 * A failing step undoes every step already done, in reverse order.
 *
 * --try: after a successful apply, the undo list goes to a pending-state
 * file (<rundir>/pending.json, rundir = $FABRICCTL_RUNDIR or /run/fabricctl)
 * and a detached reverter process (double fork, setsid) sleeps until the
 * deadline, then claims the file by rename(2) and undoes the changes.
 * `fabricctl confirm` claims it first (rename to confirmed) and the
 * reverter finds nothing to do.  While the file exists, apply refuses.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/apply.h"
#include "cmd/cmd.h"

/* ---- reading the node ---- */

static void copy_err(int *rc_out, char *msg, size_t len, int rc, const struct fab_err *e)
{
	*rc_out = rc;
	snprintf(msg, len, "%s", rc < 0 ? e->msg : "");
}

int apply_node_read(struct sys *sys, const struct profile *p, struct host_state *hs,
		    struct node_state *ns, struct fab_err *err)
{
	struct plan_needs *needs = NULL;
	int rc;

	rc = sys_host_state_read(sys, hs, err);
	if (rc < 0)
		return rc;
	needs = calloc(hs->n_links ? hs->n_links : 1, sizeof(*needs));
	if (!needs)
		return fab_err_set(err, -ENOMEM, "apply: out of memory");
	plan_needs(p, hs, needs);
	for (size_t i = 0; i < hs->n_links; i++) {
		const struct fab_link *l = &hs->links[i];
		struct node_iface *ni;
		struct fab_err e;

		if (!needs[i].dcb && !needs[i].ecn_np && !needs[i].ecn_rp && !needs[i].tos)
			continue;
		ni = node_state_iface_add(ns, l->name);
		if (!ni) {
			rc = fab_err_set(err, -ENOMEM, "apply: out of memory");
			goto out;
		}
		ni->mtu = l->mtu;
		if (needs[i].dcb) {
			fab_err_init(&e);
			if (sys->ops->dcb_read)
				rc = sys->ops->dcb_read(sys, l->name, &ni->dcb, &e);
			else
				rc = fab_err_set(&e, -EOPNOTSUPP, "dcb: %s: not supported by %s",
						 l->name, sys->ops->name);
			copy_err(&ni->dcb_rc, ni->dcb_msg, sizeof(ni->dcb_msg), rc, &e);
		}
		for (int pt = FAB_ECN_NP; pt <= FAB_ECN_RP; pt++) {
			if (!(pt == FAB_ECN_NP ? needs[i].ecn_np : needs[i].ecn_rp))
				continue;
			fab_err_init(&e);
			if (sys->ops->ecn_read)
				rc = sys->ops->ecn_read(sys, l->name, (enum fab_ecn_point)pt,
							&ni->ecn[pt], &e);
			else
				rc = fab_err_set(&e, -EOPNOTSUPP, "ecn: %s: not supported by %s",
						 l->name, sys->ops->name);
			copy_err(&ni->ecn_rc[pt], ni->ecn_msg[pt], sizeof(ni->ecn_msg[pt]), rc, &e);
		}
		if (!needs[i].tos)
			continue;
		/* The RDMA port whose netdev this is. */
		for (size_t r = 0; r < hs->n_rdma && !ni->rdma_dev[0]; r++)
			for (size_t k = 0; k < hs->rdma[r].n_ports; k++)
				if (!strcmp(hs->rdma[r].ports[k].netdev, l->name)) {
					snprintf(ni->rdma_dev, sizeof(ni->rdma_dev), "%s",
						 hs->rdma[r].name);
					ni->rdma_port = hs->rdma[r].ports[k].port;
					ni->roce_active_mtu = hs->rdma[r].ports[k].active_mtu;
					break;
				}
		if (!ni->rdma_dev[0])
			continue;
		fab_err_init(&e);
		if (sys->ops->roce_tos_read)
			rc = sys->ops->roce_tos_read(sys, ni->rdma_dev, ni->rdma_port, &ni->tos, &e);
		else
			rc = fab_err_set(&e, -EOPNOTSUPP, "roce_tos: %s: not supported by %s",
					 ni->rdma_dev, sys->ops->name);
		copy_err(&ni->tos_rc, ni->tos_msg, sizeof(ni->tos_msg), rc, &e);
	}
	for (size_t i = 0; i < p->n_bonds; i++) {
		const char *name = p->bonds[i].want.name;
		struct node_bond *nb = node_state_bond_add(ns, name);
		struct fab_err e;

		if (!nb) {
			rc = fab_err_set(err, -ENOMEM, "apply: out of memory");
			goto out;
		}
		fab_err_init(&e);
		if (!host_state_link_by_name(hs, name))
			rc = -ENODEV;	/* no such link: the bond is to be created */
		else if (sys->ops->bond_read)
			rc = sys->ops->bond_read(sys, name, &nb->bond, &e);
		else
			rc = fab_err_set(&e, -EOPNOTSUPP, "bond: %s: not supported by %s", name,
					 sys->ops->name);
		copy_err(&nb->rc, nb->msg, sizeof(nb->msg), rc, &e);
	}
	rc = 0;
out:
	free(needs);
	return rc;
}

/* ---- executing ---- */

static int no_slot(struct sys *sys, const char *what, const char *obj, struct fab_err *err)
{
	return fab_err_set(err, -EOPNOTSUPP, "%s: %s: not supported by %s", what, obj,
			   sys->ops->name);
}

int apply_action_exec(struct sys *sys, const struct plan_action *a, struct fab_err *err)
{
	const struct sys_ops *o = sys->ops;

	switch (a->op) {
	case PLAN_BOND_CREATE:
		return o->bond_create ? o->bond_create(sys, &a->bond, err) : no_slot(sys, "bond", a->obj, err);
	case PLAN_BOND_DELETE:
		return o->bond_delete ? o->bond_delete(sys, a->obj, err) : no_slot(sys, "bond", a->obj, err);
	case PLAN_BOND_SET:
		return o->bond_set ? o->bond_set(sys, &a->bond, err) : no_slot(sys, "bond", a->obj, err);
	case PLAN_BOND_ENSLAVE:
		return o->bond_enslave ? o->bond_enslave(sys, a->obj, a->arg, err)
				       : no_slot(sys, "bond", a->obj, err);
	case PLAN_BOND_RELEASE:
		return o->bond_release ? o->bond_release(sys, a->arg, err)
				       : no_slot(sys, "bond", a->obj, err);
	case PLAN_MTU_SET:
		return o->link_mtu_set ? o->link_mtu_set(sys, a->obj, a->u, err)
				       : no_slot(sys, "mtu", a->obj, err);
	case PLAN_PFC_SET:
		return o->dcb_pfc_set ? o->dcb_pfc_set(sys, a->obj, &a->pfc, err)
				      : no_slot(sys, "dcb", a->obj, err);
	case PLAN_ETS_SET:
		return o->dcb_ets_set ? o->dcb_ets_set(sys, a->obj, &a->ets, err)
				      : no_slot(sys, "dcb", a->obj, err);
	case PLAN_APP_DEL:
		return o->dcb_app_del ? o->dcb_app_del(sys, a->obj, &a->app, 1, err)
				      : no_slot(sys, "dcb", a->obj, err);
	case PLAN_APP_ADD:
		return o->dcb_app_add ? o->dcb_app_add(sys, a->obj, &a->app, 1, err)
				      : no_slot(sys, "dcb", a->obj, err);
	case PLAN_TRUST_SET:
		return o->dcb_trust_set ? o->dcb_trust_set(sys, a->obj, a->trust, a->n_trust, err)
					: no_slot(sys, "dcb", a->obj, err);
	case PLAN_ECN_SET:
		return o->ecn_set ? o->ecn_set(sys, a->obj, (enum fab_ecn_point)a->point, a->u,
					       a->on, err)
				  : no_slot(sys, "ecn", a->obj, err);
	case PLAN_TOS_SET:
		return o->roce_tos_set ? o->roce_tos_set(sys, a->obj, a->port, a->u, err)
				       : no_slot(sys, "roce_tos", a->obj, err);
	case PLAN_FAIL:
		return fab_err_set(err, a->errno_ ? a->errno_ : -EOPNOTSUPP, "%s", a->msg);
	}
	return fab_err_set(err, -EINVAL, "apply: unknown action %d", (int)a->op);
}

int apply_plan_undo(struct sys *sys, struct plan *plan, struct fab_err *err)
{
	int first = 0;

	for (size_t i = plan->n_steps; i-- > 0;) {
		struct plan_step *s = &plan->steps[i];
		struct fab_err e;
		char buf[160];
		int rc;

		if (s->status != PLAN_STEP_DONE)
			continue;
		fab_err_init(&e);
		if (!s->has_undo)
			rc = fab_err_set(&e, -ENOTRECOVERABLE,
					 "%s %s: previous value unknown, cannot undo",
					 s->object, s->field);
		else
			rc = apply_action_exec(sys, &s->undo, &e);
		if (rc < 0) {
			s->status = PLAN_STEP_UNDO_FAILED;
			if (!first) {
				first = rc;
				fab_err_set(err, rc, "undo %s: %s",
					    plan_action_str(&s->undo, buf, sizeof(buf)), e.msg);
			}
			continue;
		}
		s->status = PLAN_STEP_UNDONE;
	}
	return first;
}

int apply_plan_run(struct sys *sys, struct plan *plan, struct apply_report *rep)
{
	struct fab_err e;
	char buf[160];
	int rc;

	rep->failed = -1;
	for (size_t i = 0; i < plan->n_steps; i++) {
		struct plan_step *s = &plan->steps[i];

		fab_err_init(&e);
		rc = apply_action_exec(sys, &s->act, &e);
		if (rc == 0) {
			s->status = PLAN_STEP_DONE;
			continue;
		}
		s->status = PLAN_STEP_FAILED;
		rep->failed = (long)i;
		snprintf(rep->error, sizeof(rep->error), "step %zu (%s) failed: %s", i + 1,
			 plan_action_str(&s->act, buf, sizeof(buf)), e.msg);
		fab_err_init(&e);
		rep->rolled_back = apply_plan_undo(sys, plan, &e) == 0;
		if (!rep->rolled_back)
			snprintf(rep->rollback_error, sizeof(rep->rollback_error), "%s", e.msg);
		return rc;
	}
	return 0;
}

/* ---- pending state ---- */

static const char *rundir(void)
{
	const char *d = getenv("FABRICCTL_RUNDIR");

	return d && *d ? d : APPLY_RUNDIR_DEFAULT;
}

const char *apply_pending_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/pending.json", rundir());
	return buf;
}

/* Write @text to @path atomically (tmp + rename), mode 0600. */
static int write_atomic(const char *path, const char *text, struct fab_err *err)
{
	char tmp[300];
	size_t len = strlen(text);
	int fd, rc = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return fab_err_set(err, -errno, "apply: %s: %s", tmp, strerror(errno));
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) < 0)
		rc = fab_err_set(err, -errno ? -errno : -EIO, "apply: write %s: %s", tmp,
				 strerror(errno));
	if (close(fd) < 0 && rc == 0)
		rc = fab_err_set(err, -errno, "apply: write %s: %s", tmp, strerror(errno));
	if (rc == 0 && rename(tmp, path) < 0)
		rc = fab_err_set(err, -errno, "apply: rename %s: %s", path, strerror(errno));
	if (rc < 0)
		unlink(tmp);
	return rc;
}

/* Read a whole small file; *out malloc'ed, NUL-terminated. */
static int read_small(const char *path, char **out, size_t *len)
{
	char *buf = malloc(1 << 20);
	ssize_t n;
	int fd;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	n = read(fd, buf, (1 << 20) - 1);
	close(fd);
	if (n < 0) {
		free(buf);
		return -EIO;
	}
	buf[n] = '\0';
	*out = buf;
	*len = (size_t)n;
	return 0;
}

/*
 * The reverter (runs detached): sleep until the deadline, then claim the
 * pending file by renaming it; if confirm got there first, there is
 * nothing to do.  Undo in reverse, log the outcome next to the file.
 */
static void reverter(struct sys *sys, const char *pending, long long deadline)
{
	char claimed[300], logp[300], *text = NULL;
	struct plan plan;
	struct fab_err e;
	struct timespec ts;
	long long dl;
	size_t len;
	int pid, rc;
	FILE *log;

	for (;;) {
		clock_gettime(CLOCK_REALTIME, &ts);
		if (ts.tv_sec >= deadline)
			break;
		ts.tv_sec = deadline - ts.tv_sec;
		ts.tv_nsec = 0;
		nanosleep(&ts, NULL);
	}
	snprintf(claimed, sizeof(claimed), "%s.reverting", pending);
	if (rename(pending, claimed) < 0)
		return;		/* confirmed (or reverted by confirm --revert) */
	snprintf(logp, sizeof(logp), "%s/last-revert.log", rundir());
	plan_init(&plan);
	fab_err_init(&e);
	rc = read_small(claimed, &text, &len);
	if (rc == 0)
		rc = plan_undo_from_json(claimed, text, len, &plan, &dl, &pid, &e);
	if (rc == 0) {
		for (size_t i = 0; i < plan.n_steps; i++)
			plan.steps[i].status = PLAN_STEP_DONE;
		rc = apply_plan_undo(sys, &plan, &e);
	}
	log = fopen(logp, "we");
	if (log) {
		fprintf(log, "reverted %zu step(s) at deadline %lld: %s\n", plan.n_steps, deadline,
			rc == 0 ? "ok" : e.msg);
		fclose(log);
	}
	unlink(claimed);
	free(text);
	plan_fini(&plan);
}

/*
 * Detach the reverter: double fork so it is reparented to init, setsid
 * so the admin's session hangup does not reach it.  The grandchild's pid
 * comes back through a pipe; the parent reaps the intermediate child.
 */
static int reverter_spawn(struct sys *sys, const char *pending, long long deadline,
			  int *rpid, struct fab_err *err)
{
	int fds[2], st;
	pid_t pid, got = 0;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return fab_err_set(err, -errno, "apply: pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return fab_err_set(err, -errno, "apply: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		pid_t gc, me;
		int fd;

		close(fds[0]);
		setsid();
		gc = fork();
		if (gc != 0)
			_exit(gc < 0 ? 1 : 0);
		me = getpid();
		if (write(fds[1], &me, sizeof(me)) != sizeof(me))
			_exit(1);
		close(fds[1]);
		signal(SIGHUP, SIG_IGN);
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		if (chdir("/") < 0)
			_exit(1);
		reverter(sys, pending, deadline);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &got, sizeof(got)) != sizeof(got))
		got = 0;
	close(fds[0]);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || got <= 0)
		return fab_err_set(err, -ECHILD, "apply: could not start the reverter");
	*rpid = (int)got;
	return 0;
}

/* Is a try pending?  Fills @err (exit 3) when it is. */
static int pending_check(struct fab_err *err)
{
	char path[256], *text = NULL;
	struct plan plan;
	struct fab_err e;
	long long dl = 0;
	size_t len;
	int pid = 0;

	apply_pending_path(path, sizeof(path));
	if (access(path, F_OK) < 0)
		return 0;
	plan_init(&plan);
	fab_err_init(&e);
	if (read_small(path, &text, &len) == 0)
		plan_undo_from_json(path, text, len, &plan, &dl, &pid, &e);
	free(text);
	plan_fini(&plan);
	return fab_err_set(err, -EBUSY,
			   "a try is pending (%s, reverter pid %d, reverts at %lld): run 'fabricctl confirm' to keep it or 'fabricctl confirm --revert' to undo it",
			   path, pid, dl);
}

/* Apply succeeded with --try: start the reverter, record the undo list. */
static int try_arm(struct sys *sys, struct plan *plan, unsigned int secs,
		   struct apply_report *rep, struct fab_err *err)
{
	char *text;
	long long deadline = (long long)time(NULL) + secs;
	int rpid = 0, rc;

	apply_pending_path(rep->pending_path, sizeof(rep->pending_path));
	if (mkdir(rundir(), 0700) < 0 && errno != EEXIST)
		return fab_err_set(err, -errno, "apply: %s: %s", rundir(), strerror(errno));
	rc = reverter_spawn(sys, rep->pending_path, deadline, &rpid, err);
	if (rc < 0)
		return rc;
	text = plan_undo_to_json(plan, plan->n_steps, deadline, rpid);
	if (!text)
		return fab_err_set(err, -ENOMEM, "apply: out of memory");
	rc = write_atomic(rep->pending_path, text, err);
	free(text);
	if (rc < 0)
		return rc;	/* the reverter finds no file and exits */
	rep->try_deadline_s = deadline;
	return 0;
}

int cmd_apply(struct fab_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "try", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct apply_report rep = { .failed = -1 };
	struct profile *p = NULL;
	struct host_state hs;
	struct node_state ns;
	struct plan plan;
	unsigned long try_s = 0;
	bool dry = false;
	int opt, rc = FAB_EXIT_OK;
	char *end;

	while ((opt = getopt_long(argc, argv, "nt:jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			dry = true;
			break;
		case 't':
			errno = 0;
			try_s = strtoul(optarg, &end, 10);
			if (errno || *end || try_s < 1 || try_s > 86400 || optarg[0] == '-')
				return cmd_usage_error(ctx, "apply", "--try: '%s' is not 1-86400 seconds",
						       optarg);
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'h':
			cmd_usage(stdout, "apply");
			return FAB_EXIT_OK;
		default:
			cmd_usage(stderr, "apply");
			return FAB_EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error(ctx, "apply", "expected one PROFILE");
	if (dry && try_s)
		return cmd_usage_error(ctx, "apply", "--dry-run and --try exclude each other");
	ctx->out.ops = ctx->json ? &out_json_ops : &out_text_ops;

	host_state_init(&hs);
	node_state_init(&ns, &hs);
	plan_init(&plan);
	if (profile_load(argv[optind], &p, &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (!dry && pending_check(&ctx->err) < 0) {
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	if (apply_node_read(ctx->sys, p, &hs, &ns, &ctx->err) < 0 ||
	    plan_diff(p, &ns, &plan, &ctx->err) < 0) {
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	rep.profile = argv[optind];
	rep.plan = &plan;
	rep.dry_run = dry;
	if (plan.n_unmatched) {
		/* Nothing can make an absent interface appear: refuse before touching anything. */
		for (size_t i = 0; i < plan.n_drift; i++)
			if (!strcmp(plan.drift[i].field, "match")) {
				fab_err_set(&ctx->err, -ENODEV,
					    "%s: '%s' matches no %s on this node (mark the item optional: true if that is fine)",
					    argv[optind], plan.drift[i].object,
					    strcmp(plan.drift[i].wanted, "an interface") ? "rdma port"
											   : "interface");
				break;
			}
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	if (!dry) {
		if (try_s) {
			signal(SIGHUP, SIG_IGN);	/* a cut-off admin must not stop us half-way */
			signal(SIGPIPE, SIG_IGN);
		}
		if (apply_plan_run(ctx->sys, &plan, &rep) < 0) {
			fab_err_set(&ctx->err, -EIO, "%s%s%s", rep.error,
				    rep.rolled_back ? "; rolled back, the node is as before"
						    : "; ROLLBACK INCOMPLETE: ",
				    rep.rolled_back ? "" : rep.rollback_error);
			rc = FAB_EXIT_SYSTEM;
		} else if (try_s && plan.n_steps) {
			struct fab_err e;

			fab_err_init(&e);
			if (try_arm(ctx->sys, &plan, (unsigned int)try_s, &rep, &e) < 0) {
				/* Could not arm the safety net: undo now rather than leave it unguarded. */
				apply_plan_undo(ctx->sys, &plan, &ctx->err);
				fab_err_set(&ctx->err, e.code, "%s; changes undone", e.msg);
				rc = FAB_EXIT_SYSTEM;
			}
		}
	}
	if (ctx->out.ops->apply(&ctx->out, &rep) < 0 && rc == FAB_EXIT_OK) {
		fab_err_set(&ctx->err, -EIO, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
	}
out:
	plan_fini(&plan);
	node_state_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
	return rc;
}
