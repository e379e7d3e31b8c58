// SPDX-License-Identifier: GPL-2.0-or-later
/* The "bond" op on the wire; see proto_bond.h. */
#include <errno.h>
#include <string.h>

#include "fleet/proto_bond.h"
#include "util/str.h"

json_t *proto_bond_req(const char *addr, const char *ifname)
{
	return json_pack("{s:s, s:s, s:o}", "op", "bond", "addr", addr ? addr : "",
			 "ifname", ifname && ifname[0] ? json_string(ifname) : json_null());
}

static json_t *name_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *proto_bond_result(const struct bond_snap *s)
{
	json_t *o, *members;

	if (!s->is_bond)
		return json_pack("{s:s, s:b}", "ifname", s->ifname, "bond", 0);
	members = json_array();
	for (size_t i = 0; members && i < s->n_members; i++)
		json_array_append_new(members, json_pack("{s:s, s:b, s:I}", "name", s->m[i].name,
							 "link_up", s->m[i].link_up,
							 "tx_bytes", (json_int_t)s->m[i].tx_bytes));
	o = json_pack("{s:s, s:b, s:o, s:o, s:o}", "ifname", s->ifname, "bond", 1,
		      "mode", name_or_null(fab_bond_mode_name(s->mode)),
		      "xmit_hash_policy", name_or_null(fab_bond_xmit_name(s->policy)),
		      "members", members ? members : json_null());
	return o;
}

/* One member; -EPROTO naming the field. */
static int member_from_json(const json_t *v, struct bond_snap_member *m, struct fab_err *err)
{
	const json_t *name = json_object_get(v, "name"), *up = json_object_get(v, "link_up");
	const json_t *tx = json_object_get(v, "tx_bytes");

	if (!json_is_string(name) || json_string_length(name) >= sizeof(m->name) ||
	    !json_is_boolean(up) || !json_is_integer(tx) || json_integer_value(tx) < 0)
		return fab_err_set(err, -EPROTO, "bond: \"members\": each needs \"name\" (< 16 "
				   "bytes), \"link_up\" and \"tx_bytes\" (>= 0)");
	str_fmt(m->name, sizeof(m->name), "%s", json_string_value(name));
	m->link_up = json_is_true(up);
	m->tx_bytes = (uint64_t)json_integer_value(tx);
	return 0;
}

int proto_bond_from_json(const json_t *res, struct bond_snap *s, struct fab_err *err)
{
	const json_t *ifname = json_object_get(res, "ifname"), *members, *v;
	size_t i;
	int rc;

	memset(s, 0, sizeof(*s));
	s->mode = s->policy = -1;
	if (!json_is_string(ifname) || json_string_length(ifname) >= sizeof(s->ifname) ||
	    !json_is_boolean(json_object_get(res, "bond")))
		return fab_err_set(err, -EPROTO,
				   "bond: needs \"ifname\" (< 16 bytes) and \"bond\"");
	str_fmt(s->ifname, sizeof(s->ifname), "%s", json_string_value(ifname));
	s->is_bond = json_is_true(json_object_get(res, "bond"));
	if (!s->is_bond)
		return 0;
	members = json_object_get(res, "members");
	if (!json_is_array(members) || json_array_size(members) == 0 ||
	    json_array_size(members) > FAB_BOND_MAX_MEMBERS)
		return fab_err_set(err, -EPROTO, "bond: \"members\" must be an array of 1 to %d",
				   FAB_BOND_MAX_MEMBERS);
	json_array_foreach(members, i, v)
		if ((rc = member_from_json(v, &s->m[i], err)) < 0)
			return rc;
	s->n_members = json_array_size(members);
	v = json_object_get(res, "mode");
	s->mode = json_is_string(v) ? fab_bond_mode_parse(json_string_value(v)) : -1;
	v = json_object_get(res, "xmit_hash_policy");
	s->policy = json_is_string(v) ? fab_bond_xmit_parse(json_string_value(v)) : -1;
	return 0;
}
