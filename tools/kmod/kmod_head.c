/*
 * The runtime every exported scenario shares, first part: what the
 * scenario's generated code calls. (tools/kmod/kmod_head.c, embedded in
 * kwsim and copied into each module by `kwsim export --module`.)
 *
 * One iteration: the controller (module_init's thread) allocates the
 * scenario's objects (struct kw_it), runs the init block in a kthread on
 * cpu0, makes every program's kthread (bound with kthread_bind) and arms
 * every irq's hrtimer on its CPU, then sets a common start and wakes them:
 * each waits for start + its `at`. Every wait of the module's own has the
 * iteration's deadline (start + timeout_ms); a context past it stops where
 * it is and is reported stuck at its scenario line. The kernel's own waits
 * inside the API (a flush, a cancel, a destroy) have none: a context blocked
 * there stays blocked, and the module then keeps the iteration's memory and
 * a reference to itself, so neither the objects nor the code under the
 * stuck threads can go away.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/utsname.h>
#include <linux/version.h>

/* 6.2 renamed del_timer()/del_timer_sync(); 6.12 keeps the old names as wrappers only. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define kw_timer_del timer_delete
#define kw_timer_del_sync timer_delete_sync
#else
#define kw_timer_del del_timer
#define kw_timer_del_sync del_timer_sync
#endif

static unsigned int iterations = 1000;
module_param(iterations, uint, 0444);
MODULE_PARM_DESC(iterations, "how many times to run the scenario");
static unsigned int late_us = KW_LATE_US;
module_param(late_us, uint, 0444);
MODULE_PARM_DESC(late_us, "a context that starts (or reaches an `at`) later than this (us) is "
		 "late: its iteration is not counted in the states (0: not checked)");
static ulong seed = 1;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "seeds the values each iteration draws of the scenario's time ranges "
		 "(at LO..HI, udelay(LO..HI), ...): the same seed, the same values");
static unsigned int timeout_ms = KW_TIMEOUT_MS;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "an iteration's deadline from its start (ms): a context not done by then is stuck");

/* A program, an irq or the init block: a context the controller starts and waits for. */
struct kw_ctx {
	const char *name;
	int cpu;			/* -1: any */
	bool irq;
	u64 at_lo, at_hi;		/* after the common start: a time, or a range */
	int at_range;			/* its range's kw_range() site, -1: none */
	void (*body)(struct kw_ctx *c);
	/* per iteration */
	u64 at_ns;			/* its start after the common start: at_lo, or drawn */
	int line;			/* the scenario line it is at (WRITE_ONCE) */
	int stuck_line;			/* it gave up at this line: a wait past the deadline */
	bool started;			/* its thread made, or its hrtimer armed */
	bool finished;
	struct completion done;
	struct hrtimer timer;		/* irqs */
};

/* A fn (a work's function, a timer's callback): where it is, for a stuck report. */
struct kw_fn {
	const char *name;
	int line;
	int stuck_line;
	atomic_t active;
};

static u64 kw_start;			/* the iteration's common start, ktime_get_ns() */
static u64 kw_deadline;			/* kw_start + timeout_ms */
static unsigned long kw_j0;		/* jiffies at kw_start, a tick boundary */
static atomic_long_t kw_seq;		/* orders fns' first starts: before(f, g) */
static atomic_t kw_unsafe;		/* calls skipped this iteration: they would corrupt the kernel */
static atomic_t kw_late_starts;		/* contexts late to their time this iteration */
static unsigned int kw_iter;		/* the iteration running, from 0 */
static atomic_t kw_range_n[KW_NRANGES ? KW_NRANGES : 1];	/* draws of each range site */

/* splitmix64's finaliser: a well-mixed 64-bit value of x */
static __maybe_unused u64 kw_mix(u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * A value of the range lo..hi (both included) at range site `site`: a pure
 * function of the seed parameter, the iteration, the site and how many
 * times the site drew before in this iteration (a range in a loop draws
 * each round), so that the same seed draws the same values whichever CPU
 * gets there first.
 */
static __maybe_unused u64 kw_range(int site, u64 lo, u64 hi)
{
	u64 n = (u64)atomic_inc_return(&kw_range_n[site]);
	u64 x = kw_mix(kw_mix(kw_mix(seed) + kw_iter) + ((u64)site << 32 | n));

	if (hi - lo == U64_MAX)
		return x;
	return lo + x % (hi - lo + 1);
}

static __maybe_unused bool kw_late(void)
{
	return ktime_get_ns() > READ_ONCE(kw_deadline);
}

/*
 * Until ktime_get_ns() reaches t: asleep on an hrtimer until just before,
 * then spinning. False when it got there more than late_us after t: the
 * scenario's timing did not happen (a vCPU descheduled, under QEMU's TCG),
 * and the iteration is left out of the states.
 */
static __maybe_unused bool kw_wait_until(u64 t)
{
	for (;;) {
		s64 left = (s64)(t - ktime_get_ns());

		if (late_us && left <= -(s64)late_us * NSEC_PER_USEC)
			return false;
		if (left <= 0)
			return true;
		if (left > 200 * NSEC_PER_USEC) {
			ktime_t wake = ns_to_ktime(t - 100 * NSEC_PER_USEC);

			set_current_state(TASK_UNINTERRUPTIBLE);
			schedule_hrtimeout(&wake, HRTIMER_MODE_ABS);
		} else {
			cpu_relax();
		}
	}
}

/* `at T;` in a program: false when T is past the deadline (the context gives up). */
static __maybe_unused bool kw_at(u64 t)
{
	if (kw_start + t > READ_ONCE(kw_deadline))
		return false;
	if (!kw_wait_until(kw_start + t))
		atomic_inc(&kw_late_starts);
	return true;
}

/*
 * The scenario's jiffies: kwsim's boot starts at INITIAL_JIFFIES on a tick,
 * and so does an iteration's common start here (kw_align_start()), so that
 * `r0 = jiffies` reads as in kwsim; an expiry given to mod_timer() goes back.
 */
static __maybe_unused long kw_jiffies(void)
{
	return (long)(INITIAL_JIFFIES + (jiffies - kw_j0));
}

static __maybe_unused unsigned long kw_expires(long v)
{
	return (unsigned long)v - INITIAL_JIFFIES + kw_j0;
}

/* wait_for_completion() with the iteration's deadline: false when it passed. */
static __maybe_unused bool kw_wait_completion(struct completion *c)
{
	s64 left = (s64)(READ_ONCE(kw_deadline) - ktime_get_ns());

	if (left < 0)
		left = 0;
	return wait_for_completion_timeout(c, nsecs_to_jiffies(left) + 1) != 0;
}

/*
 * udelay() and ndelay() refuse large constants at build time (__bad_udelay):
 * a scenario's delays go through these, a millisecond at a time.
 */
static __maybe_unused noinline void kw_udelay(unsigned long us)
{
	while (us > 1000) {
		udelay(1000);
		us -= 1000;
	}
	udelay(us);
}

static __maybe_unused noinline void kw_ndelay(unsigned long ns)
{
	kw_udelay(ns / 1000);
	ndelay(ns % 1000);
}

static __maybe_unused noinline void kw_mdelay(unsigned long ms)
{
	while (ms--)
		kw_udelay(1000);
}

static __maybe_unused void kw_fn_enter(struct kw_fn *f, atomic_t *ran, atomic_long_t *first)
{
	atomic_inc(&f->active);
	atomic_inc(ran);
	if (!atomic_long_read(first))
		atomic_long_cmpxchg(first, 0, atomic_long_inc_return(&kw_seq));
}

static __maybe_unused void kw_fn_leave(struct kw_fn *f)
{
	atomic_dec(&f->active);
}

/* --- workers: the scenario's, by index, with what the module knows of each ------- */

struct kw_worker {
	const char *name;
	int line;			/* its declaration */
	struct kthread_worker *w;	/* NULL: not made (or its creation failed) */
	struct kthread_worker store;	/* a legacy worker's ('worker W;') */
	struct task_struct *task;	/* a legacy worker's thread, as kthread_run() returned it */
	long stop_code;
	bool dead;			/* kthread_destroy_worker() called: w is freed */
	bool stopped;			/* a legacy worker's thread stopped */
	atomic_t users;			/* calls on w in flight: its destroy waits for them */
};

static struct kw_worker kw_workers[KW_NWORKERS ? KW_NWORKERS : 1];

/*
 * A worker the scenario may use now, or NULL (with a note) when it may not.
 * A call that got it holds it (users) until kw_worker_put(): a destroy
 * racing the call waits for it, so that nothing is queued or armed on a
 * worker after kthread_destroy_worker() has looked at its lists.
 */
static __maybe_unused struct kthread_worker *kw_worker(struct kw_worker *wk, const char *what,
						       int line)
{
	atomic_inc(&wk->users);
	smp_mb__after_atomic();		/* pairs with kw_destroy_worker()'s smp_mb() */
	if (!wk->w || READ_ONCE(wk->dead)) {
		atomic_dec(&wk->users);
		pr_info_ratelimited("kwsim: note %s of worker %s at line %d skipped: the worker %s\n",
				    what, wk->name, line, wk->w ? "is destroyed (a use after free)" :
				    "was not made");
		atomic_inc(&kw_unsafe);
		return NULL;
	}
	return wk->w;
}

static __maybe_unused void kw_worker_put(struct kw_worker *wk)
{
	atomic_dec(&wk->users);
}

/* The scenario's delayed works and timers armed for w (generated: it knows them). */
static bool __maybe_unused kw_armed_on(struct kthread_worker *w);

static __maybe_unused void kw_create_worker(struct kw_worker *wk, int cpu, unsigned int flags,
					    const char *name, int line)
{
	struct kthread_worker *w;

	if (cpu >= 0 && (cpu >= nr_cpu_ids || !cpu_online(cpu))) {
		pr_info("kwsim: note line %d: cpu %d is not online\n", line, cpu);
		atomic_inc(&kw_unsafe);
		return;
	}
	w = cpu >= 0 ? kthread_create_worker_on_cpu(cpu, flags, "%s", name) :
		       kthread_create_worker(flags, "%s", name);
	if (IS_ERR(w)) {
		pr_info("kwsim: note line %d: creating worker %s failed (%ld)\n", line, wk->name,
			PTR_ERR(w));
		atomic_inc(&kw_unsafe);
		return;
	}
	wk->w = w;
	wk->dead = false;
}

static __maybe_unused void kw_init_worker(struct kw_worker *wk, int line)
{
	if (wk->task && !wk->stopped) {
		pr_info_ratelimited("kwsim: note line %d: kthread_init_worker(%s) skipped: its thread "
				    "runs (it would corrupt the worker's lists)\n", line, wk->name);
		atomic_inc(&kw_unsafe);
		return;
	}
	kthread_init_worker(&wk->store);
	wk->w = &wk->store;
}

static __maybe_unused void kw_run_worker(struct kw_worker *wk, const char *name, int line)
{
	struct task_struct *t;

	if (!wk->w) {
		pr_info_ratelimited("kwsim: note line %d: kthread_run() of worker %s skipped: it is "
				    "not initialised\n", line, wk->name);
		atomic_inc(&kw_unsafe);
		return;
	}
	t = kthread_run(kthread_worker_fn, wk->w, "%s", name);
	if (IS_ERR(t)) {
		atomic_inc(&kw_unsafe);
		return;
	}
	wk->task = t;
	wk->stopped = false;
}

/* kthread_stop(W->task) of a legacy worker: once; again gives the first exit code. */
static __maybe_unused long kw_stop_worker(struct kw_worker *wk)
{
	if (!wk->task || wk->stopped)
		return wk->stop_code;
	wk->stop_code = kthread_stop(wk->task);
	wk->stopped = true;
	return wk->stop_code;
}

/*
 * kthread_destroy_worker() of a worker a delayed work is still armed for
 * frees the worker under the timer, whose callback then takes the freed
 * lock and unlinks from the freed list: a crash (seen under TCG, a late
 * program arming it as the destroy came). Such a destroy is skipped and
 * counted unsafe; the teardown destroys the worker once the timers are
 * deleted.
 */
/* false: a call on the worker (a flush) did not end before the deadline: the context is stuck */
static __maybe_unused bool kw_destroy_worker(struct kw_worker *wk, int line)
{
	struct kthread_worker *w = kw_worker(wk, "kthread_destroy_worker()", line);

	if (!w)
		return true;
	kw_worker_put(wk);
	/* dead first: a use racing the destroy is skipped rather than made after the kfree() */
	WRITE_ONCE(wk->dead, true);
	smp_mb();
	/* and one already in flight ends first, as the destroy's own flush would wait for it */
	while (atomic_read(&wk->users)) {
		if (kw_late())
			return false;
		usleep_range(10, 20);
	}
	if (kw_armed_on(w)) {
		pr_info_ratelimited("kwsim: note line %d: kthread_destroy_worker(%s) skipped: a "
				    "delayed work or timer is armed for it (its callback would use the "
				    "freed worker)\n", line, wk->name);
		atomic_inc(&kw_unsafe);
		WRITE_ONCE(wk->dead, false);
		return true;
	}
	kthread_destroy_worker(w);
	return true;
}

/*
 * A work whose worker was destroyed still points at it (work->worker):
 * flushing or cancelling it would take the freed worker's lock. Compared,
 * never followed.
 */
static __maybe_unused bool kw_work_usable(struct kthread_work *work, const char *what, int line)
{
	struct kthread_worker *w = READ_ONCE(work->worker);

	for (int i = 0; w && i < KW_NWORKERS; i++) {
		if (kw_workers[i].w == w && READ_ONCE(kw_workers[i].dead)) {
			pr_info_ratelimited("kwsim: note %s at line %d skipped: the work's worker %s "
					    "is destroyed (a use after free)\n", what, line,
					    kw_workers[i].name);
			atomic_inc(&kw_unsafe);
			return false;
		}
	}
	return true;
}

/* The worker a work is on, if the scenario has not destroyed it. */
static __maybe_unused struct kthread_worker *kw_live_worker_of(struct kthread_work *work)
{
	struct kthread_worker *w = READ_ONCE(work->worker);

	for (int i = 0; w && i < KW_NWORKERS; i++)
		if (kw_workers[i].w == w)
			return READ_ONCE(kw_workers[i].dead) ? NULL : w;
	return NULL;
}

/*
 * kthread_init_work() and kthread_init_delayed_work() on a pending work
 * would re-initialise a node on the worker's list or a timer in the wheel:
 * list corruption, a crash. The module checks under the worker's lock (the
 * lock that queues and arms it) and skips such a call, counted as unsafe.
 */
static __maybe_unused bool kw_may_init(struct kthread_work *work, struct timer_list *timer,
				       int line, unsigned long *flags,
				       struct kthread_worker **locked)
{
	struct kthread_worker *w = kw_live_worker_of(work);

	*locked = w;
	if (w)
		raw_spin_lock_irqsave(&w->lock, *flags);
	if ((work->node.next && !list_empty(&work->node)) || (timer && timer_pending(timer)) ||
	    (w && w->current_work == work)) {
		if (w)
			raw_spin_unlock_irqrestore(&w->lock, *flags);
		pr_info_ratelimited("kwsim: note line %d: re-initialising a pending or running work "
				    "skipped (it would corrupt the kernel's lists)\n", line);
		atomic_inc(&kw_unsafe);
		return false;
	}
	return true;
}

static __maybe_unused void kw_init_work(struct kthread_work *work, kthread_work_func_t fn,
					int line)
{
	struct kthread_worker *w;
	unsigned long flags;

	if (!kw_may_init(work, NULL, line, &flags, &w))
		return;
	kthread_init_work(work, fn);
	if (w)
		raw_spin_unlock_irqrestore(&w->lock, flags);
}

static __maybe_unused void kw_init_dwork(struct kthread_delayed_work *dwork,
					 kthread_work_func_t fn, int line)
{
	struct kthread_worker *w;
	unsigned long flags;

	if (!kw_may_init(&dwork->work, &dwork->timer, line, &flags, &w))
		return;
	kthread_init_delayed_work(dwork, fn);
	if (w)
		raw_spin_unlock_irqrestore(&w->lock, flags);
}

/* --- the model's state, read when the iteration has settled ---------------------- */

static __maybe_unused bool kw_on_list(struct list_head *head, struct kthread_work *work)
{
	struct kthread_work *pos;

	list_for_each_entry(pos, head, node)
		if (pos == work)
			return true;
	return false;
}

enum kw_pred { KW_QUEUED, KW_DELAYED, KW_RUNNING };

/* queued(D), delayed(D), running(D), under the worker's lock; 0 with no live worker. */
static __maybe_unused long kw_work_pred(struct kthread_work *work, enum kw_pred pred)
{
	struct kthread_worker *w = kw_live_worker_of(work);
	unsigned long flags;
	long v;

	if (!w)
		return 0;
	raw_spin_lock_irqsave(&w->lock, flags);
	v = pred == KW_QUEUED ? kw_on_list(&w->work_list, work) :
	    pred == KW_DELAYED ? kw_on_list(&w->delayed_work_list, work) :
	    w->current_work == work;
	raw_spin_unlock_irqrestore(&w->lock, flags);
	return v;
}

/* current_work(W) == work (NULL: idle), under W's lock; a dead worker runs nothing. */
static __maybe_unused long kw_current_work_is(struct kw_worker *wk,
					      struct kthread_work *work)
{
	struct kthread_worker *w = wk->w && !wk->dead ? wk->w : NULL;
	struct kthread_work *cur = NULL;
	unsigned long flags;

	if (w) {
		raw_spin_lock_irqsave(&w->lock, flags);
		cur = w->current_work;
		raw_spin_unlock_irqrestore(&w->lock, flags);
	}
	return cur == work;
}

/* Nothing queued, armed or running on the worker: the iteration's end may be read. */
static __maybe_unused bool kw_worker_idle(struct kw_worker *wk)
{
	struct kthread_worker *w = wk->w;
	unsigned long flags;
	bool idle;

	/* destroyed; or a legacy worker no thread serves: nothing more will run there */
	if (!w || wk->dead || (w == &wk->store && (!wk->task || wk->stopped)))
		return true;
	raw_spin_lock_irqsave(&w->lock, flags);
	idle = list_empty(&w->work_list) && list_empty(&w->delayed_work_list) &&
	       !w->current_work;
	raw_spin_unlock_irqrestore(&w->lock, flags);
	return idle;
}

/* --- the scenario's calls, each as the kernel makes it, guarded where a misuse would crash -- */

/* A computed time or delay: kwsim refuses a negative one at run time; the module skips it. */
static __maybe_unused unsigned long kw_arg(long v)
{
	if (v >= 0)
		return (unsigned long)v;
	pr_info_ratelimited("kwsim: note a negative time (%ld) taken as 0\n", v);
	atomic_inc(&kw_unsafe);
	return 0;
}

static __maybe_unused long kw_queue_work(struct kw_worker *wk, struct kthread_work *work,
					 int line)
{
	struct kthread_worker *w = kw_worker(wk, "kthread_queue_work()", line);
	long v;

	if (!w)
		return 0;
	v = kthread_queue_work(w, work);
	kw_worker_put(wk);
	return v;
}

/*
 * kthread_queue_delayed_work() or kthread_mod_delayed_work(), the call the
 * generated code names (the two take the same arguments), on worker wk if
 * the scenario has not destroyed it.
 */
#define kw_dwork(call, wk, dwork, delay, line) \
	kw_dwork_call(call, #call "()", wk, dwork, delay, line)

static __maybe_unused long kw_dwork_call(bool (*call)(struct kthread_worker *,
						      struct kthread_delayed_work *,
						      unsigned long),
					 const char *what, struct kw_worker *wk,
					 struct kthread_delayed_work *dwork, long delay, int line)
{
	struct kthread_worker *w = kw_worker(wk, what, line);
	long v;

	if (!w)
		return 0;
	v = call(w, dwork, kw_arg(delay));
	kw_worker_put(wk);
	return v;
}

static __maybe_unused void kw_flush_work(struct kthread_work *work, int line)
{
	if (kw_work_usable(work, "kthread_flush_work()", line))
		kthread_flush_work(work);
}

static __maybe_unused void kw_flush_worker(struct kw_worker *wk, int line)
{
	struct kthread_worker *w = kw_worker(wk, "kthread_flush_worker()", line);

	if (!w)
		return;
	kthread_flush_worker(w);
	kw_worker_put(wk);
}

static __maybe_unused long kw_cancel_work_sync(struct kthread_work *work, int line)
{
	if (!kw_work_usable(work, "kthread_cancel_work_sync()", line))
		return 0;
	return kthread_cancel_work_sync(work);
}

static __maybe_unused long kw_cancel_dwork_sync(struct kthread_delayed_work *dwork,
						int line)
{
	if (!kw_work_usable(&dwork->work, "kthread_cancel_delayed_work_sync()", line))
		return 0;
	return kthread_cancel_delayed_work_sync(dwork);
}

static __maybe_unused long kw_before(atomic_long_t *a, atomic_long_t *b)
{
	long x = atomic_long_read(a), y = atomic_long_read(b);

	return x && y && x < y;
}

/*
 * Steering (kwsim export --steer): before a statement an ordering names
 * begins (or ends) for the b_nth time, the statement a must have begun (or
 * ended) a_nth times in this iteration; it waits for that, spinning (and giving
 * way to other tasks where it may sleep), at most steer_us, never past the
 * deadline. A wait that times out goes on unenforced: the kernel's order
 * there is its own, and counted. The generated code calls kw_steer_enter()
 * and kw_steer_leave() around each statement an ordering names (its site).
 */
static unsigned int steer_us = 100000;
module_param(steer_us, uint, 0444);
MODULE_PARM_DESC(steer_us, "how long (us) a steered statement waits for the step it is ordered "
		 "after before it goes on unenforced");

struct kw_steer {
	int a, b;			/* sites */
	bool a_end;			/* a ends (else: has begun) before b ... */
	bool b_end;			/* ... ends (else: begins) */
	int a_nth, b_nth;		/* the times of each, counted in the iteration */
	const char *text;
	/* over the iterations: the order held when b got there, b waited for it, b gave up */
	atomic_t held, waited, unenforced;
};

static struct kw_steer kw_steers[KW_STEERED ? KW_STEERED : 1];
#define KW_STEER_SPIN_NS (500 * NSEC_PER_USEC)	/* how long a waiter spins before it sleeps */
static atomic_t kw_site_begun[KW_NSITES ? KW_NSITES : 1];	/* per iteration */
static atomic_t kw_site_ended[KW_NSITES ? KW_NSITES : 1];

static __maybe_unused void kw_steer_wait(struct kw_steer *k)
{
	atomic_t *c = k->a_end ? &kw_site_ended[k->a] : &kw_site_begun[k->a];
	u64 now = ktime_get_ns(), until = now + (u64)steer_us * NSEC_PER_USEC;
	u64 spin = now + KW_STEER_SPIN_NS;
	bool waited = false;

	while (atomic_read(c) < k->a_nth) {
		now = ktime_get_ns();
		if (now > until || kw_late()) {
			atomic_inc(&k->unenforced);
			return;
		}
		waited = true;
		/*
		 * The waiter spins at first, so that it goes on as soon as the
		 * other step is there (a race's window is microseconds); then,
		 * where it may, it sleeps between looks: a vCPU spinning for long
		 * under QEMU's TCG takes a host CPU from the one it waits for (a
		 * version that spun throughout made three times as many late
		 * starts; one that slept throughout woke milliseconds late), and a
		 * thread on its own CPU must let the other run. An irq or a timer
		 * callback, or a statement under a lock, spins.
		 */
		if (now > spin && !in_atomic() && !irqs_disabled())
			usleep_range(10, 20);
		else
			cpu_relax();
	}
	atomic_inc(waited ? &k->waited : &k->held);
}

static __maybe_unused void kw_steer_enter(int site)
{
	int n = atomic_read(&kw_site_begun[site]) + 1;

	for (int i = 0; i < KW_STEERED; i++)
		if (kw_steers[i].b == site && !kw_steers[i].b_end && kw_steers[i].b_nth == n)
			kw_steer_wait(&kw_steers[i]);
	atomic_inc(&kw_site_begun[site]);
}

/* The statement at site is done; one whose end is ordered after another's begin waits. */
static __maybe_unused void kw_steer_leave(int site)
{
	int n = atomic_read(&kw_site_ended[site]) + 1;

	for (int i = 0; i < KW_STEERED; i++)
		if (kw_steers[i].b == site && kw_steers[i].b_end && kw_steers[i].b_nth == n)
			kw_steer_wait(&kw_steers[i]);
	atomic_inc(&kw_site_ended[site]);
}

/*
 * Where each context is: the generated code sets its line before each
 * statement; a context past the deadline gives up (KW_GIVE_UP) and says
 * where. kw_line and kw_stuck are each body's own.
 */
#define KW_LINE(n) WRITE_ONCE(*kw_line, (n))
#define KW_GIVE_UP() do { WRITE_ONCE(*kw_stuck, READ_ONCE(*kw_line)); goto kw_out; } while (0)
