/*
 * The runtime every exported scenario shares, second part: the controller.
 * (tools/kmod/kmod_main.c.) The generated code before it defines the
 * scenario: kw_ctxs[] (the init block first), kw_fns[], kw_reset() (the
 * objects for a new iteration), kw_settled(), kw_observe() (the state as
 * text, and whether the condition holds), kw_report_unsettled(),
 * kw_teardown() and kw_refuse() (the load-time checks).
 */
#define KW_MAX_STATES 64
#define KW_STATE_LEN 900	/* a printk line holds about 1000 bytes */

struct kw_outcome {
	char text[KW_STATE_LEN];
	unsigned int count;
	bool positive;
};

static struct kw_outcome *kw_outcomes;
static unsigned int kw_noutcomes, kw_overflow, kw_unsafe_iterations, kw_late_iterations;
static bool kw_stuck;

static int kw_thread(void *arg)
{
	struct kw_ctx *c = arg;

	/* the init block runs alone, before the common start: its own start is not timed */
	if (!kw_wait_until(kw_start + c->at_ns) && c != &kw_ctxs[0])
		atomic_inc(&kw_late_starts);
	c->body(c);
	WRITE_ONCE(c->finished, true);
	/* complete and exit in one: the module's code is not run after the controller sees done */
	kthread_complete_and_exit(&c->done, 0);
}

static enum hrtimer_restart kw_irq_fire(struct hrtimer *t)
{
	struct kw_ctx *c = container_of(t, struct kw_ctx, timer);

	/* late_us=0: not checked, as for a thread (kw_wait_until()) */
	if (late_us && ktime_get_ns() > kw_start + c->at_ns + (u64)late_us * NSEC_PER_USEC)
		atomic_inc(&kw_late_starts);
	c->body(c);
	WRITE_ONCE(c->finished, true);
	complete(&c->done);
	return HRTIMER_NORESTART;
}

/* On the irq's CPU (smp_call_function_single): an hrtimer pinned there. */
static void kw_irq_arm(void *arg)
{
	struct kw_ctx *c = arg;

	hrtimer_start(&c->timer, ns_to_ktime(kw_start + c->at_ns), HRTIMER_MODE_ABS_PINNED_HARD);
}

static int kw_ctx_prepare(struct kw_ctx *c)
{
	c->at_ns = c->at_range < 0 ? c->at_lo : kw_range(c->at_range, c->at_lo, c->at_hi);
	c->line = 0;
	c->stuck_line = 0;
	c->finished = false;
	c->started = false;
	init_completion(&c->done);
	if (c->irq) {
		hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
		c->timer.function = kw_irq_fire;
		return 0;
	}
	return 0;
}

static int kw_ctx_start(struct kw_ctx *c)
{
	struct task_struct *t;

	if (c->irq) {
		smp_call_function_single(c->cpu, kw_irq_arm, c, 1);
		c->started = true;
		return 0;
	}
	t = kthread_create(kw_thread, c, "kwsim-%s", c->name);
	if (IS_ERR(t)) {
		pr_info("kwsim: note %s: kthread_create() failed (%ld)\n", c->name, PTR_ERR(t));
		return PTR_ERR(t);
	}
	if (c->cpu >= 0)
		kthread_bind(t, c->cpu);
	c->started = true;
	wake_up_process(t);
	return 0;
}

/* Wait for c until the deadline; false if it is not done (stuck, or gave up). */
static bool kw_ctx_wait(struct kw_ctx *c)
{
	if (!c->started)
		return false;
	if (!kw_wait_completion(&c->done)) {
		/* an irq that has not fired yet will not: cancel it (it cannot be stuck) */
		if (c->irq && hrtimer_cancel(&c->timer) && !c->finished)
			c->stuck_line = -1;
		return false;
	}
	return !c->stuck_line;
}

static void kw_report_stuck(void)
{
	for (int i = 0; i < KW_NCTX; i++) {
		struct kw_ctx *c = &kw_ctxs[i];

		if (c->stuck_line == -1)
			pr_info("kwsim: note %s did not fire before the deadline\n", c->name);
		else if (c->stuck_line)
			pr_info("kwsim: stuck 1 %s line %d\n", c->name, c->stuck_line);
		else if (c->started && !READ_ONCE(c->finished))
			pr_info("kwsim: stuck 1 %s line %d\n", c->name, READ_ONCE(c->line));
	}
	for (int i = 0; i < KW_NFNS; i++) {
		struct kw_fn *f = &kw_fns[i];

		if (f->stuck_line)
			pr_info("kwsim: stuck 1 %s line %d\n", f->name, f->stuck_line);
		else if (atomic_read(&f->active))
			pr_info("kwsim: stuck 1 %s line %d\n", f->name, READ_ONCE(f->line));
	}
	kw_report_unsettled();
	pr_info("kwsim: note iterations stop here: the stuck contexts' objects are left as they are "
		"(leaked, not freed under them) and the module holds a reference to itself, so "
		"rmmod is refused\n");
}

/* Programs done and nothing queued, armed or running: poll until then, or the deadline. */
static bool kw_settle(void)
{
	while (!kw_settled()) {
		if (kw_late())
			return false;
		usleep_range(500, 1000);
	}
	for (int i = 0; i < KW_NFNS; i++)
		if (kw_fns[i].stuck_line)
			return false;
	return true;
}

static void kw_count(const char *text, bool positive)
{
	unsigned int i;

	for (i = 0; i < kw_noutcomes; i++)
		if (!strcmp(kw_outcomes[i].text, text))
			break;
	if (i == kw_noutcomes) {
		if (i == KW_MAX_STATES) {
			kw_overflow++;
			return;
		}
		strscpy(kw_outcomes[i].text, text, KW_STATE_LEN);
		kw_outcomes[i].positive = positive;
		kw_noutcomes++;
	}
	kw_outcomes[i].count++;
}

/*
 * The common start: on the first tick at least 5 ms ahead (time to make and
 * wake the threads), as kwsim's time 0 is on a tick; kw_j0 is its jiffies.
 * 100 us after it, so that the tick's interrupt has counted it: a program
 * at 0 reads kw_j0, as in kwsim, not a race with the tick.
 */
static void kw_align_start(void)
{
	unsigned long j = jiffies, ticks = DIV_ROUND_UP(5 * NSEC_PER_MSEC, TICK_NSEC);
	u64 tick;

	while (READ_ONCE(jiffies) == j)
		cpu_relax();
	tick = ktime_get_ns();
	kw_j0 = READ_ONCE(jiffies) + ticks;
	kw_start = tick + ticks * TICK_NSEC + 100 * NSEC_PER_USEC;
}

/* One iteration: true when it ended (counted or unsafe), false when something is stuck. */
static bool kw_iterate(char *text)
{
	bool ok = true, positive;
	int i;

	kw_reset();
	atomic_long_set(&kw_seq, 0);
	atomic_set(&kw_unsafe, 0);
	atomic_set(&kw_late_starts, 0);
	for (i = 0; i < KW_NRANGES; i++)
		atomic_set(&kw_range_n[i], 0);
	for (i = 0; i < KW_NSITES; i++) {
		atomic_set(&kw_site_begun[i], 0);
		atomic_set(&kw_site_ended[i], 0);
	}
	for (i = 0; i < KW_NCTX; i++)
		kw_ctx_prepare(&kw_ctxs[i]);
	/* the init block first, on cpu0, before any program */
	kw_start = ktime_get_ns();
	kw_j0 = jiffies;
	WRITE_ONCE(kw_deadline, kw_start + (u64)timeout_ms * NSEC_PER_MSEC);
	if (kw_ctx_start(&kw_ctxs[0]) || !kw_ctx_wait(&kw_ctxs[0]))
		return false;
	/* then everything else from one start */
	kw_align_start();
	WRITE_ONCE(kw_deadline, kw_start + (u64)timeout_ms * NSEC_PER_MSEC);
	for (i = 1; i < KW_NCTX; i++)
		if (kw_ctx_start(&kw_ctxs[i]))
			ok = false;
	for (i = 1; i < KW_NCTX; i++)
		ok &= kw_ctx_wait(&kw_ctxs[i]);
	if (!ok || !kw_settle())
		return false;
	if (atomic_read(&kw_unsafe)) {
		kw_unsafe_iterations++;
	} else if (atomic_read(&kw_late_starts)) {
		kw_late_iterations++;
	} else {
		positive = kw_observe(text, KW_STATE_LEN);
		kw_count(text, positive);
	}
	kw_teardown();
	return true;
}

static int kw_by_text(const void *a, const void *b)
{
	return strcmp(((const struct kw_outcome *)a)->text, ((const struct kw_outcome *)b)->text);
}

static void kw_print_table(unsigned int done)
{
	unsigned int pos = 0, neg = 0;

	sort(kw_outcomes, kw_noutcomes, sizeof(*kw_outcomes), kw_by_text, NULL);
	for (unsigned int i = 0; i < kw_noutcomes; i++) {
		pr_info("kwsim: state %u %s\n", kw_outcomes[i].count, kw_outcomes[i].text);
		if (kw_outcomes[i].positive)
			pos += kw_outcomes[i].count;
		else
			neg += kw_outcomes[i].count;
	}
	if (kw_overflow)
		pr_info("kwsim: note %u iterations ended in states beyond the first %d, not listed\n",
			kw_overflow, KW_MAX_STATES);
	if (kw_unsafe_iterations)
		pr_info("kwsim: unsafe %u (iterations in which a call was skipped because it would "
			"have corrupted the kernel; their states are not counted)\n",
			kw_unsafe_iterations);
	if (kw_late_iterations)
		pr_info("kwsim: late %u (iterations in which a context started more than late_us=%u "
			"after its time; their states are not counted)\n", kw_late_iterations,
			late_us);
	for (int i = 0; i < KW_STEERED; i++)
		pr_info("kwsim: note steer %d held %u waited %u unenforced %u (of %u iterations; "
			"unenforced: the wait timed out after steer_us=%u)\n", i + 1,
			atomic_read(&kw_steers[i].held), atomic_read(&kw_steers[i].waited),
			atomic_read(&kw_steers[i].unenforced), done, steer_us);
	pr_info("kwsim: note %u of %u iterations ran\n", done, iterations);
	pr_info("kwsim: end %s positive=%u negative=%u\n", KW_NAME, pos, neg);
}

static int __init kw_init(void)
{
	const char *why = kw_refuse();
	char *text;
	unsigned int done = 0;

	if (why) {
		pr_info("kwsim: refused %s: %s\n", KW_NAME, why);
		return -EINVAL;
	}
	kw_outcomes = kcalloc(KW_MAX_STATES, sizeof(*kw_outcomes), GFP_KERNEL);
	text = kmalloc(KW_STATE_LEN, GFP_KERNEL);
	if (!kw_outcomes || !text) {
		kfree(kw_outcomes);
		kfree(text);
		return -ENOMEM;
	}
	pr_info("kwsim: begin %s iterations=%u release=%s cpus=%u steered=%d seed=%lu\n",
		KW_NAME, iterations, init_utsname()->release, num_online_cpus(), KW_STEERED, seed);
	for (int i = 0; i < KW_STEERED; i++)
		pr_info("kwsim: note steer %d: %s\n", i + 1, kw_steers[i].text);
	for (int i = 0; kw_unsteered[i]; i++)
		pr_info("kwsim: note not steered: %s\n", kw_unsteered[i]);
	kw_print_unobserved();
	for (; done < iterations; done++) {
		kw_iter = done;
		if (!kw_iterate(text)) {
			kw_stuck = true;
			kw_report_stuck();
			__module_get(THIS_MODULE);
			break;
		}
		cond_resched();
	}
	kw_print_table(done);
	kfree(text);
	kfree(kw_outcomes);
	return 0;
}

static void __exit kw_exit(void)
{
	/* a stuck module holds a reference to itself: rmmod never gets here then */
}

module_init(kw_init);
module_exit(kw_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kwsim scenario " KW_NAME " as a klitmus7-style test");
