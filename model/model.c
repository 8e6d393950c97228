/* The registry of model variants. */
#include "model.h"

#include <string.h>

extern const struct kw_model kw_v49_model;
extern const struct kw_model kw_mainline_model;

static const struct kw_model *const models[] = {
	&kw_v49_model,
	&kw_mainline_model,
};

size_t kw_model_count(void)
{
	return sizeof(models) / sizeof(models[0]);
}

const struct kw_model *kw_model_get(size_t i)
{
	return i < kw_model_count() ? models[i] : NULL;
}

const struct kw_model *kw_model_find(const char *name)
{
	for (size_t i = 0; i < kw_model_count(); i++)
		if (!strcmp(models[i]->name, name))
			return models[i];
	return NULL;
}
