/*
 * One JSON string writer for the tools (json.h).
 */
#include "json.h"

#include <string.h>

/* The length of a valid UTF-8 sequence at s, 0 if there is none (RFC 3629). */
static int utf8_len(const unsigned char *s, size_t left)
{
	int n = s[0] < 0x80 ? 1 : s[0] < 0xc2 ? 0 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 :
		s[0] < 0xf5 ? 4 : 0;

	if ((size_t)n > left)
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong forms, UTF-16 surrogates and code points past U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

void json_chars_n(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		int n = utf8_len(p, (size_t)(end - p));

		if (*p == '"' || *p == '\\') {
			fprintf(out, "\\%c", *p);
		} else if (*p == '\n') {
			fputs("\\n", out);
		} else if (*p == '\t') {
			fputs("\\t", out);
		} else if (*p < 0x20 || *p == 0x7f) {
			/* Perfetto's tokenizer refuses raw control characters; DEL is one too */
			fprintf(out, "\\u%04x", *p);
		} else if (!n) {
			fputs("\\ufffd", out);
		} else {
			fwrite(p, 1, (size_t)n, out);
		}
		p += n ? n : 1;
	}
}

void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	if (s)
		json_chars_n(out, s, strlen(s));
	fputc('"', out);
}
