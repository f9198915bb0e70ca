"""The game-agnostic shells over the games' pure parts: the fold of a whole log
(:mod:`~jaslog.play.fold`), the audit of a round, what a seat or the public sees
(:mod:`~jaslog.play.views`, :mod:`~jaslog.play.share`), the event texts
(:mod:`~jaslog.play.render`), what-if folds, the simulator and the rules oracle.

Each module reaches a game only through the ``Game`` contract (``jaslog.games.get_game``).
"""
