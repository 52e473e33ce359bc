// Placeholder header; the OSM import shim replaces it.
#ifndef EDGENAV_OSMIUM_SHIM_H
#define EDGENAV_OSMIUM_SHIM_H
#ifdef __cplusplus
extern "C" {
#endif
int edgenav_osm_shim_version(void);
#ifdef __cplusplus
}
#endif
#endif
