/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: Pi's product for messages, right for every index r >= 2:
 *   r = 2: "A(2,1) A(1,2)",  r = 3: "A(3,2) A(2,1) A(1,3)",
 *   r = 4: "A(4,3) A(3,2) A(2,1) A(1,4)",  r >= 5: "A(5,4) ... A(2,1) A(1,5)";
 * with norms, the product of the factors' norms ("||A(2,1)|| ||A(1,2)||").
 * (lib/system/system.c) */
#ifndef LTH_PI_TEXT_H
#define LTH_PI_TEXT_H

#include <stddef.h>

/* Write the text into buf (snprintf semantics) and return buf. */
const char *lth_pi_text(int r, int norms, char *buf, size_t size);

/* Room for any r. */
#define LTH_PI_TEXT_MAX 96

#endif
