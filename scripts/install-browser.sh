#!/bin/sh
# Install the browser the web view's tests drive (tests/web/test_browser.py):
# Chromium and its chromedriver from the system's packages. Nothing is
# downloaded from anywhere else; Selenium itself comes from
# requirements-dev.txt. Idempotent: does nothing when both are there.
# As root on Debian or Ubuntu it installs them with apt-get; otherwise it
# says what to install and exits non-zero.
set -eu

have() {
    command -v "$1" >/dev/null 2>&1
}

if have chromium && have chromedriver; then
    exit 0
fi

if [ "$(id -u)" = 0 ] && have apt-get; then
    echo "install-browser.sh: installing chromium and chromium-driver with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium chromium-driver >/dev/null
    if have chromium && have chromedriver; then
        exit 0
    fi
    echo "install-browser.sh: apt-get finished but chromium or chromedriver is still missing" >&2
    exit 1
fi

echo "install-browser.sh: the web view's browser tests need Chromium and chromedriver;" >&2
echo "  on Debian or Ubuntu, as root: apt-get install chromium chromium-driver" >&2
echo "  (outside CI the browser tests skip without them)" >&2
exit 1
