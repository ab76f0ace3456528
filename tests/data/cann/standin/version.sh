#!/bin/sh
# version.sh WHAT: a version line as CANN's version files hold it.
[ "$1" = driver ] && echo "Version=24.1.rc2.standin" || echo "runtime_running_version=[8.0.RC1.standin]"
