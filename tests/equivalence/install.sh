#!/usr/bin/env bash
# Installs what the numerical-equivalence harness needs, idempotently:
#   1. Node.js and npm, from Debian (apt-get, as root) when either is missing. Debian 12's
#      nodejs is v18, which onnxruntime-node 1.30 supports (N-API); anything >= 18 works.
#   2. onnxruntime-node at the exact version pinned in package-lock.json: `npm ci` in this
#      directory, skipped when node_modules was installed from the same lock file and loads.
#      ONNXRUNTIME_NODE_INSTALL=skip stops its install script from downloading CUDA binaries
#      (the CPU backend ships in the package).
# Then a self-test runs a one-node model on ORT's CPU backend.
#
# Usage: tests/equivalence/install.sh [--no-system] [--force]
#   --no-system  never call apt-get (fail if node/npm are missing)
#   --force      run `npm ci` even when node_modules looks up to date
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
no_system=0
force=0
for arg in "$@"; do
  case "$arg" in
    --no-system) no_system=1 ;;
    --force) force=1 ;;
    -h|--help) sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

log() { echo "equivalence/install.sh: $*" >&2; }

# --- 1. node + npm -------------------------------------------------------------------------
missing=()
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if ((${#missing[@]})); then
  if ((no_system)); then
    log "missing ${missing[*]} (and --no-system given): install Node.js >= 18 and npm"
    exit 1
  fi
  if [[ $(id -u) -ne 0 ]]; then
    log "missing ${missing[*]}: run this script as root, or: sudo apt-get install nodejs npm"
    exit 1
  fi
  log "installing ${missing[*]} from Debian"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends nodejs npm; then
    apt-get update
    apt-get install -y --no-install-recommends nodejs npm
  fi
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if ((node_major < 18)); then
  log "node $(node --version) is too old: onnxruntime-node 1.30 needs Node.js >= 18"
  exit 1
fi

# --- 2. npm ci, unless already done from this lock file ----------------------------------------
stamp="$here/node_modules/.onnxopt-install-stamp"
want="$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)"
up_to_date() {
  [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] &&
    (cd "$here" && node compare.mjs --self-test >/dev/null 2>&1)
}

install_deps() {
  if ((force == 0)) && up_to_date; then
    log "node_modules is up to date ($(cd "$here" && node compare.mjs --self-test))"
    return 0
  fi
  log "npm ci in $here"
  rm -f "$stamp"
  (cd "$here" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error >&2)
  (cd "$here" && node compare.mjs --self-test) >&2
  echo "$want" >"$stamp"
}

# Serialize concurrent installs (parallel ctest runs share this node_modules).
lock="${TMPDIR:-/tmp}/onnxopt-equivalence-$(echo "$here" | sha256sum | cut -c1-12).lock"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$lock"
  flock 9
fi
install_deps
