#!/usr/bin/env bash
# OpenSSL 3.5 from Debian 13's source package, cached: kept for callers of the
# old name; scripts/openssl-release.sh builds every release line.
#   prefix=$(scripts/openssl35.sh [--pin VERSION])
exec "$(dirname "$0")/openssl-release.sh" 3.5 "$@"
