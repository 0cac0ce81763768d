/* libFuzzer target for src/fcgiproto.c: the input is a FastCGI byte stream from a web server. Every
 * whole record is found or the stream refused; params parse or are refused; every lookup stays in
 * bounds; what we write is again well-formed records. See fuzz/README. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fcgiproto.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;
	struct fcgiproto_record rec;
	int got;
	while ((got = fcgiproto_next_record(data + off, size - off, &rec)) == 1) {
		if (rec.size < FCGI_HEADER_LEN + rec.len || rec.size > size - off)
			abort();
		/* PARAMS and GET_VALUES contents are name-value pairs: parse them whatever the type says. */
		struct fcgiproto_params pp;
		if (fcgiproto_params_parse(&pp, rec.content, rec.len) == 0) {
			char *path = fcgiproto_path(&pp);
			if (path == NULL)
				abort();
			free(path);
			(void)fcgiproto_header(&pp, "Host");
			(void)fcgiproto_header(&pp, "Content-Type");
			(void)fcgiproto_header(&pp, "X-A-Very-Long-Header-Name-That-Is-Longer-Than-The-Buffer-We-Build-"
			                            "For-The-Cgi-Variable-Name-Of-It-Surely-More-Than-128-Bytes");
			(void)fcgiproto_query(&pp, "limit");
			for (size_t i = 0; i < pp.n_kv; i++)
				if (pp.kv[i] == NULL)
					abort();
		}
		fcgiproto_params_free(&pp);
		struct buf out = {0};
		if (fcgiproto_get_values(rec.content, rec.len, 10, 20, &out) == 0) {
			struct fcgiproto_record back;
			if (fcgiproto_next_record((unsigned char *)out.data, out.len, &back) != 1 || back.size != out.len ||
			    back.type != FCGI_GET_VALUES_RESULT)
				abort();
		}
		fcgiproto_put_stdout(&out, rec.id, (const char *)rec.content, rec.len);
		fcgiproto_put_end(&out, rec.id, 1, FCGI_REQUEST_COMPLETE);
		size_t o = 0;
		struct fcgiproto_record w;
		while (o < out.len && fcgiproto_next_record((unsigned char *)out.data + o, out.len - o, &w) == 1)
			o += w.size;
		if (o != out.len)
			abort(); /* what we write must split back into whole records */
		buf_free(&out);
		off += rec.size;
	}
	if (got == 0 && size - off >= FCGI_HEADER_LEN && data[off] == 1) {
		size_t need = FCGI_HEADER_LEN + (((size_t)data[off + 4] << 8) | data[off + 5]) + data[off + 6];
		if (size - off >= need)
			abort(); /* a whole record was not found */
	}
	return 0;
}
