/* registries.h — fl_registries_init: what every program that reads scenarios calls first (as PETSc programs call
 * PetscInitialize): the plugins' own keys (core/keys.h) of every registry — strategies, failure laws, apps — join
 * the scenario table before the first scenario is read. */
#ifndef FL_REGISTRIES_H
#define FL_REGISTRIES_H

#include "fl_err.h"

/* Idempotent; FL_ERR_INTERNAL (a bug) when two plugins declare one key or a scenario was made before. */
fl_err fl_registries_init(void);

#endif
