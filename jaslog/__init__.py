"""jaslog: immutable event logs for the Klaverjas family of card games."""

from jaslog import native

__version__ = "0.1.0"

native.activate()  # the compiled hot path, or (JASLOG_PURE=1, or none built) pure Python
