/*
 * The server's own pages: the library's index, a scenario's page (its
 * text, the forms that run, explore and edit it), an exploration's
 * findings. Plain HTML with a little inline style, nothing fetched from
 * elsewhere. The timeline that plays a run is the HTML view's
 * (tools/html), not these.
 */
#define _GNU_SOURCE
#include "srv_page.h"

#include <string.h>

void page_text(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			if (c < 0x20 && c != '\n' && c != '\t')
				fprintf(out, "&#xfffd;");
			else
				fputc(c, out);
		}
	}
}

void page_str(FILE *out, const char *s)
{
	page_text(out, s, strlen(s));
}

/* A query parameter's value in a link: what is not unreserved, as %XX. */
void page_url(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-._~/", c))
			fputc(c, out);
		else
			fprintf(out, "%%%02X", c);
	}
}

void page_head(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", out);
	page_str(out, title);
	fputs(" - kwsim serve</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:1.5em;max-width:70em}\n"
	      "pre,textarea{font-family:monospace;font-size:13px}\n"
	      "table.src{border-collapse:collapse}\n"
	      "table.src td{padding:0 .5em;vertical-align:top;white-space:pre}\n"
	      "td.n{color:#888;text-align:right;user-select:none}\n"
	      "tr.err td{background:#fdd}\ntd.msg{color:#a00;white-space:normal}\n"
	      "form{margin:.5em 0}\nfieldset{margin:.5em 0}\n"
	      "</style></head>\n<body>\n<p><a href=\"/\">kwsim serve</a></p>\n<h1>", out);
	page_str(out, title);
	fputs("</h1>\n", out);
}

void page_tail(FILE *out)
{
	fputs("</body></html>\n", out);
}

void page_index(FILE *out, char **ids, size_t n, const char *const *cut)
{
	const char *dir = "";
	size_t len = 0;		/* dir's folder: its first len bytes */

	page_head(out, "Scenarios");
	fprintf(out, "<p>%zu scenario files. Open one to read it, run it on a kernel variant "
		"with a strategy and seed, explore it, or edit it.</p>\n", n);
	for (size_t i = 0; cut && cut[i]; i++) {
		fputs("<p class=\"cut\"><b>", out);
		page_str(out, cut[i]);
		fprintf(out, "/ holds more than %d scenario files: only %d of them are listed (the "
			"server's bound); serve a smaller folder with --root.</b></p>\n",
			SRV_MAX_LIST, SRV_MAX_LIST);
	}
	fputs("<ul>\n", out);
	for (size_t i = 0; i < n; i++) {
		const char *slash = strrchr(ids[i], '/');
		size_t dl = (size_t)(slash - ids[i]);

		if (len != dl || strncmp(dir, ids[i], dl)) {
			fputs("</ul>\n<h2>", out);
			page_text(out, ids[i], dl);
			fputs("</h2>\n<ul>\n", out);
			dir = ids[i];
			len = dl;
		}
		fputs("<li><a href=\"/scenario?file=", out);
		page_url(out, ids[i]);
		fputs("\">", out);
		page_str(out, slash + 1);
		fputs("</a></li>\n", out);
	}
	fputs("</ul>\n", out);
	page_tail(out);
}

static void options(FILE *out, const char *const *names, size_t n, const char *selected)
{
	for (size_t i = 0; i < n; i++) {
		fputs("<option", out);
		if (selected && !strcmp(selected, names[i]))
			fputs(" selected", out);
		fputs(">", out);
		page_str(out, names[i]);
		fputs("</option>", out);
	}
}

static void hidden(FILE *out, const struct page_scn *p)
{
	fputs("<input type=\"hidden\" name=\"", out);
	fputs(p->edit ? "edit" : "file", out);
	fputs("\" value=\"", out);
	page_str(out, p->id);
	fputs("\">", out);
}

static const char *const run_strategies[] = { "faithful", "random" };

/* The source with line numbers, the parser's messages under the lines they name. */
static void source(FILE *out, const struct page_scn *p)
{
	const char *s = p->text, *end = p->text + p->len;
	int line = 1;

	fputs("<table class=\"src\">\n", out);
	while (s < end || line == 1) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		bool err = false;

		for (size_t i = 0; i < p->nerrors; i++)
			err |= p->errors[i].line == line;
		fprintf(out, "<tr id=\"L%d\"%s><td class=\"n\">%d</td><td>", line,
			err ? " class=\"err\"" : "", line);
		page_text(out, s, n);
		fputs("</td></tr>\n", out);
		for (size_t i = 0; i < p->nerrors; i++) {
			if (p->errors[i].line != line)
				continue;
			fputs("<tr class=\"err\"><td class=\"n\"></td><td class=\"msg\">", out);
			page_str(out, p->errors[i].text);
			fputs("</td></tr>\n", out);
		}
		line++;
		if (!nl)
			break;
		s = nl + 1;
	}
	fputs("</table>\n", out);
	/* messages that name no line of this text */
	for (size_t i = 0; i < p->nerrors; i++) {
		if (p->errors[i].line)
			continue;
		fputs("<p class=\"msg\" style=\"color:#a00\">", out);
		page_str(out, p->errors[i].text);
		fputs("</p>\n", out);
	}
}

void page_scenario(FILE *out, const struct page_scn *p)
{
	page_head(out, p->title);
	if (p->nerrors)
		fprintf(out, "<p style=\"color:#a00\">The scenario does not parse: %zu error%s, "
			"shown at %s line%s below.</p>\n", p->nerrors, p->nerrors == 1 ? "" : "s",
			p->nerrors == 1 ? "its" : "their", p->nerrors == 1 ? "" : "s");
	if (!p->nerrors) {
		fputs("<fieldset><legend>Run</legend><form id=\"run\" method=\"get\" action=\"/play\">", out);
		hidden(out, p);
		fputs("kernel <select name=\"kernel\">", out);
		options(out, p->kernels, p->nkernels, p->kernel);
		fputs("</select> strategy <select name=\"strategy\">", out);
		options(out, run_strategies, 2, "faithful");
		fputs("</select> seed <input name=\"seed\" size=\"8\" placeholder=\"(random only)\">"
		      " <label><input type=\"checkbox\" name=\"live\" value=\"1\" checked> live, "
		      "</label><input name=\"ms\" size=\"4\" value=\"100\"> ms a step"
		      " <button>Run and play</button> <button formaction=\"/api/run\">Result "
		      "as JSON</button></form></fieldset>\n", out);
		fputs("<fieldset><legend>Explore</legend><form id=\"explore\" method=\"get\" "
		      "action=\"/explore\">", out);
		hidden(out, p);
		fputs("kernel <select name=\"kernel\">", out);
		options(out, p->kernels, p->nkernels, p->kernel);
		fputs("</select> strategy <select name=\"strategy\">", out);
		options(out, p->strategies, p->nstrategies, p->nstrategies ? p->strategies[0] : NULL);
		fprintf(out, "</select> seed <input name=\"seed\" size=\"8\" value=\"0\"> runs "
			"<input name=\"runs\" size=\"6\" value=\"100\"> (at most %d) "
			"<button>Explore</button></form></fieldset>\n", SRV_MAX_RUNS);
		if (p->has_schedule) {
			fputs("<form method=\"get\" action=\"/play\">", out);
			hidden(out, p);
			fputs("<input type=\"hidden\" name=\"replay\" value=\"1\"><input type=\"hidden\" "
			      "name=\"live\" value=\"1\"><button>Replay its "
			      "schedule</button></form>\n", out);
		}
	}
	source(out, p);
	fputs("<fieldset><legend>Edit and run</legend>\n"
	      "<form id=\"edit\" method=\"post\" action=\"/edit\" "
	      "enctype=\"application/x-www-form-urlencoded\">\n"
	      "<input type=\"hidden\" name=\"token\" value=\"", out);
	page_str(out, p->token);
	fputs("\">\n<textarea name=\"text\" rows=\"30\" cols=\"100\" spellcheck=\"false\">", out);
	page_text(out, p->text, p->len);
	fputs("</textarea><br>\nkernel <select name=\"kernel\">", out);
	options(out, p->kernels, p->nkernels, p->kernel);
	fputs("</select> strategy <select name=\"strategy\">", out);
	options(out, run_strategies, 2, "faithful");
	fprintf(out, "</select> seed <input name=\"seed\" size=\"8\"> <button>Run the edited "
		"scenario</button> (at most %d bytes)</form></fieldset>\n", SRV_MAX_BODY);
	page_tail(out);
}

void page_explored(FILE *out, const char *title, const char *summary,
		   const char *const *edits, const char *const *whats, size_t n)
{
	page_head(out, title);
	if (!n)
		fputs("<p>Nothing found.</p>\n", out);
	else
		fputs("<h2>Findings</h2>\n<ol>\n", out);
	for (size_t i = 0; i < n; i++) {
		fputs("<li>", out);
		page_str(out, whats[i]);
		fputs(" <a href=\"/play?edit=", out);
		page_url(out, edits[i]);
		fputs("&amp;replay=1&amp;live=1\">play its run</a> <a href=\"/scenario?edit=", out);
		page_url(out, edits[i]);
		fputs("\">its replay file</a></li>\n", out);
	}
	if (n)
		fputs("</ol>\n", out);
	fputs("<h2>Summary (kwsim explore --json)</h2>\n<pre>", out);
	page_str(out, summary);
	fputs("</pre>\n", out);
	page_tail(out);
}
