"""jaslog: immutable event logs for the Klaverjas family of card games."""

__version__ = "0.1.0"
