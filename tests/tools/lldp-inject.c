// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lldp-inject: send a crafted LLDPDU out of one interface, once a second,
 * until killed.  Test helper for fabricctl's LLDP MTU check: lldpd does
 * not send the IEEE 802.3 Max Frame Size TLV, this does.
 *
 *   lldp-inject -i IFACE -c CHASSIS -p PORT [-n SYSNAME] [-m MFS] [-t TTL]
 *               [-b] [-I INTERVAL_MS] [-o]
 *
 * The LLDPDU carries, in order: Chassis ID (subtype 7, locally assigned:
 * CHASSIS), Port ID (subtype 5, interface name: PORT), TTL, System Name
 * (-n), System Capabilities (-b: bridge, enabled; else station), the
 * IEEE 802.3 Max Frame Size TLV (OUI 00-12-0F, subtype 4) when -m is
 * given, End.  Sent to the nearest-bridge group 01:80:c2:00:00:0e from
 * IFACE's own MAC on a packet socket (needs CAP_NET_RAW; run it inside
 * the namespace that owns IFACE).  After the first frame is sent it
 * prints "ready" on stdout, so a test can wait for it; -o sends one frame
 * and exits.  Build: cc -O2 -o lldp-inject tests/tools/lldp-inject.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef ETH_P_LLDP
#define ETH_P_LLDP 0x88cc
#endif

struct frame {
	uint8_t buf[1514];
	size_t len;
};

static int tlv(struct frame *f, unsigned int type, const void *val, size_t len)
{
	uint16_t hdr;

	if (len > 511 || f->len + 2 + len > sizeof(f->buf))
		return -EMSGSIZE;
	hdr = htons((uint16_t)(type << 9 | len));
	memcpy(f->buf + f->len, &hdr, 2);
	memcpy(f->buf + f->len + 2, val, len);
	f->len += 2 + len;
	return 0;
}

/* A TLV whose value is a subtype byte followed by a string. */
static int tlv_sub_str(struct frame *f, unsigned int type, uint8_t subtype, const char *s)
{
	uint8_t v[256];
	size_t n = strlen(s);

	if (n == 0 || n > 255)
		return -EINVAL;
	v[0] = subtype;
	memcpy(v + 1, s, n);
	return tlv(f, type, v, n + 1);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: lldp-inject -i IFACE -c CHASSIS -p PORT [-n SYSNAME] [-m MFS] [-t TTL]\n"
		   "                   [-b] [-I INTERVAL_MS] [-o]\n");
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	const char *ifname = NULL, *chassis = NULL, *port = NULL, *sysname = NULL;
	unsigned long mfs = 0, ttl = 120, interval_ms = 1000;
	int opt, fd = -1, rc = 1, once = 0, bridge = 0;
	struct sockaddr_ll sll = { 0 };
	struct ifreq ifr = { 0 };
	struct frame f = { .len = 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	uint8_t v[8];

	while ((opt = getopt(argc, argv, "i:c:p:n:m:t:bI:oh")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'c': chassis = optarg; break;
		case 'p': port = optarg; break;
		case 'n': sysname = optarg; break;
		case 'm': mfs = strtoul(optarg, NULL, 0); break;
		case 't': ttl = strtoul(optarg, NULL, 0); break;
		case 'b': bridge = 1; break;
		case 'I': interval_ms = strtoul(optarg, NULL, 0); break;
		case 'o': once = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!ifname || !chassis || !port || mfs > 65535 || ttl > 65535 ||
	    interval_ms == 0 || strlen(ifname) >= IFNAMSIZ) {
		usage(stderr);
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_LLDP));
	if (fd < 0) {
		perror("lldp-inject: socket(AF_PACKET)");
		goto out;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		fprintf(stderr, "lldp-inject: %s: %s\n", ifname, strerror(errno));
		goto out;
	}

	/* Ethernet header: nearest bridge group, our MAC, LLDP ethertype. */
	memcpy(f.buf, (const uint8_t[]){ 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e }, 6);
	memcpy(f.buf + 6, ifr.ifr_hwaddr.sa_data, 6);
	f.buf[12] = ETH_P_LLDP >> 8;
	f.buf[13] = ETH_P_LLDP & 0xff;
	f.len = 14;

	if (tlv_sub_str(&f, 1, 7, chassis) < 0 ||	/* chassis id, locally assigned */
	    tlv_sub_str(&f, 2, 5, port) < 0)		/* port id, interface name */
		goto bad;
	v[0] = (uint8_t)(ttl >> 8);
	v[1] = (uint8_t)ttl;
	if (tlv(&f, 3, v, 2) < 0)
		goto bad;
	if (sysname && tlv(&f, 5, sysname, strlen(sysname)) < 0)
		goto bad;
	/* System capabilities: available, enabled (16 bits each). */
	v[0] = 0;
	v[1] = bridge ? 0x04 : 0x80;
	v[2] = 0;
	v[3] = v[1];
	if (tlv(&f, 7, v, 4) < 0)
		goto bad;
	if (mfs) {
		/* IEEE 802.3 organizationally specific: OUI 00-12-0F, subtype 4 MFS. */
		v[0] = 0x00;
		v[1] = 0x12;
		v[2] = 0x0f;
		v[3] = 4;
		v[4] = (uint8_t)(mfs >> 8);
		v[5] = (uint8_t)mfs;
		if (tlv(&f, 127, v, 6) < 0)
			goto bad;
	}
	if (tlv(&f, 0, NULL, 0) < 0)
		goto bad;
	while (f.len < 60)	/* minimum Ethernet frame without FCS */
		f.buf[f.len++] = 0;

	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_LLDP);
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, f.buf, 6);
	if (sll.sll_ifindex == 0) {
		fprintf(stderr, "lldp-inject: %s: %s\n", ifname, strerror(errno));
		goto out;
	}
	for (unsigned long n = 0; !stop; n++) {
		struct timespec ts = { (time_t)(interval_ms / 1000), (long)(interval_ms % 1000) * 1000000L };

		if (sendto(fd, f.buf, f.len, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
			fprintf(stderr, "lldp-inject: %s: send: %s\n", ifname, strerror(errno));
			goto out;
		}
		if (n == 0) {
			printf("ready\n");
			fflush(stdout);
		}
		if (once)
			break;
		nanosleep(&ts, NULL);	/* interrupted by SIGTERM: loop ends */
	}
	rc = 0;
	goto out;
bad:
	fprintf(stderr, "lldp-inject: an LLDP field is empty or too long\n");
	rc = 2;
out:
	if (fd >= 0)
		close(fd);
	return rc;
}
