#include "osmium_shim.h"
extern "C" int edgenav_osm_shim_version(void) { return 1; }
