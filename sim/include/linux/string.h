#ifndef _LINUX_STRING_H
#define _LINUX_STRING_H

#include <string.h>

#endif
