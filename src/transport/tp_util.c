// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/tp_util.h"
#include "transport/transport.h"
#include "util/clock.h"

bool tp_token_equal(const uint8_t *a, const uint8_t *b)
{
	uint8_t d = 0;

	for (size_t i = 0; i < TP_TOKEN_LEN; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

void tp_token_hex(const uint8_t *token, char *hex)
{
	for (size_t i = 0; i < TP_TOKEN_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", token[i]);
}

static int hex_digit(char c, bool any_case)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (any_case && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int tp_token_parse(const char *hex, uint8_t *token, bool any_case)
{
	if (!hex || strlen(hex) != 2 * TP_TOKEN_LEN)
		return -EINVAL;
	for (size_t i = 0; i < TP_TOKEN_LEN; i++) {
		int hi = hex_digit(hex[2 * i], any_case), lo = hex_digit(hex[2 * i + 1], any_case);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		token[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int tp_ms_left(uint64_t deadline_ns)
{
	uint64_t now = clock_mono_ns();

	if (now >= deadline_ns)
		return 0;
	return (int)((deadline_ns - now + 999999) / 1000000);
}

int tp_wait_fd(int fd, short events, int cancel_fd, uint64_t deadline_ns)
{
	struct pollfd pfd[2] = { { .fd = fd, .events = events },
				 { .fd = cancel_fd, .events = POLLIN } };
	int rc;

	for (;;) {
		int left = tp_ms_left(deadline_ns);

		if (left == 0)
			return -ETIMEDOUT;
		rc = poll(pfd, cancel_fd >= 0 ? 2 : 1, left);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -errno;
		if (cancel_fd >= 0 && pfd[1].revents)
			return -ECANCELED;
		if (pfd[0].revents)
			return 0;
	}
}

bool tp_cancelled(int cancel_fd)
{
	struct pollfd c = { .fd = cancel_fd, .events = POLLIN };

	return cancel_fd >= 0 && poll(&c, 1, 0) > 0;
}

int tp_meter_add(struct tp_meter *m, uint64_t now, uint64_t bytes)
{
	size_t b;

	m->t_last = now;
	m->bytes += bytes;
	b = (size_t)((now - m->t0) / m->interval_ns);
	if (b >= m->n_bucket) {
		size_t nn = b + 64;
		uint64_t *tmp = realloc(m->bucket, nn * sizeof(*tmp));

		if (!tmp)
			return -ENOMEM;
		memset(tmp + m->n_bucket, 0, (nn - m->n_bucket) * sizeof(*tmp));
		m->bucket = tmp;
		m->n_bucket = nn;
	}
	m->bucket[b] += bytes;
	return 0;
}

void tp_meter_figures(const struct tp_meter *m, uint64_t fig[5])
{
	uint64_t elapsed = m->t_last > m->t0 ? m->t_last - m->t0 : 0, full, min_b = 0;

	full = elapsed / m->interval_ns;
	for (uint64_t i = 0; i < full && i < m->n_bucket; i++)
		if (i == 0 || m->bucket[i] < min_b)
			min_b = m->bucket[i];
	fig[0] = m->bytes;
	fig[1] = elapsed;
	fig[2] = full;
	fig[3] = min_b;
	fig[4] = m->interval_ns;
}

void tp_meter_fini(struct tp_meter *m)
{
	free(m->bucket);
	m->bucket = NULL;
	m->n_bucket = 0;
}

void tp_bw_from_figures(struct sweep_bw *bw, const uint64_t fig[5])
{
	bw->measured = true;
	bw->bytes = fig[0];
	bw->secs = (double)fig[1] / 1e9;
	bw->avg_mbps = fig[1] ? (double)fig[0] * 8e3 / (double)fig[1] : 0;
	bw->intervals = (unsigned int)fig[2];
	bw->min_mbps = fig[2] && fig[4] ? (double)fig[3] * 8e3 / (double)fig[4] : bw->avg_mbps;
}
