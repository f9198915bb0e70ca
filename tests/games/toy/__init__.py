"""A toy game, to show that a game is one folder: two players, four cards, one event of its own
(``toy_swap``), registered by its test (``test_toy.py``) with no file outside this folder."""
