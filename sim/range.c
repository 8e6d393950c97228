/*
 * Ranges: a value of a scenario's time range, as one decision
 * (SIM_WHY_RANGE). sim.h says how a range maps onto a decision's
 * candidates; this file keeps that mapping in one place, so the machine,
 * the strategies and the views compute the same value from a pick.
 */
#include "machine.h"

unsigned int sim_range_candidates(uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return 1;
	return hi - lo >= SIM_RANGE_VALUES - 1 ? SIM_RANGE_VALUES : (unsigned int)(hi - lo) + 1;
}

/*
 * lo + (hi - lo) * i / (n - 1), rounded down, without the 80-bit product:
 * (hi - lo) = q (n - 1) + r with r < n - 1, so the value is
 * lo + q i + r i / (n - 1), and r i < 2^32.
 */
uint64_t sim_range_value(uint64_t lo, uint64_t hi, unsigned int n, unsigned int i)
{
	uint64_t w = hi - lo, q, r;

	if (hi <= lo || n <= 1)
		return lo;
	if (i >= n)
		i = n - 1;
	q = w / (n - 1);
	r = w % (n - 1);
	return lo + q * i + r * i / (n - 1);
}

uint64_t sim_choose_range(uint64_t lo, uint64_t hi)
{
	struct sim_question q = {
		.n = sim_range_candidates(lo, hi), .why = SIM_WHY_RANGE, .lo = lo, .hi = hi,
		.cpu = sim.cur_cpu ? sim.cur_cpu->id : -1,
	};

	return sim_range_value(lo, hi, q.n, sim_ask(&q));
}
