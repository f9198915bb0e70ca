"""``jaslog`` run inside the test process, as the console script runs it: ``jaslog.cli.main``
with the command line in ``sys.argv``, standard input, output and error swapped for buffers
(typer's ``CliRunner`` isolation) and the environment given. It answers like
``subprocess.run``: the exit code, stdout and stderr apart.

A real process costs half a second of imports; the tests that need one (a signal, a
pseudo-terminal, a closed pipe, a file descriptor limit, a server) start it themselves.
An exception that escapes the command is raised here: where a user would see a traceback,
the test fails.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Literal, overload

from typer.testing import CliRunner


@overload
def jaslog(*args: str, input: str | bytes | None = ..., env: Mapping[str, str | None] | None = ...,
           cwd: Path | str | None = ..., text: Literal[False] = ...
           ) -> subprocess.CompletedProcess[bytes]: ...


@overload
def jaslog(*args: str, input: str | bytes | None = ..., env: Mapping[str, str | None] | None = ...,
           cwd: Path | str | None = ..., text: Literal[True]) -> subprocess.CompletedProcess[str]: ...


def jaslog(*args: str, input: str | bytes | None = None,
           env: Mapping[str, str | None] | None = None, cwd: Path | str | None = None,
           text: bool = False) -> subprocess.CompletedProcess[bytes] | subprocess.CompletedProcess[str]:
    """``jaslog ARGS`` with ``input`` on stdin, ``env`` over the environment (``None`` unsets a
    variable) and ``cwd`` as the working directory; stdout and stderr as bytes, or as text
    with ``text=True``.

    >>> r = jaslog("rules", "winner", "-t", "H", "--trick", "7S,AS", text=True)
    >>> r.returncode, r.stdout.strip(), r.stderr
    (0, 'card 1 (AS) wins the trick', '')
    """
    from jaslog.cli import main

    argv = ["jaslog", *args]
    code: int = 0
    with CliRunner().isolation(input=input, env=env) as (out, err, _), \
            (contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext()):
        saved = sys.argv
        sys.argv = argv
        try:
            main()
        except SystemExit as e:
            if e.code is None:
                code = 0
            elif isinstance(e.code, int):
                code = e.code
            else:  # sys.exit("message"): the message on stderr, exit 1
                sys.stderr.write(f"{e.code}\n")
                code = 1
        finally:
            sys.argv = saved
            sys.stdout.flush()
            sys.stderr.flush()
        stdout, stderr = out.getvalue(), err.getvalue()
    if text:
        return subprocess.CompletedProcess(argv, code, stdout.decode(), stderr.decode())
    return subprocess.CompletedProcess(argv, code, stdout, stderr)


def process_env(**extra: str) -> dict[str, str]:
    """The environment of a real ``python -m jaslog`` process: this one's, the checkout on
    ``PYTHONPATH``, and ``extra``."""
    root = str(Path(__file__).resolve().parent.parent)
    path = os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])
    return {**os.environ, "PYTHONPATH": path, **extra}


@contextlib.contextmanager
def pipe_path(data: bytes) -> Iterator[str]:
    """A pipe that yields ``data`` once, named by its path (``/dev/fd/N``), as a shell's
    ``<(cat FILE)`` is: a thread writes it while the command reads.

    >>> with pipe_path(b"one line\\n") as path:
    ...     Path(path).read_bytes()
    b'one line\\n'
    """
    import threading

    r, w = os.pipe()

    def write() -> None:
        with contextlib.suppress(BrokenPipeError), open(w, "wb") as f:
            f.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        yield f"/dev/fd/{r}"
    finally:
        os.close(r)
        writer.join(10)
