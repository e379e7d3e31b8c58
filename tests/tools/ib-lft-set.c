// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ib-lft-set: change one entry of a switch's linear forwarding table, as a
 * subnet manager would, with a SubnGet then a SubnSet(LinearForwardingTable)
 * of the entry's block of 64 LIDs (LID-routed SMPs through libibmad), and
 * read the block back.  For tests that need a routing fault the SM did not
 * make (infiniband-diags has readers of LFTs, no writer).
 *
 *   ib-lft-set [-C CA] [-P PORT] SWITCH_LID DLID OUT_PORT
 *
 * OUT_PORT 255 takes the entry out (no route).  Prints "lid L lft[D] OLD -> NEW".
 * Exit 0 when the entry reads back as set, 1 when not, 2 on usage, 3 when
 * a MAD fails.  Build: cc -o ib-lft-set ib-lft-set.c $(pkg-config --libs libibmad libibumad)
 * Under ibsim: tests/lab/ibsim run ./ib-lft-set 12 7 255
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

int main(int argc, char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	uint8_t block[IB_SMP_DATA_SIZE], back[IB_SMP_DATA_SIZE];
	unsigned long lid, dlid, out, port = 0;
	char *ca = NULL;
	struct ibmad_port *mp;
	ib_portid_t id = { 0 };
	unsigned int b, old;
	int opt;

	while ((opt = getopt(argc, argv, "C:P:")) != -1) {
		if (opt == 'C')
			ca = optarg;
		else if (opt == 'P' && num(optarg, 255, &port) == 0)
			continue;
		else
			goto usage;
	}
	if (argc - optind != 3 || num(argv[optind], 0xbfff, &lid) < 0 || !lid ||
	    num(argv[optind + 1], 0xbfff, &dlid) < 0 || num(argv[optind + 2], 255, &out) < 0)
		goto usage;
	mp = mad_rpc_open_port(ca, (int)port, classes, 2);
	if (!mp) {
		fprintf(stderr, "ib-lft-set: cannot open a MAD port\n");
		return 3;
	}
	ib_portid_set(&id, (int)lid, 0, 0);
	b = (unsigned int)(dlid / IB_SMP_DATA_SIZE);
	if (!smp_query_via(block, &id, IB_ATTR_LINEARFORWTBL, b, 0, mp)) {
		fprintf(stderr, "ib-lft-set: lid %lu: SubnGet(LinearForwardingTable) block %u failed\n",
			lid, b);
		return 3;
	}
	old = block[dlid % IB_SMP_DATA_SIZE];
	block[dlid % IB_SMP_DATA_SIZE] = (uint8_t)out;
	if (!smp_set_via(block, &id, IB_ATTR_LINEARFORWTBL, b, 0, mp) ||
	    !smp_query_via(back, &id, IB_ATTR_LINEARFORWTBL, b, 0, mp)) {
		fprintf(stderr, "ib-lft-set: lid %lu: SubnSet(LinearForwardingTable) block %u failed\n",
			lid, b);
		return 3;
	}
	mad_rpc_close_port(mp);
	printf("lid %lu lft[%lu] %u -> %u\n", lid, dlid, old, back[dlid % IB_SMP_DATA_SIZE]);
	return back[dlid % IB_SMP_DATA_SIZE] == out ? 0 : 1;
usage:
	fprintf(stderr, "usage: ib-lft-set [-C CA] [-P PORT] SWITCH_LID DLID OUT_PORT\n");
	return 2;
}
