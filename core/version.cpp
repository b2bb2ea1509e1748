#include "iputrain/version.hpp"

namespace iputrain {

const char* version() { return IPUTRAIN_VERSION_STRING; }

}  // namespace iputrain
