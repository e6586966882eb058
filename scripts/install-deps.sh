#!/usr/bin/env bash
# Install what a fresh machine lacks: Debian packages (when root and missing) and the
# Python package with its dependencies.  Idempotent; safe to run again.
set -euo pipefail
APT_PKGS=(fio liburing-dev nbdkit libnbd-bin qemu-utils gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user valgrind)
# The aarch64 build of the whole data plane (make test-arm) links liburing for arm64.
ARM_PKGS=(liburing-dev:arm64)
missing=()
if [ "$(id -u)" = 0 ] && [ "$(dpkg --print-architecture)" != arm64 ] \
   && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "install-deps: dpkg --add-architecture arm64"
  dpkg --add-architecture arm64
  missing+=("${ARM_PKGS[@]}")
elif dpkg --print-foreign-architectures | grep -qx arm64; then
  for p in "${ARM_PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "install-deps: apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "install-deps: not root; please install: ${missing[*]}" >&2
  fi
fi
PY=${PYTHON:-python3}
"$PY" -m pip install -q --disable-pip-version-check "setuptools>=64" wheel "cffi>=1.15" 2>&1 | grep -v -i "running pip as" || true
"$PY" -m pip install -q --disable-pip-version-check --no-build-isolation -e ".[test]" 2>&1 | grep -v -i "running pip as" || true
"$PY" -c "import dataplane._jbof" 
