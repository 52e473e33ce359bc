// The only boundary between EdgeNav and libosmium. C ABI, `edgenav_osm_` prefix.
// C++ exceptions never cross it: every entry point catches them and reports a code + message.
// Tag interpretation (profiles, maxspeed, oneway …) lives in Swift; this layer only streams raw OSM objects.
#ifndef EDGENAV_OSMIUM_SHIM_H
#define EDGENAV_OSMIUM_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Result codes of edgenav_osm_read.
enum {
    EDGENAV_OSM_OK = 0,
    EDGENAV_OSM_ERR_OPEN = 1,       ///< file missing or unreadable
    EDGENAV_OSM_ERR_FORMAT = 2,     ///< not an OSM file, unknown format, or malformed content
    EDGENAV_OSM_ERR_TRUNCATED = 3,  ///< the file ends in the middle of data
    EDGENAV_OSM_ERR_IO = 4,         ///< read error or decompression failure
    EDGENAV_OSM_ERR_CANCELLED = 5,  ///< a callback returned non-zero
    EDGENAV_OSM_ERR_INTERNAL = 6    ///< anything else (out of memory …)
};

/// Which object kinds to deliver.
enum { EDGENAV_OSM_NODES = 1, EDGENAV_OSM_WAYS = 2, EDGENAV_OSM_RELATIONS = 4 };

typedef struct edgenav_osm_error {
    int code;
    char message[512];
} edgenav_osm_error;

/// Parallel arrays of NUL-terminated UTF-8 strings, valid only during the callback.
typedef struct edgenav_osm_tags {
    const char *const *keys;
    const char *const *values;
    size_t count;
} edgenav_osm_tags;

typedef struct edgenav_osm_member {
    char type;  ///< 'n', 'w' or 'r'
    int64_t ref;
    const char *role;
} edgenav_osm_member;

typedef struct edgenav_osm_header {
    int has_box;  ///< 1 when the file header declares a bounding box
    double min_lat, min_lon, max_lat, max_lon;
} edgenav_osm_header;

/// Callbacks return 0 to continue or non-zero to stop reading (edgenav_osm_read then returns EDGENAV_OSM_ERR_CANCELLED).
/// `index` is the node's position in `wanted_node_ids` (or SIZE_MAX when no filter was given).
typedef int (*edgenav_osm_node_fn)(void *context, size_t index, int64_t id, double lat, double lon, edgenav_osm_tags tags);
typedef int (*edgenav_osm_way_fn)(void *context, int64_t id, const int64_t *refs, size_t ref_count, edgenav_osm_tags tags);
typedef int (*edgenav_osm_relation_fn)(void *context, int64_t id, const edgenav_osm_member *members, size_t member_count,
                                       edgenav_osm_tags tags);
/// Called once per decoded buffer with the compressed bytes consumed so far and the file size.
typedef void (*edgenav_osm_progress_fn)(void *context, uint64_t offset, uint64_t file_size);

typedef struct edgenav_osm_callbacks {
    void *context;
    edgenav_osm_node_fn node;          ///< may be NULL
    edgenav_osm_way_fn way;            ///< may be NULL
    edgenav_osm_relation_fn relation;  ///< may be NULL
    edgenav_osm_progress_fn progress;  ///< may be NULL
} edgenav_osm_callbacks;

/// Streams the objects of `path` (.osm, .osm.pbf, .osm.bz2, .osm.gz; format from the suffix) to the callbacks.
/// `entities` is a mask of EDGENAV_OSM_NODES/WAYS/RELATIONS. When `wanted_node_ids` is non-NULL it must be sorted
/// ascending; only those nodes are delivered. `header` (may be NULL) receives the file header's bounding box.
/// Returns EDGENAV_OSM_OK or an error code, with a message in `error` (may be NULL).
int edgenav_osm_read(const char *path, unsigned entities, const int64_t *wanted_node_ids, size_t wanted_count,
                     const edgenav_osm_callbacks *callbacks, edgenav_osm_header *header, edgenav_osm_error *error);

/// Version of this shim's ABI.
int edgenav_osm_shim_version(void);

#ifdef __cplusplus
}
#endif
#endif
