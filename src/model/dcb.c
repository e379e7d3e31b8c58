// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/dcb.h"
#include "util/array.h"

void fab_dcb_init(struct fab_dcb *dcb)
{
	memset(dcb, 0, sizeof(*dcb));
}

void fab_dcb_fini(struct fab_dcb *dcb)
{
	if (!dcb)
		return;
	free(dcb->apps);
	dcb->apps = NULL;
	dcb->n_apps = 0;
}

int fab_dcb_app_add(struct fab_dcb *dcb, const struct fab_dcb_app *app)
{
	struct fab_dcb_app *n = array_add((void **)&dcb->apps, &dcb->n_apps, sizeof(*n));

	if (!n)
		return -ENOMEM;
	*n = *app;
	return 0;
}

const struct fab_dcb_app *fab_dcb_app_find(const struct fab_dcb *dcb, uint8_t selector,
					   uint16_t protocol)
{
	for (size_t i = 0; i < dcb->n_apps; i++)
		if (dcb->apps[i].selector == selector && dcb->apps[i].protocol == protocol)
			return &dcb->apps[i];
	return NULL;
}

static const struct {
	uint8_t sel;
	const char *name;
} sel_names[] = {
	{ FAB_DCB_APP_SEL_ETHERTYPE, "ethertype" },
	{ FAB_DCB_APP_SEL_STREAM, "stream" },
	{ FAB_DCB_APP_SEL_DGRAM, "dgram" },
	{ FAB_DCB_APP_SEL_ANY, "any" },
	{ FAB_DCB_APP_SEL_DSCP, "dscp" },
	{ FAB_DCB_APP_SEL_PCP, "pcp" },
};

const char *fab_dcb_sel_name(uint8_t selector)
{
	for (size_t i = 0; i < ARRAY_SIZE(sel_names); i++)
		if (sel_names[i].sel == selector)
			return sel_names[i].name;
	return NULL;
}

int fab_dcb_sel_parse(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(sel_names); i++)
		if (strcmp(sel_names[i].name, name) == 0)
			return sel_names[i].sel;
	return -1;
}

static const char *const tsa_names[] = { "strict", "cbs", "ets" };

const char *fab_dcb_tsa_name(uint8_t tsa)
{
	if (tsa < ARRAY_SIZE(tsa_names))
		return tsa_names[tsa];
	return tsa == FAB_DCB_TSA_VENDOR ? "vendor" : NULL;
}

int fab_dcb_tsa_parse(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(tsa_names); i++)
		if (strcmp(tsa_names[i], name) == 0)
			return (int)i;
	return strcmp(name, "vendor") == 0 ? FAB_DCB_TSA_VENDOR : -1;
}
