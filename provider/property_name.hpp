// The property definition every algorithm of one provider instance carries:
// provider=<instance name>, written so that OpenSSL can parse it whatever
// the name is. OpenSSL drops an algorithm whose property does not parse, so
// an unparsable one would leave a loaded provider serving nothing.
#pragma once

#include <string>

namespace hwaccel {

// "provider=hwaccel" for the instance name "hwaccel". A name with a '/' is
// the module's path (OSSL_PROVIDER_load(ctx, "/dir/hwaccel.so")): its file
// name without ".so" stands for it, as if loaded by that name. A name that
// is no unquoted property value (a letter, then printable ASCII without
// spaces or commas) is quoted; one no quote can hold, or longer than OpenSSL
// parses, gives "provider=hwaccel".
std::string provider_property(std::string instance_name);

}  // namespace hwaccel
