"""Build script of ``semiprivate``: the package layout and the compiled kernels.

Layout: one import name, ``semiprivate``.  Its sub-packages are the repository's top-level folders
(``PACKAGE_DIRS``): ``theory/`` installs as ``semiprivate.theory``, ``kernels/`` as
``semiprivate.kernels``, ``proofs_checks/`` as ``semiprivate.proofs_checks``; ``semiprivate/`` holds
the package's own ``__init__`` and the command line.  Nothing installs a top-level ``theory`` or
``kernels`` (``kernels`` is an unrelated PyPI package).

Every ``kernels/_cython/*.pyx`` is compiled against the NumPy headers with ``-O3``.
OpenMP is used where the compiler supports it: support is detected by compiling and
linking a tiny OpenMP program; without it the extensions build sequentially (Cython's
``prange`` degrades to a plain loop).  Environment switches:

* ``SEMIPRIVATE_NO_OPENMP=1``  build without OpenMP even if available.
* ``SEMIPRIVATE_NATIVE=1``     add ``-march=native`` (faster, not portable).
* ``SEMIPRIVATE_DEBUG=1``      compile with ``-O0 -g`` instead of ``-O3``: about five times quicker to build and
  steppable in a debugger; the kernels run slower.  For working on the kernels and for build checks that
  do not time them (the packaging tests' isolated wheel build uses it: the same CI run's own install,
  ``scripts/bootstrap.sh``, compiles the release flags).

* ``SEMIPRIVATE_REQUIRE_COMPILED=1`` fail the build when the kernels cannot be compiled
  (release wheels and CI's wheel check use it).

Per-extension extra flags go in ``EXTRA_COMPILE_ARGS`` below.  The extensions compile in parallel, one per
core (build_ext's own ``--parallel``; ``build_ext -j 1`` compiles them one at a time).

The compiled kernels are optional: when no working C compiler is found (or an extension fails to
compile) the build prints one warning line and installs the package without them; the NumPy
backend then serves every kernel (``semiprivate.kernels.available_backends()`` says which
backends this install has).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from glob import glob
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent

# import name -> folder of the repository
PACKAGE_DIRS = {
    "semiprivate": "semiprivate",
    "semiprivate.theory": "theory",
    "semiprivate.kernels": "kernels",
    "semiprivate.proofs_checks": "proofs_checks",
}


def _packages() -> list[str]:
    """Every package under the folders of ``PACKAGE_DIRS``, named as it installs."""
    found = []
    for name, folder in PACKAGE_DIRS.items():
        found.append(name)
        found += [f"{name}.{sub}" for sub in find_packages(str(HERE / folder))]
    return found


# Extra compiler flags for single extensions, keyed by module name (e.g. "_expmech").
# _expmech: -fno-trapping-math lets GCC if-convert the clamp and the select of the float exp-and-sum
# loop, which it otherwise vectorises only with AVX-512 masks (3x slower on AVX2, 1.5x on SSE2).
# No result depends on floating-point traps (none are enabled); rounding is unchanged.
EXTRA_COMPILE_ARGS: dict[str, list[str]] = {"_expmech": ["-fno-trapping-math"]}

OPENMP_TEST = r"""
#include <omp.h>
int main(void) {
    int n = 0;
    #pragma omp parallel reduction(+:n)
    n += 1;
    return n > 0 ? 0 : 1;
}
"""


def _compiler_supports_openmp(compiler) -> bool:
    if os.environ.get("SEMIPRIVATE_NO_OPENMP"):
        return False
    tmp = tempfile.mkdtemp(prefix="sp_omp_")
    try:
        src = os.path.join(tmp, "omp_test.c")
        with open(src, "w") as fh:
            fh.write(OPENMP_TEST)
        objs = compiler.compile([src], output_dir=tmp, extra_postargs=["-fopenmp"])
        compiler.link_executable(objs, os.path.join(tmp, "omp_test"), extra_postargs=["-fopenmp"])
        return True
    except Exception:  # any compile/link failure means: no OpenMP
        return False
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


C_PROBE = "int main(void) { return 0; }\n"

NO_COMPILER_WARNING = ("semiprivate: WARNING: the compiled kernels were not built ({why}); "
                       "installing the NumPy backend only (slower, same results)")


def _compiler_works(compiler) -> str:
    """'' when ``compiler`` compiles and links a trivial C program, else the reason it does not."""
    tmp = tempfile.mkdtemp(prefix="sp_cc_")
    try:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as fh:
            fh.write(C_PROBE)
        objs = compiler.compile([src], output_dir=tmp)
        compiler.link_executable(objs, os.path.join(tmp, "probe"))
        return ""
    except Exception as exc:  # CompileError, LinkError, DistutilsExecError: no usable compiler
        return f"no working C compiler: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class BuildExt(build_ext):
    """build_ext that adds -O3 and, where supported, OpenMP; without a compiler, builds nothing.

    A failed build of the compiled kernels is not an error (unless ``SEMIPRIVATE_REQUIRE_COMPILED``
    is set): one warning line, no extension installed, and the NumPy backend serves the kernels.
    Either all extensions are installed or none (a partial set would make the Cython backend
    look available with a kernel missing).
    """

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:  # not set by the caller: one extension per core (True means os.cpu_count())
            self.parallel = True

    def build_extensions(self) -> None:
        why = _compiler_works(self.compiler)
        if not why:
            try:
                # Cython translates the .pyx files only once a compiler is known to work: without one there is
                # nothing to compile its C for
                # (the C sources go into the extensions build_ext has already prepared)
                translated = {e.name: e for e in cythonize(self.extensions, compiler_directives={"language_level": "3"},
                                                          quiet=True)}
                for ext in self.extensions:
                    ext.sources = translated[ext.name].sources
                self._build_compiled()
                return
            except Exception as exc:  # a CompileError / LinkError of one extension
                why = f"an extension failed to compile: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
        if os.environ.get("SEMIPRIVATE_REQUIRE_COMPILED"):
            raise SystemExit(f"semiprivate: the compiled kernels are required (SEMIPRIVATE_REQUIRE_COMPILED) but {why}")
        for ext in self.extensions:
            built = self.get_ext_fullpath(ext.name)
            if os.path.exists(built):
                os.remove(built)
        self.extensions = []
        print(NO_COMPILER_WARNING.format(why=why), file=sys.stderr)

    def _build_compiled(self) -> None:
        is_msvc = self.compiler.compiler_type == "msvc"
        openmp = (not is_msvc) and _compiler_supports_openmp(self.compiler)
        debug = bool(os.environ.get("SEMIPRIVATE_DEBUG"))
        if is_msvc:
            base = ["/Od", "/Zi"] if debug else ["/O2"]
        else:
            base = ["-O0", "-g"] if debug else ["-O3"]
        if os.environ.get("SEMIPRIVATE_NATIVE") and not is_msvc:
            base.append("-march=native")
        for ext in self.extensions:
            short = ext.name.rsplit(".", 1)[-1]
            extra = [] if is_msvc else EXTRA_COMPILE_ARGS.get(short, [])
            ext.extra_compile_args = base + extra + list(ext.extra_compile_args or [])
            if openmp:
                ext.extra_compile_args.append("-fopenmp")
                ext.extra_link_args = list(ext.extra_link_args or []) + ["-fopenmp"]
        print(f"semiprivate: building {len(self.extensions)} extension(s), OpenMP={'on' if openmp else 'off'}, "
              f"flags {' '.join(base)}",
              file=sys.stderr)
        super().build_extensions()


def _extensions() -> list[Extension]:
    exts = []
    for pyx in sorted(glob(str(HERE / "kernels" / "_cython" / "*.pyx"))):
        name = Path(pyx).stem
        exts.append(
            Extension(
                f"semiprivate.kernels._cython.{name}",
                [os.path.relpath(pyx, HERE)],
                include_dirs=[numpy.get_include()],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            )
        )
    return exts  # translated to C by BuildExt.build_extensions, after its compiler check


setup(
    packages=_packages(),
    package_dir=PACKAGE_DIRS,
    ext_modules=_extensions(),
    cmdclass={"build_ext": BuildExt},
)
