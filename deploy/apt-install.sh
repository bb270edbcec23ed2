#!/usr/bin/env bash
# deploy/apt-install.sh PKG...: installs Debian packages the project's checks
# need, as root, when they are missing. Sourced (for apt_install) by the test
# and bench scripts, or run with the packages as arguments (the Makefile).
#
# Debian starts a freshly installed service at once (nginx on port 80,
# redis-server on 6379) and leaves it running on a shared machine; the checks
# need only the binaries, so services are kept from starting during the
# install. The package lists are refreshed first, as a fresh image has none.

apt_install() {
    [[ $(id -u) -eq 0 ]] || { echo "needs $* (apt-get install $*, as root)" >&2; return 1; }
    echo "installing $*" >&2
    local blocker="" installed=0
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
        blocker=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' >"$blocker"
        chmod 0755 "$blocker"
    fi
    apt-get -o DPkg::Lock::Timeout=300 update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
            --no-install-recommends "$@" >/dev/null && installed=1
    if [[ -n "$blocker" ]]; then rm -f "$blocker"; fi
    [[ "$installed" -eq 1 ]] || { echo "apt-get install $* failed" >&2; return 1; }
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    apt_install "$@"
fi
