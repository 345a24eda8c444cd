#!/usr/bin/env bash
# The harness's own tests (test/*.test.mjs, node:test). Exit 77 without node.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
exec node --test "$equivalence_dir"/test/
