"""Builds jaslog's one compiled part, the solver's core (``jaslog.analysis._solver``).

Everything else is in pyproject.toml. The core is optional: without a C compiler (or the
Python headers) ``pip install`` says so and goes on, and the analysis uses its pure-Python
core, which gives the same answers, more slowly (docs/analyze.md).
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """Build the solver's core if possible; otherwise say so and go on without it."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as e:  # no compiler at all (setuptools raises before compiling)
            self._note(e)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as e:  # the compiler failed (no headers...)
            self._note(e)

    @staticmethod
    def _note(e: Exception) -> None:
        print(f"note: jaslog's compiled solver was not built ({e}); jaslog analyze and the "
              "rules oracle's solve use the pure-Python solver, which gives the same answers, "
              "more slowly. Install a C compiler and the Python headers, then reinstall, to "
              "build it.")


setup(
    ext_modules=[Extension("jaslog.analysis._solver", ["jaslog/analysis/_solver.c"],
                           optional=True)],
    cmdclass={"build_ext": OptionalBuildExt},
)
