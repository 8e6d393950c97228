/* Building and tearing down the machine. */
#include "machine.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static char error[256];

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

int sim_init(const struct sim_config *cfg)
{
	if (cfg->ncpus < 1 || cfg->ncpus > SIM_MAX_CPUS)
		return invalid("cpus must be 1 to 64, not %lld", cfg->ncpus);
	if (cfg->hz < 1 || cfg->hz > 10000)
		return invalid("hz must be 1 to 10000, not %lld", cfg->hz);
	if (cfg->stack_size < 16 * 1024 || cfg->stack_size > 64 * 1024 * 1024)
		return invalid("stack size must be 16 KiB to 64 MiB, not %lld", (long long)cfg->stack_size);
	memset(&sim, 0, sizeof(sim));
	sim.cfg = *cfg;
	error[0] = '\0';
	coro_init_host(&sim.host);
	sim_trace_init();
	sim_choose_init();
	sim_oracles_init();
	sim_lockdep_init();
	sim_slab_init();
	sim_freezer_init();
	sim_tasks_init();
	sim_cpus_init();
	return 0;
}

void sim_fini(void)
{
	sim_tasks_fini();
	sim_cpus_fini();
	sim_events_fini();
	sim_freezer_fini();
	sim_slab_fini();
	sim_lockdep_fini();
	sim_oracles_fini();
	sim_choose_fini();
	sim_trace_fini();
	sim_objects_fini();
	memset(&sim, 0, sizeof(sim));
}
