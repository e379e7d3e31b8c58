// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/host_state.h"
#include "model/rdma_rate.h"
#include "util/array.h"
#include "util/str.h"


unsigned int ib_width_from_active(unsigned int code)
{
	switch (code) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	default: return 0;
	}
}

const char *ib_speed_from_active(unsigned int speed, unsigned int speed_ext)
{
	switch (speed_ext) {
	case 0: break;
	case 1: return "FDR";
	case 2: return "EDR";
	case 4: return "HDR";
	case 8: return "NDR";
	default: return NULL;
	}
	switch (speed) {
	case 1: return "SDR";
	case 2: return "DDR";
	case 4: return "QDR";
	default: return NULL;
	}
}

unsigned int ib_mtu_from_enum(unsigned int code)
{
	if (code < 1 || code > 5)
		return 0;
	return 256u << (code - 1);
}

const char *ib_port_state_name(unsigned int state)
{
	static const char *const names[] = {
		NULL, "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
	};

	return state < ARRAY_SIZE(names) ? names[state] : NULL;
}

const char *ib_phys_state_name(unsigned int state)
{
	static const char *const names[] = {
		NULL, "SLEEP", "POLLING", "DISABLED", "TRAINING", "LINK_UP",
		"LINK_ERROR_RECOVERY", "PHY_TEST",
	};

	return state < ARRAY_SIZE(names) ? names[state] : NULL;
}

int ib_rate_parse(const char *s, unsigned int *width_x, char *speed, size_t speed_len,
		  double *gbps)
{
	char wbuf[8] = "", sbuf[16] = "";
	const char *p;
	double num, lane;
	unsigned int w;
	char *end;

	errno = 0;
	num = strtod(s, &end);
	if (end == s || errno || !(num >= 0) || strncmp(end, " Gb/sec", 7) != 0)
		return -EINVAL;
	p = strchr(end, '(');
	if (!p)
		return -EINVAL;
	/* "(4X EDR)" or "(1X)" */
	if (str_scan(p, "(%7[0-9Xx] %15[A-Za-z0-9])", wbuf, sbuf) < 1)
		return -EINVAL;
	if (sbuf[0] == '\0')
		wbuf[strcspn(wbuf, ")")] = '\0';
	w = ib_width_parse(wbuf);
	if (!w)
		return -EINVAL;
	lane = sbuf[0] ? ib_speed_lane_gbps(sbuf) : 0;
	if (sbuf[0] && lane == 0)
		sbuf[0] = '\0';	/* a speed we do not know: keep the number */
	if (!sbuf[0] && fabs(num - 2.5 * w) < 0.01) {
		str_fmt(sbuf, sizeof(sbuf), "SDR");
		lane = 2.5;
	}
	*width_x = w;
	str_fmt(speed, speed_len, "%s", sbuf);
	*gbps = lane ? lane * w : num;
	return 0;
}

int ib_sysfs_enum_parse(const char *s, unsigned int *val)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (end == s || errno || v > 0xffff || (*end != '\0' && *end != ':'))
		return -EINVAL;
	*val = (unsigned int)v;
	return 0;
}

int ib_guid_parse(const char *s, uint64_t *guid)
{
	uint64_t g = 0;
	int groups = 0, digits = 0;

	for (; *s; s++) {
		if (*s == ':') {
			if (digits != 4)
				return -EINVAL;
			groups++;
			digits = 0;
			continue;
		}
		if (!isxdigit((unsigned char)*s) || ++digits > 4)
			return -EINVAL;
		g = g << 4 | (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' :
					(tolower((unsigned char)*s) - 'a' + 10));
	}
	if (groups != 3 || digits != 4)
		return -EINVAL;
	*guid = g;
	return 0;
}
