/*
 * The model's face towards tools/: each kernel variant is a table of the
 * kthread_worker API, selected by name at run time. The kernel's types are
 * opaque here; each variant defines them in its own kthread_worker.h.
 */
#ifndef KWSIM_MODEL_H
#define KWSIM_MODEL_H

#include <stdbool.h>
#include <stddef.h>

struct task_struct;
struct kthread_worker;
struct kthread_work;
struct kthread_delayed_work;

typedef void (*kw_work_fn)(struct kthread_work *work);

/* A work at one glance: kw_model.work_state(). */
struct kw_work_state {
	struct kthread_worker *worker;	/* the one it was last queued on */
	bool pending;			/* work_pending(): on a list */
	bool timer;			/* a delayed work's timer is pending */
	int canceling;
	/*
	 * On its worker's work_list / delayed_work_list: read only when asked
	 * and the worker is live (not an error pointer, not freed), else false.
	 */
	bool queued, delayed;
};

struct kw_model {
	const char *name;		/* "v4.9", "mainline", "tree:6.12" */
	const char *source;		/* what it follows */
	const char *tree;		/* the kernel tree it was compiled from; NULL: ours */
	/*
	 * The prefix of its global symbols (model/ns.h), which sim_unprefix()
	 * takes off in reports: a function's name in findings is what follows
	 * (the scenario parser checks warn("function") against sim_site_get()).
	 */
	const char *ns;
	/*
	 * The kernel release it comes from, SIM_ERA(major, minor): the machine
	 * under it follows that era (struct sim_config's era; tools copy it).
	 */
	unsigned int era;
	size_t worker_size, work_size, dwork_size;

	/* Names for the trace's %ps of the variant's own functions. */
	void (*register_symbols)(void);
	const char *const *symbols;	/* those names, NULL-terminated */

	/* The API, as the kernel names it. */
	void (*init_worker)(struct kthread_worker *worker);	/* kthread_init_worker */
	void (*init_work)(struct kthread_work *work, kw_work_fn fn);
	void (*init_delayed_work)(struct kthread_delayed_work *dwork, kw_work_fn fn);
	int (*worker_fn)(void *worker_ptr);			/* kthread_worker_fn */
	/* kthread_create_worker when cpu < 0, else kthread_create_worker_on_cpu */
	struct kthread_worker *(*create_worker)(int cpu, unsigned int flags, const char *name);
	bool (*queue_work)(struct kthread_worker *worker, struct kthread_work *work);
	bool (*queue_delayed_work)(struct kthread_worker *worker,
				   struct kthread_delayed_work *dwork, unsigned long delay);
	bool (*mod_delayed_work)(struct kthread_worker *worker,
				 struct kthread_delayed_work *dwork, unsigned long delay);
	void (*flush_work)(struct kthread_work *work);
	void (*flush_worker)(struct kthread_worker *worker);
	bool (*cancel_work_sync)(struct kthread_work *work);
	bool (*cancel_delayed_work_sync)(struct kthread_delayed_work *dwork);
	void (*destroy_worker)(struct kthread_worker *worker);

	/* Plain reads for summaries and checks: no scheduling points. */
	struct kthread_work *(*dwork_work)(struct kthread_delayed_work *dwork);
	struct task_struct *(*worker_task)(const struct kthread_worker *worker);
	struct kthread_work *(*current_work)(const struct kthread_worker *worker);
	struct kthread_worker *(*work_worker)(const struct kthread_work *work);
	bool (*work_pending)(const struct kthread_work *work);
	int (*work_canceling)(const struct kthread_work *work);
	kw_work_fn (*work_func)(const struct kthread_work *work);
	/*
	 * A work's state in one call (dwork: the delayed work it is in, or
	 * NULL), for the observers that read it at every scheduling point;
	 * lists: also whether it is on its worker's lists (a walk of them).
	 */
	void (*work_state)(const struct kthread_work *work,
			   const struct kthread_delayed_work *dwork, bool lists,
			   struct kw_work_state *st);
};

#define KTW_FREEZABLE_FLAG 1u	/* KTW_FREEZABLE, the same in every variant */

/*
 * Our own variants, the ones written in this repository (v4.9, mainline):
 * what the model suites loop over.
 */
size_t kw_model_count(void);
const struct kw_model *kw_model_get(size_t i);
/*
 * The variants compiled from kernel trees at build time (KWSIM_KERNEL_TREES
 * in model/CMakeLists.txt), named "tree:LABEL"; none unless configured.
 */
size_t kw_tree_count(void);
const struct kw_model *kw_tree_get(size_t i);
/*
 * Any variant by name: "v4.9", "mainline", "tree:LABEL", or "tree:DIR" for
 * the directory a tree variant was built from. NULL when none matches.
 */
const struct kw_model *kw_model_find(const char *name);

#endif
