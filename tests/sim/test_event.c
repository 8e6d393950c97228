/*
 * The event queue: what this suite pins down.
 *  - events fire by time, and at equal times in insertion order, each seeing
 *    its own time as sim_now();
 *  - a cancelled event never fires, wherever it sits in the heap;
 *  - 10k events at pseudo-random times (a fixed local LCG, many ties, some
 *    cancelled) come out sorted by (time, insertion order), both popped
 *    directly and fired by a run;
 *  - watchdog events do not keep the machine alive;
 *  - a suspend's sleep leaves the machine's events where they are and moves
 *    the outside world's (boot-clock) ones closer by the sleep; those that
 *    fell due meanwhile come at the wake-up, in the order they fell due;
 *  - time-faithful interleaving: an event fires only once no CPU that has
 *    work is earlier than it, and before a CPU that resumes at the same time;
 *  - an event done with serves the next one, cleared (and, in the sanitizer
 *    build, poisoned meanwhile).
 * The heap is the machine's private API, so this suite includes machine.h.
 */
#include "../harness.h"
#include "../../sim/machine.h"

#include <linux/delay.h>

#include <stdlib.h>

/* --- a log of what happened, in order --------------------------------------------- */

struct entry { char who; uint64_t time; };
static struct entry *log_buf;
static size_t log_len;

static void log_add(char who, uint64_t time)
{
	if (!log_buf)
		log_buf = calloc(20000, sizeof(*log_buf));
	ck_assert(log_buf && log_len < 20000);
	log_buf[log_len++] = (struct entry){ who, time };
}

static void on_event(void *arg)
{
	log_add((char)(uintptr_t)arg, sim_now());
}

/* The fixed LCG of Knuth's MMIX; the high bits are the good ones. */
static uint64_t lcg_state = 12345;

static uint64_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return lcg_state >> 33;
}

START_TEST(time_then_insertion_order)
{
	static const struct { uint64_t t; char who; } ev[] = {
		{ 30, 'a' }, { 10, 'b' }, { 20, 'c' }, { 10, 'd' },
		{ 30, 'e' }, { 10, 'f' }, { 0, 'g' },
	};
	static const char order[] = "gbdfcae";

	h_init(1);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		sim_event_at(ev[i].t, on_event, (void *)(uintptr_t)ev[i].who);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(log_len, 7);
	for (size_t i = 0; i < log_len; i++) {
		ck_assert_int_eq(log_buf[i].who, order[i]);
		if (i)
			ck_assert_uint_le(log_buf[i - 1].time, log_buf[i].time);
	}
	ck_assert_uint_eq(log_buf[0].time, 0);
	ck_assert_uint_eq(log_buf[3].time, 10);
	ck_assert_uint_eq(log_buf[6].time, 30);
}
END_TEST

START_TEST(cancel_removes)
{
	struct sim_event *ev[8];

	h_init(1);
	for (int i = 0; i < 8; i++)
		ev[i] = sim_event_add(100 - (uint64_t)i * 10, on_event,
				      (void *)(uintptr_t)('0' + i), false);
	/* the root (earliest), the last slot, and two in between */
	sim_event_cancel(ev[7]);
	sim_event_cancel(ev[0]);
	sim_event_cancel(ev[3]);
	sim_event_cancel(ev[5]);
	sim_event_cancel(NULL);		/* a no-op, as del_timer of nothing */
	ck_assert_uint_eq(sim.nheap, 4);
	ck_assert_uint_eq(sim.nlive_events, 4);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(log_len, 4);
	ck_assert_int_eq(log_buf[0].who, '6');
	ck_assert_int_eq(log_buf[1].who, '4');
	ck_assert_int_eq(log_buf[2].who, '2');
	ck_assert_int_eq(log_buf[3].who, '1');
	ck_assert_uint_eq(log_buf[0].time, 40);
	ck_assert_uint_eq(log_buf[3].time, 90);
}
END_TEST

#define NRANDOM 10000

/* Each event's insertion index and time, to check the order it comes out in. */
struct stamp { uint64_t time; size_t index; bool cancelled; bool fired; };
static struct stamp *stamps;
static size_t nfired;
static size_t last_fired = SIZE_MAX;

static void on_random_event(void *arg)
{
	struct stamp *s = arg;

	ck_assert(!s->cancelled && !s->fired);
	ck_assert_uint_eq(sim_now(), s->time);
	if (last_fired != SIZE_MAX) {
		const struct stamp *prev = &stamps[last_fired];

		ck_assert(prev->time < s->time ||
			  (prev->time == s->time && prev->index < s->index));
	}
	s->fired = true;
	last_fired = s->index;
	nfired++;
}

/* 10k events, times in [0, 2^12) so that ties abound; every fifth cancelled. */
static size_t add_random_events(struct sim_event **ev)
{
	size_t ncancel = 0;

	stamps = calloc(NRANDOM, sizeof(*stamps));
	ck_assert(stamps);
	for (size_t i = 0; i < NRANDOM; i++) {
		stamps[i].time = lcg() & 4095;
		stamps[i].index = i;
		ev[i] = sim_event_add(stamps[i].time, on_random_event, &stamps[i], false);
	}
	for (size_t i = 0; i < NRANDOM; i++) {
		size_t k = lcg() % NRANDOM;

		if (k % 5 || stamps[k].cancelled)
			continue;
		stamps[k].cancelled = true;
		sim_event_cancel(ev[k]);
		ncancel++;
	}
	return ncancel;
}

START_TEST(many_random_events_fire_sorted)
{
	static struct sim_event *ev[NRANDOM];
	size_t ncancel;

	h_init(2);
	ncancel = add_random_events(ev);
	ck_assert_uint_gt(ncancel, 100);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(nfired, NRANDOM - ncancel);
	for (size_t i = 0; i < NRANDOM; i++)
		ck_assert(stamps[i].fired != stamps[i].cancelled);
}
END_TEST

START_TEST(many_random_events_pop_sorted)
{
	static struct sim_event *ev[NRANDOM];
	size_t ncancel, n = 0;
	const struct sim_event *prev = NULL;

	h_init(1);
	ncancel = add_random_events(ev);
	while (sim_event_peek()) {
		struct sim_event *e = sim_event_pop();
		struct stamp *s = e->arg;

		ck_assert(!s->cancelled);
		ck_assert_uint_eq(e->time, s->time);
		if (prev)
			ck_assert(prev->time < e->time ||
				  (prev->time == e->time && prev->seq < e->seq));
		free((void *)prev);
		prev = e;
		n++;
	}
	free((void *)prev);
	ck_assert_uint_eq(n, NRANDOM - ncancel);
	ck_assert_uint_eq(sim.nlive_events, 0);
}
END_TEST

/*
 * A sleep at 40 for 100: the boot events of 60 and 120 fell due (in that
 * order, though 120's was added first), 300's comes at 200, 5's was before
 * the sleep; the machine's own events stay.
 */
START_TEST(a_sleep_moves_boot_events_only)
{
	static const char order[] = "awyxbcz";
	static const uint64_t times[] = { 5, 5, 40, 40, 50, 200, 200 };

	h_init(1);
	sim_event_at(5, on_event, (void *)(uintptr_t)'a');
	sim_event_at(50, on_event, (void *)(uintptr_t)'b');
	sim_event_at(200, on_event, (void *)(uintptr_t)'c');
	sim_event_add_boot(120, on_event, (void *)(uintptr_t)'x');
	sim_event_add_boot(60, on_event, (void *)(uintptr_t)'y');
	sim_event_add_boot(300, on_event, (void *)(uintptr_t)'z');
	sim_event_add_boot(5, on_event, (void *)(uintptr_t)'w');
	sim_events_slept(40, 100);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(log_len, 7);
	for (size_t i = 0; i < log_len; i++) {
		ck_assert_int_eq(log_buf[i].who, order[i]);
		ck_assert_uint_eq(log_buf[i].time, times[i]);
	}
}
END_TEST

/* The same over many random events: the heap stays a heap. */
START_TEST(a_sleep_keeps_the_heap_sorted)
{
	const uint64_t at = 500000, slept = 300000;
	const struct sim_event *prev = NULL;
	size_t n = 0;

	h_init(1);
	for (int i = 0; i < 4000; i++) {
		uint64_t t = lcg() % 1000000;
		struct sim_event *e = i % 2 ? sim_event_add_boot(t, on_event, NULL)
					    : sim_event_add(t, on_event, NULL, false);

		e->data = t;
	}
	sim_events_slept(at, slept);
	while (sim_event_peek()) {
		struct sim_event *e = sim_event_pop();
		uint64_t t = e->data, want = t;

		if (e->boot && t >= at)
			want = t - at >= slept ? t - slept : at;
		ck_assert_uint_eq(e->time, want);
		if (prev)
			ck_assert(prev->time < e->time ||
				  (prev->time == e->time && prev->seq < e->seq));
		free((void *)prev);
		prev = e;
		n++;
	}
	free((void *)prev);
	ck_assert_uint_eq(n, 4000);
}
END_TEST

START_TEST(watchdog_events_do_not_keep_alive)
{
	h_init(1);
	sim_event_add(50, on_event, (void *)(uintptr_t)'w', true);
	sim_event_add(100, on_event, (void *)(uintptr_t)'W', true);
	sim_event_at(70, on_event, (void *)(uintptr_t)'l');
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	/* the watchdog before the last live event fires, the one after it does not */
	ck_assert_uint_eq(log_len, 2);
	ck_assert_int_eq(log_buf[0].who, 'w');
	ck_assert_int_eq(log_buf[1].who, 'l');
}
END_TEST

/* --- time-faithful interleaving with CPUs ------------------------------------------- */

static int steps_fn(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++) {
		log_add('A', sim_now());
		udelay(1);
	}
	return 0;
}

static int far_ahead_fn(void *arg)
{
	(void)arg;
	udelay(1000);
	log_add('B', sim_now());
	return 0;
}

START_TEST(events_wait_for_earlier_cpus)
{
	static const struct entry want[] = {
		{ 'A', 1500 }, { 'A', 2500 }, { 'E', 3000 }, { 'F', 3500 }, { 'A', 3500 },
		{ 'A', 4500 }, { 'A', 5500 }, { 'G', 500000 }, { 'B', 1001500 }, { 'H', 2000000 },
	};

	h_init(2);
	/* A steps 1 us at a time on cpu0 from 1500 ns (after the switch in) */
	sim_spawn("A", steps_fn, NULL, 0, true, 0);
	/* B's cpu1 runs far ahead at once: its clock must not drag events early */
	sim_spawn("B", far_ahead_fn, NULL, 1, true, 0);
	sim_event_at(3000, on_event, (void *)(uintptr_t)'E');
	/* ties with A's resume at 3500: the event goes first */
	sim_event_at(3500, on_event, (void *)(uintptr_t)'F');
	sim_event_at(500000, on_event, (void *)(uintptr_t)'G');
	sim_event_at(2000000, on_event, (void *)(uintptr_t)'H');
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(log_len, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < log_len; i++)
		ck_assert_msg(log_buf[i].who == want[i].who && log_buf[i].time == want[i].time,
			      "entry %zu: %c@%llu, expected %c@%llu", i, log_buf[i].who,
			      (unsigned long long)log_buf[i].time, want[i].who,
			      (unsigned long long)want[i].time);
}
END_TEST

/*
 * A cancelled or fired event is kept for the next one (sim_event_free()),
 * which must find it as calloc() gave it: every field zero but those
 * sim_event_add() sets.
 */
START_TEST(a_kept_event_comes_back_cleared)
{
	struct sim_event *ev, *again;

	h_init(1);
	ev = sim_event_add_boot(100, on_event, (void *)(uintptr_t)'a');
	ev->data = 7;
	sim_event_cancel(ev);
	again = sim_event_add(50, on_event, (void *)(uintptr_t)'b', false);
	ck_assert_ptr_eq(again, ev);
	ck_assert_uint_eq(again->data, 0);
	ck_assert(!again->boot);
	ck_assert_uint_eq(again->time, 50);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(log_len, 1);
	ck_assert_int_eq(log_buf[0].who, 'b');
}
END_TEST

#ifdef KWSIM_ASAN	/* not __SANITIZE_ADDRESS__: the kernel-address checks set it too */
#include <sanitizer/asan_interface.h>

/* ... and until then ASan reports a stale pointer to it, as to a freed one */
START_TEST(kept_events_are_poisoned)
{
	struct sim_event *ev;

	h_init(1);
	ev = sim_event_add(100, on_event, (void *)(uintptr_t)'a', false);
	ck_assert(!__asan_address_is_poisoned(ev));
	sim_event_cancel(ev);
	ck_assert(__asan_address_is_poisoned(ev));
	ck_assert(__asan_address_is_poisoned((char *)ev + sizeof(*ev) - 1));
	ck_assert_ptr_eq(sim_event_add(50, on_event, (void *)(uintptr_t)'b', false), ev);
	ck_assert(!__asan_address_is_poisoned(ev));
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
}
END_TEST
#endif

static Suite *suite(void)
{
	Suite *s = suite_create("event");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, time_then_insertion_order);
	tcase_add_test(tc, cancel_removes);
	tcase_add_test(tc, many_random_events_fire_sorted);
	tcase_add_test(tc, many_random_events_pop_sorted);
	tcase_add_test(tc, a_sleep_moves_boot_events_only);
	tcase_add_test(tc, a_sleep_keeps_the_heap_sorted);
	tcase_add_test(tc, watchdog_events_do_not_keep_alive);
	tcase_add_test(tc, events_wait_for_earlier_cpus);
	tcase_add_test(tc, a_kept_event_comes_back_cleared);
#ifdef KWSIM_ASAN
	tcase_add_test(tc, kept_events_are_poisoned);
#endif
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
