#!/usr/bin/env bash
# Install everything the harness needs on a fresh Debian 12 / Node 20 machine:
#   - Debian packages: Jupyter (nbconvert, client, ipykernel) for headless notebooks,
#     the classic notebook front-end (jupyter-notebook) to open them in a browser,
#     Chromium for PNG/SVG figure export, DejaVu fonts for drawn charts, python3-requests for the
#     KnowForge authors' released runner (the differential test against it).
#   - npm packages exactly as locked (npm ci), then the TypeScript build.
#   - the tslab Jupyter kernel.
# Safe to rerun. Without root (and without sudo) the apt step is skipped with a note:
# notebooks and PNG export then report what is missing, everything else works.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PKGS="jupyter-nbconvert jupyter-client python3-nbclient python3-ipykernel jupyter-notebook chromium fonts-dejavu-core python3-requests"
need_apt=0
command -v jupyter >/dev/null 2>&1 || need_apt=1
jupyter notebook --version >/dev/null 2>&1 || need_apt=1
[ -x /usr/bin/chromium ] || need_apt=1
/usr/bin/python3 -c 'import nbclient, ipykernel' >/dev/null 2>&1 || need_apt=1
# python3-requests: the KnowForge authors' released runner (the differential test, kf diff-runner) needs it.
/usr/bin/python3 -c 'import requests' >/dev/null 2>&1 || need_apt=1
if [ "$need_apt" = 1 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else SUDO="none"; fi
  if [ "$SUDO" = none ]; then
    echo "setup: not root and no sudo: skipping apt ($APT_PKGS). Notebooks and PNG/SVG figures need them."
  else
    echo "setup: installing Debian packages: $APT_PKGS"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $APT_PKGS >/dev/null
  fi
fi

echo "setup: installing npm packages (npm ci)"
if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi

echo "setup: building (tsc)"
npm run --silent build

if command -v jupyter >/dev/null 2>&1; then
  # The tslab kernel spec with absolute paths (Node, this checkout's tslab): a bare `tslab` (what
  # `tslab install` writes) is on PATH only inside npm scripts, so `jupyter notebook` would show "Kernel error".
  echo "setup: writing the tslab kernel spec"
  node bin/kf.js jupyter --install-kernel || echo "setup: the tslab kernel spec could not be written (see above)"
fi
if command -v jupyter >/dev/null 2>&1; then
  # The kernel is working only if it runs a cell (kf doctor executes one).
  node bin/kf.js doctor | grep -E '^(notebookUI|tslabKernel)' | sed 's/^/setup: /' || true
fi
echo "setup: done. Next: npm run demo (main job) | npm test (test suite) | npm run jupyter (notebooks) | node bin/kf.js --help"
