// libosmium reader behind a C ABI. Every exception is caught here and turned into an error code + message.
#include "osmium_shim.h"

#include <osmium/io/any_input.hpp>
#include <osmium/io/reader.hpp>
#include <osmium/osm.hpp>
#include <osmium/util/file.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <system_error>
#include <vector>

namespace {

struct cancelled {};

void set_error(edgenav_osm_error *error, int code, const std::string &message) {
    if (!error) return;
    error->code = code;
    std::snprintf(error->message, sizeof(error->message), "%s", message.c_str());
}

bool looks_truncated(const std::string &m) {
    return m.find("truncated") != std::string::npos || m.find("EOF") != std::string::npos ||
           m.find("no element found") != std::string::npos || m.find("unclosed token") != std::string::npos || m.find("unexpected end") != std::string::npos ||
           m.find("premature") != std::string::npos;
}

class TagArrays {
   public:
    edgenav_osm_tags fill(const osmium::TagList &tags) {
        keys_.clear();
        values_.clear();
        for (const auto &tag : tags) {
            keys_.push_back(tag.key());
            values_.push_back(tag.value());
        }
        return edgenav_osm_tags{keys_.data(), values_.data(), keys_.size()};
    }

   private:
    std::vector<const char *> keys_;
    std::vector<const char *> values_;
};

int read_impl(const char *path, unsigned entities, const int64_t *wanted, size_t wanted_count,
              const edgenav_osm_callbacks *cb, edgenav_osm_header *header) {
    osmium::osm_entity_bits::type bits = osmium::osm_entity_bits::nothing;
    if (entities & EDGENAV_OSM_NODES) bits |= osmium::osm_entity_bits::node;
    if (entities & EDGENAV_OSM_WAYS) bits |= osmium::osm_entity_bits::way;
    if (entities & EDGENAV_OSM_RELATIONS) bits |= osmium::osm_entity_bits::relation;

    osmium::io::File file{path};
    osmium::io::Reader reader{file, bits, osmium::io::read_meta::no};
    if (header) {
        const auto h = reader.header();
        const auto box = h.box();
        header->has_box = box.valid() ? 1 : 0;
        if (box.valid()) {
            header->min_lat = box.bottom_left().lat();
            header->min_lon = box.bottom_left().lon();
            header->max_lat = box.top_right().lat();
            header->max_lon = box.top_right().lon();
        }
    }
    const uint64_t file_size = reader.file_size();
    TagArrays tag_arrays;
    std::vector<int64_t> refs;
    std::vector<edgenav_osm_member> members;
    while (osmium::memory::Buffer buffer = reader.read()) {
        for (const auto &object : buffer.select<osmium::OSMObject>()) {
            switch (object.type()) {
                case osmium::item_type::node: {
                    if (!cb->node) break;
                    const auto &node = static_cast<const osmium::Node &>(object);
                    size_t index = SIZE_MAX;
                    if (wanted) {
                        const int64_t *it = std::lower_bound(wanted, wanted + wanted_count, node.id());
                        if (it == wanted + wanted_count || *it != node.id()) break;
                        index = static_cast<size_t>(it - wanted);
                    }
                    const auto loc = node.location();
                    if (!loc.valid()) break;
                    if (cb->node(cb->context, index, node.id(), loc.lat(), loc.lon(), tag_arrays.fill(node.tags())) != 0)
                        throw cancelled{};
                    break;
                }
                case osmium::item_type::way: {
                    if (!cb->way) break;
                    const auto &way = static_cast<const osmium::Way &>(object);
                    refs.clear();
                    for (const auto &nr : way.nodes()) refs.push_back(nr.ref());
                    if (cb->way(cb->context, way.id(), refs.data(), refs.size(), tag_arrays.fill(way.tags())) != 0)
                        throw cancelled{};
                    break;
                }
                case osmium::item_type::relation: {
                    if (!cb->relation) break;
                    const auto &relation = static_cast<const osmium::Relation &>(object);
                    members.clear();
                    for (const auto &m : relation.members()) {
                        char type = m.type() == osmium::item_type::node ? 'n'
                                    : m.type() == osmium::item_type::way ? 'w'
                                                                          : 'r';
                        members.push_back(edgenav_osm_member{type, m.ref(), m.role()});
                    }
                    if (cb->relation(cb->context, relation.id(), members.data(), members.size(),
                                     tag_arrays.fill(relation.tags())) != 0)
                        throw cancelled{};
                    break;
                }
                default:
                    break;
            }
        }
        if (cb->progress) cb->progress(cb->context, reader.offset(), file_size);
    }
    reader.close();
    return EDGENAV_OSM_OK;
}

}  // namespace

extern "C" int edgenav_osm_read(const char *path, unsigned entities, const int64_t *wanted_node_ids, size_t wanted_count,
                                const edgenav_osm_callbacks *callbacks, edgenav_osm_header *header,
                                edgenav_osm_error *error) {
    set_error(error, EDGENAV_OSM_OK, "");
    if (!path || !callbacks) {
        set_error(error, EDGENAV_OSM_ERR_INTERNAL, "null path or callbacks");
        return EDGENAV_OSM_ERR_INTERNAL;
    }
    int code;
    try {
        return read_impl(path, entities, wanted_node_ids, wanted_count, callbacks, header);
    } catch (const cancelled &) {
        code = EDGENAV_OSM_ERR_CANCELLED;
        set_error(error, code, "reading was cancelled");
    } catch (const osmium::pbf_error &e) {
        code = looks_truncated(e.what()) ? EDGENAV_OSM_ERR_TRUNCATED : EDGENAV_OSM_ERR_FORMAT;
        set_error(error, code, std::string("PBF: ") + e.what());
    } catch (const osmium::xml_error &e) {
        code = looks_truncated(e.what()) ? EDGENAV_OSM_ERR_TRUNCATED : EDGENAV_OSM_ERR_FORMAT;
        set_error(error, code, std::string("XML: ") + e.what());
    } catch (const osmium::format_version_error &e) {
        code = EDGENAV_OSM_ERR_FORMAT;
        set_error(error, code, e.what());
    } catch (const osmium::unsupported_file_format_error &e) {
        code = EDGENAV_OSM_ERR_FORMAT;
        set_error(error, code, e.what());
    } catch (const osmium::io_error &e) {
        const std::string m = e.what();
        code = looks_truncated(m) ? EDGENAV_OSM_ERR_TRUNCATED
               : m.find("detect") != std::string::npos || m.find("format") != std::string::npos
                   ? EDGENAV_OSM_ERR_FORMAT
                   : EDGENAV_OSM_ERR_IO;
        set_error(error, code, m);
    } catch (const std::system_error &e) {
        code = e.code().value() == ENOENT || e.code().value() == EACCES ? EDGENAV_OSM_ERR_OPEN : EDGENAV_OSM_ERR_IO;
        set_error(error, code, e.what());
    } catch (const std::bad_alloc &) {
        code = EDGENAV_OSM_ERR_INTERNAL;
        set_error(error, code, "out of memory");
    } catch (const std::exception &e) {
        const std::string m = e.what();
        code = looks_truncated(m) ? EDGENAV_OSM_ERR_TRUNCATED : EDGENAV_OSM_ERR_FORMAT;
        set_error(error, code, m);
    } catch (...) {
        code = EDGENAV_OSM_ERR_INTERNAL;
        set_error(error, code, "unknown C++ exception");
    }
    return code;
}

extern "C" int edgenav_osm_shim_version(void) { return 2; }
