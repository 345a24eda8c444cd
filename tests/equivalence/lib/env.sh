# Sourced by run_equivalence.sh and run_corpus.sh: the environment checks shared by both.
# Exit 77 (CTest's SKIP_RETURN_CODE) when node is absent; otherwise make sure onnxruntime-node
# is installed (npm ci, via install.sh --no-system) unless ONNXOPT_EQUIVALENCE_NO_INSTALL=1.

equivalence_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node (Node.js) is not installed; tests/equivalence/install.sh installs it"
  exit 77
fi

if [[ "${ONNXOPT_EQUIVALENCE_NO_INSTALL:-0}" != 1 ]]; then
  if ! bash "$equivalence_dir/install.sh" --no-system; then
    echo "FAIL: could not install onnxruntime-node (see above); run tests/equivalence/install.sh"
    exit 1
  fi
fi
