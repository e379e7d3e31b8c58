// SPDX-License-Identifier: GPL-2.0-or-later
/* The PCIe view's data and the parsers of what sysfs gives; see pcie.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "model/pcie.h"
#include "util/array.h"
#include "util/str.h"

struct pcie_view *pcie_view_new(void)
{
	return calloc(1, sizeof(struct pcie_view));
}

static void devs_free(struct pcie_dev *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(d[i].bridges);
	free(d);
}

void pcie_view_free(struct pcie_view *v)
{
	if (!v)
		return;
	devs_free(v->nics, v->n_nics);
	devs_free(v->gpus, v->n_gpus);
	free(v);
}

static struct pcie_dev *dev_add(struct pcie_dev **arr, size_t *n)
{
	struct pcie_dev *d = array_add((void **)arr, n, sizeof(**arr));

	if (d) {
		d->numa_node = -1;
		d->socket = -1;
	}
	return d;
}

struct pcie_dev *pcie_view_nic_add(struct pcie_view *v)
{
	return dev_add(&v->nics, &v->n_nics);
}

struct pcie_dev *pcie_view_gpu_add(struct pcie_view *v)
{
	return dev_add(&v->gpus, &v->n_gpus);
}

struct pcie_bridge *pcie_dev_bridge_add(struct pcie_dev *d)
{
	return array_add((void **)&d->bridges, &d->n_bridges, sizeof(struct pcie_bridge));
}

struct pcie_dev *pcie_view_nic_by_bdf(const struct pcie_view *v, const char *bdf)
{
	for (size_t i = 0; i < v->n_nics; i++)
		if (!strcmp(v->nics[i].bdf, bdf))
			return &v->nics[i];
	return NULL;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

void pcie_dev_name_add(struct pcie_dev *d, const char *name, bool rdma)
{
	size_t *n = rdma ? &d->n_rdma : &d->n_netdevs;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp(rdma ? d->rdma[i] : d->netdevs[i], name))
			return;
	if (*n == PCIE_MAX_NAMES)
		return;
	if (rdma) {
		str_fmt(d->rdma[(*n)++], sizeof(d->rdma[0]), "%s", name);
		qsort(d->rdma, *n, sizeof(d->rdma[0]), name_cmp);
	} else {
		str_fmt(d->netdevs[(*n)++], sizeof(d->netdevs[0]), "%s", name);
		qsort(d->netdevs, *n, sizeof(d->netdevs[0]), name_cmp);
	}
}

static int dev_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pcie_dev *)a)->bdf, ((const struct pcie_dev *)b)->bdf);
}

void pcie_view_sort(struct pcie_view *v)
{
	if (v->n_nics)
		qsort(v->nics, v->n_nics, sizeof(*v->nics), dev_cmp);
	if (v->n_gpus)
		qsort(v->gpus, v->n_gpus, sizeof(*v->gpus), dev_cmp);
}

static bool dev_named(const struct pcie_dev *d, char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < d->n_netdevs; j++)
			if (!strcmp(d->netdevs[j], names[i]))
				return true;
		for (size_t j = 0; j < d->n_rdma; j++)
			if (!strcmp(d->rdma[j], names[i]))
				return true;
	}
	return false;
}

void pcie_view_keep_named(struct pcie_view *v, char *const *names, size_t n)
{
	size_t keep = 0;

	for (size_t i = 0; i < v->n_nics; i++) {
		if (dev_named(&v->nics[i], names, n))
			v->nics[keep++] = v->nics[i];
		else
			free(v->nics[i].bridges);
	}
	v->n_nics = keep;
}

const char *pcie_dev_name(const struct pcie_dev *d)
{
	if (d->n_netdevs)
		return d->netdevs[0];
	if (d->n_rdma)
		return d->rdma[0];
	return d->bdf;
}

/* ---- parsers ---- */

static bool hexdigits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

bool pcie_is_bdf(const char *s)
{
	/* dddd:bb:dd.f */
	return strlen(s) == 12 && hexdigits(s, 4) && s[4] == ':' && hexdigits(s + 5, 2) &&
	       s[7] == ':' && hexdigits(s + 8, 2) && s[10] == '.' && s[11] >= '0' && s[11] <= '7';
}

unsigned int pcie_speed_parse(const char *s)
{
	unsigned long whole = 0, frac = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p) && whole < 1000)
		whole = whole * 10 + (unsigned long)(*p++ - '0');
	if (*p == '.') {
		p++;
		if (isdigit((unsigned char)*p))
			frac = (unsigned long)(*p++ - '0');
		while (isdigit((unsigned char)*p))
			p++;
	}
	while (*p == ' ')
		p++;
	if (strncmp(p, "GT/s", 4) || whole >= 1000)
		return 0;
	return (unsigned int)(whole * 1000 + frac * 100);
}

const char *pcie_speed_str(unsigned int mts, char *buf, size_t len)
{
	if (!mts)
		str_fmt(buf, len, "-");
	else if (mts % 1000)
		str_fmt(buf, len, "%u.%uGT/s", mts / 1000, mts % 1000 / 100);
	else
		str_fmt(buf, len, "%uGT/s", mts / 1000);
	return buf;
}

bool pcie_class_is_gpu(uint32_t class_code, uint16_t vendor)
{
	if (class_code >> 8 == 0x1200)
		return true;
	if (class_code >> 16 != 0x03)
		return false;
	/* A BMC's VGA is no GPU: ASPEED, Matrox G200e. */
	return vendor != 0x1a03 && vendor != 0x102b;
}

static unsigned int cfg16(const uint8_t *cfg, size_t off)
{
	return (unsigned int)cfg[off] | (unsigned int)cfg[off + 1] << 8;
}

static uint32_t cfg32(const uint8_t *cfg, size_t off)
{
	return (uint32_t)cfg16(cfg, off) | (uint32_t)cfg16(cfg, off + 2) << 16;
}

static enum pcie_port_type port_type(unsigned int t)
{
	switch (t) {
	case 0x0: case 0x1: return PCIE_TYPE_ENDPOINT;
	case 0x4: return PCIE_TYPE_ROOT_PORT;
	case 0x5: return PCIE_TYPE_UPSTREAM;
	case 0x6: return PCIE_TYPE_DOWNSTREAM;
	case 0x7: case 0x8: return PCIE_TYPE_PCI_BRIDGE;
	default: return PCIE_TYPE_OTHER;
	}
}

/* The PCI Express capability in the standard list (at most 48 hops). */
static enum pcie_port_type find_exp(const uint8_t *cfg, size_t len)
{
	size_t pos;

	if (len < 0x40 || !(cfg16(cfg, 0x06) & 0x10))
		return PCIE_TYPE_UNKNOWN;
	pos = cfg[0x34] & ~3u;
	for (int hops = 0; hops < 48 && pos >= 0x40 && pos + 4 <= len && pos < 0x100; hops++) {
		if (cfg[pos] == 0x10)
			return port_type((cfg16(cfg, pos + 2) >> 4) & 0xf);
		pos = cfg[pos + 1] & ~3u;
	}
	return PCIE_TYPE_UNKNOWN;
}

/* The ACS extended capability (id 0x000d) from 0x100 on, at most 480 hops. */
static void find_acs(const uint8_t *cfg, struct pcie_acs *acs)
{
	size_t pos = 0x100;

	acs->state = PCIE_ACS_ABSENT;
	for (int hops = 0; hops < 480 && pos >= 0x100 && pos + 8 <= 4096; hops++) {
		uint32_t h = cfg32(cfg, pos);

		if (h == 0xffffffffu) {
			acs->state = PCIE_ACS_UNREAD;	/* the function did not answer */
			return;
		}
		if (!h)
			return;
		if ((h & 0xffff) == 0x000d) {
			acs->state = PCIE_ACS_PRESENT;
			acs->cap = (uint16_t)cfg16(cfg, pos + 4);
			acs->ctl = (uint16_t)cfg16(cfg, pos + 6);
			return;
		}
		pos = (h >> 20) & 0xffc;
	}
}

void pcie_config_parse(const uint8_t *cfg, size_t len, enum pcie_port_type *type,
		       struct pcie_acs *acs)
{
	memset(acs, 0, sizeof(*acs));
	*type = find_exp(cfg, len);
	if (len >= 4096)
		find_acs(cfg, acs);
	else if (len >= 0x100 && *type == PCIE_TYPE_UNKNOWN && (cfg16(cfg, 0x06) & 0x10))
		acs->state = PCIE_ACS_ABSENT;	/* conventional PCI: no extended space */
}

const char *pcie_port_type_name(enum pcie_port_type t)
{
	static const char *const names[] = {
		[PCIE_TYPE_UNKNOWN] = "unknown", [PCIE_TYPE_ENDPOINT] = "endpoint",
		[PCIE_TYPE_ROOT_PORT] = "root_port", [PCIE_TYPE_UPSTREAM] = "upstream",
		[PCIE_TYPE_DOWNSTREAM] = "downstream", [PCIE_TYPE_PCI_BRIDGE] = "pci_bridge",
		[PCIE_TYPE_OTHER] = "other",
	};

	return (unsigned int)t < ARRAY_SIZE(names) ? names[t] : "unknown";
}

void pcie_fw_lldp_flag(struct pcie_dev *d, const char *flag, bool on)
{
	if (!strcmp(flag, "disable-fw-lldp"))
		d->fw_lldp = on ? PCIE_FW_LLDP_OFF : PCIE_FW_LLDP_ON;
	else if (!strcmp(flag, "fw-lldp-agent"))
		d->fw_lldp = on ? PCIE_FW_LLDP_ON : PCIE_FW_LLDP_OFF;
	else
		return;
	str_fmt(d->fw_lldp_flag, sizeof(d->fw_lldp_flag), "%s", flag);
}

void pcie_fw_lldp_parse(struct pcie_dev *d, const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t e = i, n;
		char line[96], *colon, *val;

		while (e < len && text[e] != '\n')
			e++;
		n = e - i < sizeof(line) - 1 ? e - i : sizeof(line) - 1;
		memcpy(line, text + i, n);
		line[n] = '\0';
		i = e + 1;
		colon = strrchr(line, ':');
		if (!colon || colon == line)
			continue;
		*colon = '\0';
		for (char *t = colon; t > line && (t[-1] == ' ' || t[-1] == '\t'); t--)
			t[-1] = '\0';
		for (val = colon + 1; *val == ' ' || *val == '\t'; val++)
			;
		val[strcspn(val, " \t\r")] = '\0';
		if (strcmp(val, "on") && strcmp(val, "off"))
			continue;
		pcie_fw_lldp_flag(d, line + strspn(line, " \t"), !strcmp(val, "on"));
	}
}

const char *pcie_fw_lldp_name(enum pcie_fw_lldp s)
{
	return s == PCIE_FW_LLDP_ON ? "on" : s == PCIE_FW_LLDP_OFF ? "off" : "unknown";
}

bool pcie_kernel_at_least(const char *release, unsigned int major, unsigned int minor)
{
	unsigned int a = 0, b = 0;

	if (str_scan(release, "%u.%u", &a, &b) != 2)
		return false;
	return a > major || (a == major && b >= minor);
}
