// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>

#include "io/load.h"
#include "model/ibtopo_parse.h"
#include "model/plan_yaml.h"
#include "util/file.h"

int profile_load_text(const char *path, char **text, size_t *len, struct profile **out,
		      struct fab_err *err)
{
	struct profile *p = NULL;
	char *buf = NULL;
	size_t n = 0;
	int rc;

	rc = file_read_all(path, PROFILE_MAX_BYTES, &buf, &n, err);
	if (rc == 0)
		rc = profile_parse(path, (const unsigned char *)buf, n, &p, err);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	if (out)
		*out = p;
	else
		profile_free(p);
	*text = buf;
	*len = n;
	return 0;
}

int profile_load(const char *path, struct profile **out, struct fab_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	rc = profile_load_text(path, &text, &len, out, err);
	free(text);
	return rc;
}

int profile_load_params(const char *path, json_t **params, struct fab_err *err)
{
	char *text = NULL;
	json_t *t = NULL;
	size_t len = 0;
	int rc;

	/* Read and validated (bad input: file:line:column) before any node is contacted. */
	rc = profile_load_text(path, &text, &len, NULL, err);
	if (rc < 0)
		return rc;
	if (len > PROFILE_PARAMS_MAX) {
		rc = fab_err_input(err, -EFBIG, "%s: larger than %d bytes, too large to send to the nodes",
				   path, PROFILE_PARAMS_MAX);
		goto out;
	}
	t = json_stringn(text, len);
	if (!t) {
		rc = fab_err_input(err, -EINVAL, "%s: not valid UTF-8 text", path);
		goto out;
	}
	*params = json_pack("{s:o, s:s}", "profile", t, "profile_name", path);
	t = NULL;
	rc = *params ? 0 : fab_err_set(err, -ENOMEM, "apply: out of memory");
out:
	json_decref(t);
	free(text);
	return rc;
}

int hosts_load(struct fab_hosts *hs, const char *path, struct fab_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	rc = file_read_all(path, HOSTS_FILE_MAX_BYTES, &buf, &len, err);
	if (rc < 0)
		return rc;
	rc = hosts_parse(hs, buf, len, path, err);
	free(buf);
	return rc;
}

int hosts_load_split(struct fab_hosts *nodes, struct fab_hosts *ports, const char *path,
		     struct fab_err *err)
{
	struct fab_hosts all;
	int rc;

	hosts_init(&all);
	rc = hosts_load(&all, path, err);
	if (rc < 0 || !hosts_have_rails(&all)) {
		*nodes = all;	/* one line a node: the file as it is */
		return rc;
	}
	if (hosts_nodes(&all, nodes) < 0) {
		hosts_fini(&all);
		return fab_err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	*ports = all;
	return 0;
}

int hosts_load_nodes(struct fab_hosts *hs, const char *path, struct fab_err *err)
{
	struct fab_hosts ports;
	int rc;

	hosts_init(&ports);
	rc = hosts_load_split(hs, &ports, path, err);
	hosts_fini(&ports);
	return rc;
}

int plan_load(const char *path, struct topo **out, struct topo_rails *rails, struct fab_err *err)
{
	struct topo *plan = topo_new();
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (!plan)
		return fab_err_set(err, -ENOMEM, "%s: out of memory", path);
	rc = file_read_all(path, PLAN_FILE_MAX_BYTES, &buf, &len, err);
	if (rc < 0)
		goto out;
	if (plan_yaml_named(path) || plan_yaml_sniff(buf, len))
		rc = plan_yaml_parse(plan, rails, buf, len, path, err);
	else
		rc = ibtopo_parse(plan, buf, len, path, TOPO_SRC_PLAN, err);
	if (rc < 0)
		goto out;
	if (!plan->n_links) {
		rc = fab_err_input(err, -EINVAL, "%s: no links in the plan", path);
		goto out;
	}
	*out = plan;
	plan = NULL;
out:
	free(buf);
	topo_free(plan);
	return rc;
}

int counter_policy_load(const char *path, struct counter_policy *pol, struct fab_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	counter_policy_default(pol);
	if (!path)
		return 0;
	rc = file_read_all(path, POLICY_FILE_MAX_BYTES, &buf, &len, err);
	if (rc == 0)
		rc = counter_policy_parse(pol, buf, len, path, err);
	free(buf);
	return rc;
}

int json_doc_load(const char *path, size_t max, json_t **doc, struct fab_err *err)
{
	json_error_t je;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	rc = file_read_all(path, max, &buf, &len, err);
	if (rc < 0)
		return rc;
	*doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	free(buf);
	if (!*doc && json_error_code(&je) == json_error_out_of_memory)
		return fab_err_set(err, -ENOMEM, "%s: out of memory", path);
	if (!*doc)
		return fab_err_input(err, -EINVAL, "%s:%d:%d: %s", path, je.line, je.column,
				     je.text[0] ? je.text : "not read");
	return 0;
}
