"""The rules of the games: pure functions and states, no I/O, no storage, no CLI."""
