/* Building and tearing down the machine. */
#include "machine.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char error[256];

void *sim_grow(void *p, size_t *cap, size_t size, size_t first)
{
	*cap = *cap ? 2 * *cap : first;
	p = realloc(p, *cap * size);
	if (!p)
		abort();
	return p;
}

void sim_config_default(struct sim_config *cfg)
{
	*cfg = (struct sim_config){
		.ncpus = 2,
		.era = SIM_ERA(6, 12),
		.hz = 250,
		.preempt = SIM_PREEMPT_VOLUNTARY,
		.strategy = SIM_STRATEGY_FAITHFUL,
		.seed = 1,
		.hung_task_ns = 120ULL * 1000000000ULL,
		.watchdog_thresh_ns = 10ULL * 1000000000ULL,
		.time_limit_ns = 3600ULL * 1000000000ULL,
		.skew_ns = SIM_SKEW_DEFAULT_NS,
		/* a stack is two mappings: the host's vm.max_map_count (65530) allows ~30,000 */
		.max_tasks = 10000,
#if defined(KWSIM_ASAN) || defined(__SANITIZE_ADDRESS__)
		.stack_size = 256 * 1024,	/* sanitizer frames are several times larger */
#else
		.stack_size = 64 * 1024,
#endif
		.costs = {
			.point = 5,
			.lock = 20,
			.unlock = 10,
			.irq_toggle = 5,
			.ctx_switch = 1500,
			.wakeup = 300,
			.timer_op = 50,
			.completion = 50,
			.irq_entry = 500,
			.alloc = 100,
		},
	};
}

const char *sim_error(void)
{
	return error;
}

static int invalid(const char *msg, long long v)
{
	snprintf(error, sizeof(error), msg, v);
	return -EINVAL;
}

static int check(const struct sim_config *cfg)
{
	if (cfg->ncpus < 1 || cfg->ncpus > SIM_MAX_CPUS)
		return invalid("cpus must be 1 to 64, not %lld", cfg->ncpus);
	if (cfg->hz < 1 || cfg->hz > 10000)
		return invalid("hz must be 1 to 10000, not %lld", cfg->hz);
	if (cfg->stack_size < 16 * 1024 || cfg->stack_size > 64 * 1024 * 1024)
		return invalid("stack size must be 16 KiB to 64 MiB, not %lld", (long long)cfg->stack_size);
	return 0;
}

/* The modules' set-up, on a machine whose state is all zeroes but for what a reset keeps. */
static void build(const struct sim_config *cfg)
{
	sim.cfg = *cfg;
	sim.built = true;
	error[0] = '\0';
	coro_init_host(&sim.host);
	sim_trace_init();
	sim_choose_init();
	sim_oracles_init();
	sim_lockdep_init();
	sim_rf_init();
	sim_slab_init();
	sim_freezer_init();
	sim_hotplug_init();
	sim_tasks_init();
	sim_cpus_init();
}

static void teardown(bool keep)
{
	sim_owners_fini(keep);
	sim_tasks_fini(keep);
	sim_cpus_fini(keep);
	sim_events_fini(keep);
	sim_freezer_fini(keep);
	sim_slab_fini(keep);
	sim_lockdep_fini(keep);
	sim_rf_fini(keep);
	sim_oracles_fini(keep);
	sim_choose_fini(keep);
	sim_trace_fini(keep);
	sim_objects_fini(keep);
}

int sim_init(const struct sim_config *cfg)
{
	int err = check(cfg);

	if (err)
		return err;
	memset(&sim, 0, sizeof(sim));
	build(cfg);
	return 0;
}

/*
 * The run's part of struct sim is cleared whole, the modules' kept parts by
 * their own init; of the CPUs only those the
 * run had, since the rest stayed zeroes: they are 4 KiB each, most of the
 * machine's 277 KiB.
 */
int sim_reset(const struct sim_config *cfg)
{
	int err = check(cfg);
	int ncpus = sim.cfg.ncpus;
	struct sim_event **heap;
	size_t capheap;
	struct coro_pool stacks;

	if (err)
		return err;
	if (!sim.built)
		return sim_init(cfg);
	teardown(true);
	heap = sim.heap;
	capheap = sim.capheap;
	stacks = sim.stacks;
	memset(&sim, 0, offsetof(struct sim, built));
	memset(sim.cpus, 0, (size_t)ncpus * sizeof(sim.cpus[0]));
	sim.heap = heap;
	sim.capheap = capheap;
	sim.stacks = stacks;
	build(cfg);
	return 0;
}

void sim_fini(void)
{
	if (!sim.built)		/* never set up, or torn down already */
		return;
	teardown(false);
	coro_pool_drain(&sim.stacks);
	sim_fault_handler_remove();
	memset(&sim, 0, sizeof(sim));
}
