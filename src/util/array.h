/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Arrays whose size the compiler knows. */
#ifndef FAB_UTIL_ARRAY_H
#define FAB_UTIL_ARRAY_H

/* Elements in the array @a (an array, not a pointer). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
