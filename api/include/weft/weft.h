/* Weft: collective communication for distributed tensors. The one header to include.
 * C99-clean; includes <dlpack/dlpack.h>. See status.h for the conventions of every call. */
#ifndef WEFT_WEFT_H_
#define WEFT_WEFT_H_

#include "weft/checkpoint.h"
#include "weft/collectives.h"
#include "weft/context.h"
#include "weft/halo.h"
#include "weft/halo_windows.h"
#include "weft/layout.h"
#include "weft/mesh.h"
#include "weft/redistribute.h"
#include "weft/rules.h"
#include "weft/status.h"
#include "weft/types.h"
#include "weft/work.h"

#endif /* WEFT_WEFT_H_ */
