#!/usr/bin/env bash
# A stand-in for onnx-opt whose output differs on every run: determinism.sh must catch it.
out=
while (($#)); do [[ $1 == -o ]] && out=$2; shift; done
head -c 16 /dev/urandom >"$out"
