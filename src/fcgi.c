/* fcgi.c -- see fcgi.h. (Being written: until then --fastcgi reports that it is unavailable.) */
#include "autoconfig.h"

#include <stddef.h>

#include "fcgi.h"
#include "util.h"

/* Start the responder. */
struct fcgi *
fcgi_start(const char *spec, struct router *router, char **err)
{
	(void)spec;
	(void)router;
	*err = xstrdup("FastCGI is not available in this build yet");
	return NULL;
}

/* Stop it. NULL is fine. */
void
fcgi_stop(struct fcgi *f)
{
	(void)f;
}
