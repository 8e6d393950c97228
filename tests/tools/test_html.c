/*
 * The browser timeline's C side (tools/html/html.h), as kwsim serve uses it:
 *  - the run document made in parts (a head object, chunks of records, the
 *    end object) is the same JSON as the whole document `kwsim export`
 *    embeds, for a race's run: the head's members, every record in order,
 *    the end;
 *  - records leave in (time, CPU) order, and none before the watermark
 *    passed them;
 *  - the page without a document asks the server for it, and has no
 *    document element; with one, "</script>" inside the document's strings
 *    cannot end its element.
 */
#include <html/html.h>
#include <model.h>
#include <scenario/scn.h>
#undef fail			/* the parser's, not Check's */

#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RACE KWSIM_SCENARIOS "/races/flush-from-own-worker.kws"

/* One run streamed into a document, released every few records. */
struct streamed {
	struct html_doc *d;
	size_t since;
};

static void on_rec(void *arg, const struct sim_rec *r)
{
	struct streamed *st = arg;

	html_doc_record(st->d, r);
	if (++st->since % 4 == 0)
		html_doc_release(st->d, sim_trace_watermark());
}

static void on_ev(void *arg, const struct scn_event *ev)
{
	html_doc_event(((struct streamed *)arg)->d, ev);
}

static void on_line(void *arg, const struct scn_event *ev)
{
	html_doc_line(((struct streamed *)arg)->d, ev);
}

static char *slurp(FILE *f, size_t *len)
{
	char *buf;
	long n;

	fflush(f);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	buf = calloc((size_t)n + 1, 1);
	ck_assert_ptr_nonnull(buf);
	rewind(f);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	*len = (size_t)n;
	return buf;
}

/*
 * The run of the race as one whole document (whole), or in parts: head,
 * records into chunks (a new output every 8 releases, each chunk wrapped in
 * [ ]), end; the parts are joined here as a server's client would.
 */
static char *document_of(const char *path, bool whole, bool watch)
{
	struct scn *s = scn_load(path, stderr);
	const struct kw_model *m;
	struct streamed st = { 0 };
	struct scn_run run = { .on_event = on_ev, .on_line = on_line, .event_arg = &st };
	FILE *head = tmpfile(), *recs = tmpfile(), *end = tmpfile(), *out = tmpfile();
	char *h, *r, *e, *doc;
	size_t hl, rl, el;

	ck_assert_ptr_nonnull(s);
	ck_assert(head && recs && end && out);
	m = kw_model_find(s->kernel);
	s->cfg.keep_trace = false;
	st.d = html_doc_begin(s, m, 0);
	if (watch)
		html_doc_watch(st.d, &run);
	html_doc_head(st.d, whole ? out : head, whole);
	html_doc_output(st.d, whole ? out : recs);
	sim_trace_set_sink(on_rec, &st);
	ck_assert_int_eq(scn_run(s, m, &run, stderr), 0);
	html_doc_end(st.d, whole ? out : end, &run, whole);
	html_doc_free(st.d);
	sim_fini();
	scn_run_free(&run);
	scn_free(s);
	if (whole) {
		doc = slurp(out, &hl);
	} else {
		h = slurp(head, &hl);
		r = slurp(recs, &rl);
		e = slurp(end, &el);
		/* the head is an object: open it up again for the records and the end */
		ck_assert_int_eq(h[hl - 1], '}');
		doc = calloc(hl + rl + el + 64, 1);
		ck_assert_ptr_nonnull(doc);
		sprintf(doc, "%.*s,\"records\":[\n%s\n],\"end\":%s}", (int)(hl - 1), h, r, e);
		free(h);
		free(r);
		free(e);
	}
	fclose(head);
	fclose(recs);
	fclose(end);
	fclose(out);
	return doc;
}

static char *document(bool whole)
{
	return document_of(RACE, whole, true);
}

/*
 * Watched, the document follows the works' and workers' states: the v4.9
 * race's timer callback queues D while the cancel's canceling count is 1,
 * which the kw_state records show; the run itself is the same, to its hash.
 */
START_TEST(states_of_works_and_workers)
{
	const char *race = KWSIM_SCENARIOS "/races/timer-callback-vs-cancel-delayed-work-sync-v4.9.kws";
	char *watched = document_of(race, true, true), *plain = document_of(race, true, false);
	const char *h1 = strstr(watched, "\"hash\":"), *h2 = strstr(plain, "\"hash\":");

	ck_assert_ptr_nonnull(strstr(watched, "\"ev\":\"kw_state\",\"obj\":\"D\","
					      "\"kind\":\"delayed_work\",\"pending\":1,\"queued\":1,"
					      "\"delayed\":0,\"running\":0,\"canceling\":1"));
	ck_assert_ptr_nonnull(strstr(watched, "\"ev\":\"kw_state\",\"obj\":\"W\","
					      "\"kind\":\"worker\",\"current_work\":null"));
	ck_assert_ptr_null(strstr(plain, "kw_state"));
	ck_assert(h1 && h2);
	ck_assert_int_eq(strncmp(h1, h2, 27), 0);
	free(watched);
	free(plain);
}
END_TEST

START_TEST(parts_make_the_whole)
{
	char *whole = document(true), *parts = document(false);

	ck_assert_str_eq(parts, whole);
	ck_assert_ptr_nonnull(strstr(whole, "{\"kwsim_doc\":1,"));
	ck_assert_ptr_nonnull(strstr(whole, "\"ev\":\"sched_kthread_work_execute_start\""));
	ck_assert_ptr_nonnull(strstr(whole, "\"what\":\"kthread_flush_work(A) begins\""));
	ck_assert_ptr_nonnull(strstr(whole, "\"kind\":\"deadlock\""));
	/* the work's state: running on its worker, which runs it */
	ck_assert_ptr_nonnull(strstr(whole, "\"obj\":\"A\",\"kind\":\"work\",\"pending\":0,"
					    "\"queued\":0,\"delayed\":0,\"running\":1"));
	/* the scenario's text is in it, '<' escaped ("(* ... *)" has none; the JSON has none) */
	ck_assert_ptr_null(strchr(whole, '<'));
	free(whole);
	free(parts);
}
END_TEST

/* Records in time order: the "t" of each is at least the one before. */
START_TEST(records_in_time_order)
{
	char *doc = document(true);
	unsigned long long last = 0, t;
	size_t n = 0;

	for (const char *p = strstr(doc, "\"records\":["); (p = strstr(p, "{\"t\":")); p++) {
		t = strtoull(p + 5, NULL, 10);
		ck_assert_uint_ge(t, last);
		last = t;
		n++;
	}
	ck_assert_uint_gt(n, 20);
	free(doc);
}
END_TEST

static char *page(const char *doc)
{
	FILE *f = tmpfile();
	size_t n;
	char *s;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(html_write_page(f, "a <title> & more", doc), 0);
	s = slurp(f, &n);
	fclose(f);
	return s;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

START_TEST(page_with_and_without_document)
{
	char *served = page(NULL);
	char *own = page("{\"kwsim_doc\":1,\"title\":\"x</script><script>alert(1)</script>\"}");

	/* served: the page asks /api/run or /api/play, and has no document of its own */
	ck_assert_ptr_null(strstr(served, "id=\"kwsim-doc\">"));
	ck_assert_ptr_nonnull(strstr(served, "'/api/run' + location.search"));
	ck_assert_ptr_nonnull(strstr(served, "'/api/play' + location.search"));
	ck_assert_ptr_nonnull(strstr(served, "<title>a &lt;title&gt; &amp; more - kwsim timeline"));
	ck_assert_uint_eq(count(served, "</script>"), 1);
	/* embedded: one element for the document, one for the script, nothing else ends one */
	ck_assert_ptr_nonnull(strstr(own, "<script type=\"application/json\" id=\"kwsim-doc\">"));
	ck_assert_uint_eq(count(own, "</script>"), 2);
	ck_assert_ptr_nonnull(strstr(own, "x\\u003c/script>\\u003cscript>"));
	/* no network: nothing loads from elsewhere */
	ck_assert_ptr_null(strstr(own, "https://"));
	ck_assert_ptr_null(strstr(own, "src=\""));
	ck_assert_ptr_null(strstr(own, "<link"));
	free(served);
	free(own);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("html");
	TCase *tc = tcase_create("html");

	tcase_add_test(tc, parts_make_the_whole);
	tcase_add_test(tc, records_in_time_order);
	tcase_add_test(tc, states_of_works_and_workers);
	tcase_add_test(tc, page_with_and_without_document);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
