#pragma once
// A projection (findAndModify's `fields`) as MongoDB 3.2's ParsedProjection and
// ProjectionExec have it for plain paths: inclusion ({a: 1}: _id and the named fields) or exclusion ({a: 0}: all but the named fields), dotted paths reaching into
// embedded documents (and each embedded document of an array). _id is included unless excluded,
// in either kind. Operators ($slice, $elemMatch, $meta) are not modelled.
#include <string>

#include "engine/document.h"

namespace wtsim::engine {

// A projection's refusal (BadValue) as MongoDB words it, or "" for a valid one.
std::string projection_error(const Document& fields);
// `doc` as a valid `fields` projects it.
Document project(const Document& doc, const Document& fields);

}  // namespace wtsim::engine
