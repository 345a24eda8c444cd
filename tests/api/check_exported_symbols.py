#!/usr/bin/env python3
"""Fails if libonnxopt.so exports a symbol outside the public API, or not all of it.

    check_exported_symbols.py LIBRARY INCLUDE_DIR

The public API is what include/onnxopt/ marks ONNXOPT_API: the classes (their members, vtables
and type infos) and the free functions, each in the namespace its header declares it in. Every
dynamic symbol the library defines (`nm -D --defined-only -C`) must belong to one of them; a
symbol of a private header, of a class the headers do not mark, of another namespace, or of a
template instantiated from another library's headers is reported. And every marked name must
export something.
"""

import pathlib
import re
import subprocess
import sys

# Parts of the public API the check insists on finding, so that it cannot pass on an empty or
# unreadable symbol table.
REQUIRED = ["onnxopt::optimize(", "onnxopt::Pass::", "typeinfo for onnxopt::Pass",
            "onnxopt::PassRegistry::global()", "onnxopt::ir::verify("]

# Demangled names of the vague-linkage objects and thunks that belong to a class or function.
PREFIXES = ["vtable for ", "typeinfo for ", "typeinfo name for ", "VTT for ",
            "construction vtable for ", "non-virtual thunk to ", "virtual thunk to ",
            "guard variable for "]

NAMESPACE_OPEN = re.compile(r"^namespace\s+([\w:]+)\s*\{")
NAMESPACE_CLOSE = re.compile(r"^\}\s*//\s*namespace")
MARKED_CLASS = re.compile(r"\b(?:class|struct)\s+ONNXOPT_API\s+(\w+)")
MARKED_FUNCTION = re.compile(r"\bONNXOPT_API\s+[^;{}()]*?\b(\w+)\s*\(")


def public_names(include_dir):
    """Qualified names ("onnxopt::ir::Node") that headers under include_dir mark ONNXOPT_API."""
    names = set()
    for header in sorted(pathlib.Path(include_dir).rglob("*.h")):
        if header.name == "export.h":
            continue
        namespaces = []
        for line in header.read_text().splitlines():
            if opened := NAMESPACE_OPEN.match(line):
                namespaces.append(opened.group(1))
                continue
            if NAMESPACE_CLOSE.match(line):
                namespaces.pop()
                continue
            for pattern in (MARKED_CLASS, MARKED_FUNCTION):
                for match in pattern.finditer(line):
                    names.add("::".join(namespaces + [match.group(1)]))
    return names


def exported_symbols(library):
    out = subprocess.run(["nm", "-D", "--defined-only", "-C", library], check=True,
                         capture_output=True, text=True).stdout
    symbols = []
    for line in out.splitlines():
        # "ADDRESS TYPE NAME"; NAME may contain spaces.
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] != "A":  # "A": the version node, not code or data
            symbols.append(parts[2])
    return symbols


def owner_is_public(symbol, names):
    for prefix in PREFIXES:
        if symbol.startswith(prefix):
            symbol = symbol[len(prefix):]
            break
    # The qualified name ends where the parameters, the template arguments or an abi tag start.
    end = len(symbol)
    for stop in "([<":
        position = symbol.find(stop)
        if position != -1:
            end = min(end, position)
    qualified = symbol[:end]
    # A member belongs to its class: try every enclosing scope.
    parts = qualified.split("::")
    return any("::".join(parts[:n]) in names for n in range(1, len(parts) + 1))


def main():
    library, include_dir = sys.argv[1], sys.argv[2]
    names = public_names(include_dir)
    symbols = exported_symbols(library)
    missing = [r for r in REQUIRED if not any(s.startswith(r) for s in symbols)]
    # A name marked ONNXOPT_API that exports nothing: a class with inline members only (nothing
    # to mark), or a declaration without a definition.
    missing += sorted(n for n in names if not any(owner_is_public(s, {n}) for s in symbols))
    outside = sorted(s for s in symbols if not owner_is_public(s, names))
    print(f"{library}: {len(symbols)} exported symbols; {len(names)} names marked ONNXOPT_API "
          f"in {include_dir}")
    if missing:
        print("FAIL: the public API is not exported:", *missing, sep="\n  ")
    if outside:
        print(f"FAIL: {len(outside)} exported symbols outside the public API:", *outside,
              sep="\n  ")
    if missing or outside:
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
