/*
 * One JSON string writer for the tools (json.h).
 */
#include "lib/json.h"

#include <stdbool.h>
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

/* Whether [s, s + len) is a decimal integer as JSON writes one. */
static bool is_integer(const char *s, size_t len)
{
	size_t i = len && s[0] == '-';

	if (i == len || (s[i] == '0' && len > i + 1))
		return false;
	for (; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

void json_value(FILE *out, const char *v)
{
	if (!strcmp(v, "true") || !strcmp(v, "false") || is_integer(v, strlen(v)))
		fputs(v, out);
	else
		json_str(out, v);
}

void json_state_pairs(FILE *out, const char *items, const char *sep)
{
	size_t seplen = strlen(sep);
	bool first = true;

	fputc('[', out);
	for (const char *item = items; item && *item;) {
		const char *end = strstr(item, sep), *eq;
		size_t len = end ? (size_t)(end - item) : strlen(item), n;
		bool seen = false;

		for (const char *prev = items; prev < item && !seen;) {
			const char *pend = strstr(prev, sep);

			seen = (size_t)(pend - prev) == len && !memcmp(prev, item, len);
			prev = pend + seplen;
		}
		eq = NULL;
		for (const char *c = item; c < item + len; c++)
			eq = *c == '=' ? c : eq;
		if (!seen && eq && eq > item) {
			n = len - (size_t)(eq + 1 - item);
			fputs(first ? "{\"name\":\"" : ",{\"name\":\"", out);
			json_chars_n(out, item, (size_t)(eq - item));
			fputs("\",\"value\":", out);
			if (is_integer(eq + 1, n)) {
				fwrite(eq + 1, 1, n, out);
			} else {
				fputc('"', out);
				json_chars_n(out, eq + 1, n);
				fputc('"', out);
			}
			fputc('}', out);
			first = false;
		}
		item = end ? end + seplen : item + len;
	}
	fputc(']', out);
}
