"""`cmake --install` puts the package where Debian's /usr/bin/python3 imports it from any
folder."""

import os
import re
import subprocess
import sys

import pytest

from conftest import BUILD_DIR, LEGACY_CLASSIFIER

DEBIAN_PYTHON = "/usr/bin/python3"


def cache_value(name):
    if not BUILD_DIR:
        pytest.fail("ONNXOPT_BUILD_DIR is not set: run the tests through ctest")
    with open(os.path.join(BUILD_DIR, "CMakeCache.txt")) as f:
        match = re.search(rf"^{name}:[A-Z]+=(.*)$", f.read(), re.MULTILINE)
    assert match, f"{name} is not in {BUILD_DIR}/CMakeCache.txt"
    return match.group(1)


def clean_env(**extra):
    """The environment without the build tree's PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(extra)
    return env


def test_tests_run_on_debians_python():
    assert os.path.realpath(sys.executable) == os.path.realpath(DEBIAN_PYTHON)


def test_default_install_location_is_on_debian_pythons_path():
    prefix = cache_value("CMAKE_INSTALL_PREFIX")
    site = os.path.join(prefix, cache_value("ONNXOPT_PYTHON_INSTALL_DIR"))
    paths = subprocess.run([DEBIAN_PYTHON, "-c", "import sys; print('\\n'.join(sys.path))"],
                           env=clean_env(), cwd="/", capture_output=True, text=True,
                           check=True).stdout.splitlines()
    if prefix == "/usr/local":
        assert site in paths, f"{site} is not on {DEBIAN_PYTHON}'s sys.path: {paths}"
    else:
        assert site not in paths  # a custom prefix needs PYTHONPATH (docs/python-api.md)


def test_installed_package_imports_from_any_folder(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", BUILD_DIR, "--prefix", str(prefix),
                    "--component", "python"], check=True, capture_output=True)
    site = prefix / cache_value("ONNXOPT_PYTHON_INSTALL_DIR")
    installed = sorted(os.listdir(site / "onnxopt"))
    assert "__init__.py" in installed
    assert any(name.startswith("_onnxopt.") and name.endswith(".so") for name in installed)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = ("import onnxopt; print(onnxopt.__file__); "
              f"print(len(onnxopt.optimize({LEGACY_CLASSIFIER!r}).graph.node))")
    result = subprocess.run([DEBIAN_PYTHON, "-c", script], cwd=elsewhere, capture_output=True,
                            text=True, env=clean_env(PYTHONPATH=str(site)), check=False)
    assert result.returncode == 0, result.stderr
    module_file, nodes = result.stdout.split()
    assert module_file == str(site / "onnxopt" / "__init__.py")
    assert nodes == "5"
