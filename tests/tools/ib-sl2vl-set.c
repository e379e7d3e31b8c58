// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ib-sl2vl-set: write a switch's SL-to-VL mapping tables, as a subnet
 * manager would, with SubnSet(SLtoVLMappingTable) (attribute modifier
 * input port << 8 | output port; LID-routed SMPs through libibmad), and
 * read each table back.  For tests that need a lane assignment the SM did
 * not make (infiniband-diags reads SL2VL tables, writes none).
 *
 *   ib-sl2vl-set [-C CA] [-P PORT] SWITCH_LID IN|all OUT|all VL[,VL...]
 *
 * "all" is every port 1 .. NumPorts (NodeInfo), IN = OUT left out.  One
 * VL maps every SL to it; 16 comma-separated VLs give SL 0 .. 15 each.
 * Prints "lid L in I out O: VL0 .. VL15" per table written.  Exit 0 when
 * every table reads back as written, 1 when not, 2 on usage, 3 when a MAD
 * fails.  Build: cc -o ib-sl2vl-set ib-sl2vl-set.c $(pkg-config --libs libibmad libibumad)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mad.h>

static int num(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 0);
	return *s && !*end && *v <= max ? 0 : -1;
}

/* "all" -> 0 (every port); else the port number in *@v. */
static int port_arg(const char *s, unsigned long *v)
{
	if (strcmp(s, "all") == 0) {
		*v = 0;
		return 0;
	}
	return num(s, 254, v) < 0 || !*v ? -1 : 0;
}

/* "V" or "V0,V1,...,V15" into the 8 bytes of a table. */
static int vls_arg(const char *s, uint8_t raw[8])
{
	unsigned long vl[16];
	int n = 0;
	char *dup = strdup(s), *save = NULL;

	for (char *tok = strtok_r(dup, ",", &save); tok && n < 17; tok = strtok_r(NULL, ",", &save))
		if (n == 16 || num(tok, 15, &vl[n++]) < 0)
			n = 17;
	free(dup);
	if (n != 1 && n != 16)
		return -1;
	for (int i = 1; n == 1 && i < 16; i++)
		vl[i] = vl[0];
	for (int i = 0; i < 8; i++)
		raw[i] = (uint8_t)(vl[2 * i] << 4 | vl[2 * i + 1]);
	return 0;
}

static int one(struct ibmad_port *mp, ib_portid_t *id, unsigned int in, unsigned int out,
	       const uint8_t raw[8])
{
	uint8_t buf[IB_SMP_DATA_SIZE] = { 0 }, back[IB_SMP_DATA_SIZE] = { 0 };
	unsigned int mod = in << 8 | out;

	memcpy(buf, raw, 8);
	if (!smp_set_via(buf, id, IB_ATTR_SLVL_TABLE, mod, 0, mp) ||
	    !smp_query_via(back, id, IB_ATTR_SLVL_TABLE, mod, 0, mp)) {
		fprintf(stderr, "ib-sl2vl-set: lid %d: SubnSet(SLtoVLMappingTable) in %u out %u "
			"failed\n", id->lid, in, out);
		return 3;
	}
	printf("lid %d in %u out %u:", id->lid, in, out);
	for (int i = 0; i < 8; i++)
		printf(" %u %u", back[i] >> 4, back[i] & 0xf);
	printf("\n");
	return memcmp(back, raw, 8) ? 1 : 0;
}

int main(int argc, char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	uint8_t ni[IB_SMP_DATA_SIZE] = { 0 }, raw[8];
	unsigned long lid, in, out, port = 0, nports;
	char *ca = NULL;
	struct ibmad_port *mp;
	ib_portid_t id = { 0 };
	int opt, rc = 0;

	while ((opt = getopt(argc, argv, "C:P:")) != -1) {
		if (opt == 'C')
			ca = optarg;
		else if (opt == 'P' && num(optarg, 255, &port) == 0)
			continue;
		else
			goto usage;
	}
	if (argc - optind != 4 || num(argv[optind], 0xbfff, &lid) < 0 || !lid ||
	    port_arg(argv[optind + 1], &in) < 0 || port_arg(argv[optind + 2], &out) < 0 ||
	    vls_arg(argv[optind + 3], raw) < 0)
		goto usage;
	mp = mad_rpc_open_port(ca, (int)port, classes, 2);
	if (!mp) {
		fprintf(stderr, "ib-sl2vl-set: cannot open a MAD port\n");
		return 3;
	}
	ib_portid_set(&id, (int)lid, 0, 0);
	if (!smp_query_via(ni, &id, IB_ATTR_NODE_INFO, 0, 0, mp)) {
		fprintf(stderr, "ib-sl2vl-set: lid %lu: SubnGet(NodeInfo) failed\n", lid);
		return 3;
	}
	nports = mad_get_field(ni, 0, IB_NODE_NPORTS_F);
	for (unsigned long i = in ? in : 1; i <= (in ? in : nports) && rc < 3; i++)
		for (unsigned long o = out ? out : 1; o <= (out ? out : nports) && rc < 3; o++) {
			int r;

			if (i == o && (!in || !out))
				continue;
			r = one(mp, &id, (unsigned int)i, (unsigned int)o, raw);
			if (r > rc)
				rc = r;
		}
	mad_rpc_close_port(mp);
	return rc;
usage:
	fprintf(stderr, "usage: ib-sl2vl-set [-C CA] [-P PORT] SWITCH_LID IN|all OUT|all "
		"VL[,VL...]\n");
	return 2;
}
