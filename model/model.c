/* The registry of model variants: our own, then those built from kernel trees. */
#include "model.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

extern const struct kw_model kw_v49_model;
extern const struct kw_model kw_mainline_model;

static const struct kw_model *const models[] = {
	&kw_v49_model,
	&kw_mainline_model,
};

/* kw_trees.inc: one KW_TREE(prefix) per configured tree, written by CMake. */
#define KW_TREE(ns) extern const struct kw_model ns##model;
#include "kw_trees.inc"
#undef KW_TREE

static const struct kw_model *const trees[] = {
#define KW_TREE(ns) &ns##model,
#include "kw_trees.inc"
#undef KW_TREE
	NULL	/* so that the array is never empty */
};

size_t kw_model_count(void)
{
	return sizeof(models) / sizeof(models[0]);
}

const struct kw_model *kw_model_get(size_t i)
{
	return i < kw_model_count() ? models[i] : NULL;
}

size_t kw_tree_count(void)
{
	return sizeof(trees) / sizeof(trees[0]) - 1;
}

const struct kw_model *kw_tree_get(size_t i)
{
	return i < kw_tree_count() ? trees[i] : NULL;
}

/* "tree:DIR": the same directory, however it is spelt (relative, links, a trailing '/'). */
static bool same_dir(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (!strcmp(a, b))
		return true;
	return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

const struct kw_model *kw_model_find(const char *name)
{
	for (size_t i = 0; i < kw_model_count(); i++)
		if (!strcmp(models[i]->name, name))
			return models[i];
	for (size_t i = 0; i < kw_tree_count(); i++)
		if (!strcmp(trees[i]->name, name))
			return trees[i];
	if (strncmp(name, "tree:", 5))
		return NULL;
	for (size_t i = 0; i < kw_tree_count(); i++)
		if (same_dir(trees[i]->tree, name + 5))
			return trees[i];
	return NULL;
}
