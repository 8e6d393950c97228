/*
 * The sites of SIM_HERE, from the section the linker gathers them in: the
 * linker defines __start_ and __stop_ for a section named like a C
 * identifier (weak here: a program without a site has neither).
 */
#include <sim/site.h>

extern const struct sim_site *const __start_sim_sites[] __attribute__((weak));
extern const struct sim_site *const __stop_sim_sites[] __attribute__((weak));

size_t sim_site_count(void)
{
	return (size_t)(__stop_sim_sites - __start_sim_sites);
}

const struct sim_site *sim_site_get(size_t i)
{
	return i < sim_site_count() ? __start_sim_sites[i] : NULL;
}
