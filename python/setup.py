"""Wheel of sqlite_nosql: the package, nosql.so and the libraries it needs.

Run by scripts/wheel.sh in a staging directory where sqlite_nosql/ already
holds the shared objects (the extension, CRoaring, PCRE2) and __init__.py
carries the version. The wheel is tagged py3-none-<platform>: any Python 3
(the extension is loaded by SQLite, not imported, so no CPython ABI is
involved). The platform tag is NOSQL_WHEEL_PLAT, which scripts/wheel.sh
sets to manylinux_2_17_<arch>.manylinux2014_<arch> after checking that no
file needs a glibc newer than 2.17; without it, manylinux_<glibc>_<arch>
of the build machine.
"""

import os
import platform
import re

from setuptools import setup
from setuptools.dist import Distribution
from wheel.bdist_wheel import bdist_wheel


def platform_tag():
    if os.environ.get("NOSQL_WHEEL_PLAT"):
        return os.environ["NOSQL_WHEEL_PLAT"]
    libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    m = re.fullmatch(r"glibc (\d+)\.(\d+)", libc)
    if not m:
        raise SystemExit("setup.py: not a glibc system (%r): no manylinux tag" % libc)
    return "manylinux_%s_%s_%s" % (m.group(1), m.group(2), platform.machine())


class BinaryDistribution(Distribution):
    """Carries shared objects: the files go to platlib, the wheel's root."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """A wheel that is not pure Python but has no CPython ABI either."""

    def get_tag(self):
        return "py3", "none", platform_tag()


def version():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sqlite_nosql", "__init__.py")) as f:
        m = re.search(r'^__version__ = "([^"@]+)"$', f.read(), re.M)
    if not m:
        raise SystemExit("setup.py: sqlite_nosql/__init__.py has no version: build with scripts/wheel.sh")
    return m.group(1)


with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "README.md"), encoding="utf-8") as f:
    readme = f.read()

setup(
    name="sqlite-nosql",
    version=version(),
    description="NoSQL data-modeling techniques inside SQLite, as a loadable extension",
    long_description=readme,
    long_description_content_type="text/markdown",
    license="MIT",
    license_files=["LICENSE*"],
    python_requires=">=3.7",
    packages=["sqlite_nosql"],
    package_data={"sqlite_nosql": ["*.so", "*.so.*", "*.dll"]},
    zip_safe=False,
    classifiers=[
        "License :: OSI Approved :: MIT License",
        "Operating System :: POSIX :: Linux",
        "Operating System :: Microsoft :: Windows",
        "Programming Language :: C",
        "Programming Language :: Python :: 3",
        "Topic :: Database",
    ],
    distclass=BinaryDistribution,
    cmdclass={"bdist_wheel": PlatformWheel},
)
