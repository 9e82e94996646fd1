"""Builds the native part of the Python package with meson, then packs it beside the Python code.

The package's functions call posenc_run() in cli/libposenc-python.so (cli/library.c), which
meson builds with the program; this runs `meson setup build-python` (once) and
`ninja -C build-python cli/libposenc-python.so`, and copies the file into the package.
POSENC_PYTHON_BUILD names another build folder (an existing one is reused as it is).
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = "libposenc-python.so"


def build_native():
    build = os.environ.get("POSENC_PYTHON_BUILD", os.path.join(HERE, "build-python"))
    if not os.path.exists(os.path.join(build, "build.ninja")):
        subprocess.check_call(["meson", "setup", build, "-Dtests=disabled"], cwd=HERE)
    subprocess.check_call(["ninja", "-C", build, "cli/" + LIBRARY], cwd=HERE)
    return os.path.join(build, "cli", LIBRARY)


class BuildWithNative(build_py):
    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "posenc")
        os.makedirs(target, exist_ok=True)
        shutil.copy2(build_native(), os.path.join(target, LIBRARY))


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: it is for this platform only."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithNative}, distclass=BinaryDistribution,
      options={"build": {"build_base": os.path.join("build-python", "setuptools")}})
