/* testlib.h -- what every unit test's main() shares: run one suite, exit 0 only if all passed. */
#ifndef BB_TESTLIB_H
#define BB_TESTLIB_H

#include <check.h>

/* Run the suite (in forked children unless fork is 0) and turn the result into an exit status. */
static inline int
testlib_run(Suite *s, int fork)
{
	SRunner *sr = srunner_create(s);
	if (!fork)
		srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

#endif
