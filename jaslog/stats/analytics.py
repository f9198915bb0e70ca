"""DuckDB over the Parquet export: views named after the tables, and the questions in
``jaslog/stats/questions/*.sql`` (package data: an installed jaslog has them too).

A question is a ``.sql`` file whose header comments say what it answers and how it may be
grouped::

    -- question: How often does the playing side make it?
    -- by: ruleset
    -- by: position = CASE declarer_position WHEN 1 THEN '1 forehand' ... END
    -- plot: x=trump y=made_rate

``{by}`` in the query is replaced by the chosen dimension (``expression AS "name"``; the
first ``by`` line is the default, ``all`` always exists and puts every row in one group),
and ``{dim}`` by the dimension's quoted name.

Rounds recorded by their score alone (``rounds.recorded = 'score_only'``, rule book 9.1,
decision 11) hold only what the score sheet says. Each question says which of them it
counts, and the answer says how many it left out (:attr:`Result.score_only_left_out`)::

    -- kind: klaverjas                                 (the game whose rounds it is about)
    -- score_only: result IN ('made', 'nat', 'pit')    (when it counts one: what it needs)
    -- score_only by trump: trump IS NOT NULL          (and what a dimension needs besides)

``{score_only}`` in the query is replaced by the condition that keeps every round played
card by card and the score-only rounds the question counts (a condition on a row of
``rounds``); ``score_only: false`` counts none, ``true`` all. The views (``events``, ``plays``, ``tricks``,
``rounds``, ``games``, ``players``, ``violations``) read the current snapshot's files with
their ``ruleset`` and ``year`` partition columns; ``where`` keeps only the games for which a
condition on the ``games`` view holds, in every view (:func:`games_filter` makes one that
keeps a player's games, or those of a span of dates).

Every question that can be grouped also takes the time dimensions (:data:`TIME_DIMS`:
``month``, ``weekday``, ``evening``, ``hour``, by when each row's game began), looked up by
the row's ``game`` column; a query that joins tables says which one (``-- game: p.game``).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from jaslog.errors import JaslogError
from jaslog.export import SCHEMAS, TABLES, load_manifest
from jaslog.export.schema import PARTITIONS, fingerprint

#: The questions' folder: package data of jaslog (``[tool.setuptools.package-data]``), so
#: that an installed jaslog, not only a checkout, has every question.
QUESTIONS_DIR = Path(str(resources.files("jaslog.stats") / "questions"))
ALL = ("all", "'all'")


class AnalyticsError(JaslogError):
    """A question, dimension or query that cannot run: the message says why."""

    code = "bad_question"


#: The time dimensions every question that can be grouped takes besides its own, by when its
#: game began (UTC, as stored): ``month`` (2026-03), ``weekday`` (1 Monday .. 7 Sunday),
#: ``evening`` (the games of one event on one date: "2026-03-03 club night"), ``hour``
#: (19:00). Each is a column of the ``_times`` view (game -> its times).
TIME_DIMS: dict[str, str] = {
    "month": "strftime(first_at, '%Y-%m')",
    "weekday": "strftime(first_at, '%u %A')",
    "evening": "strftime(first_at, '%Y-%m-%d') || coalesce(' ' || "
               "json_extract_string(meta, '$.event'), '')",
    "hour": "strftime(first_at, '%H:00')",
}


def time_bound(text: str | None, *, end: bool, what: str) -> str | None:
    """``--from``/``--to`` as an SQL timestamp literal: a date (``to``: the whole day) or an
    RFC 3339 time.

    >>> time_bound("2026-03-10", end=True, what="--to")
    "TIMESTAMPTZ '2026-03-11T00:00:00+00:00'"
    """
    if text is None:
        return None
    t = text.strip()
    try:
        if len(t) == 10:
            d = date.fromisoformat(t) + timedelta(days=1 if end else 0)
            when = datetime(d.year, d.month, d.day).isoformat() + "+00:00"
        else:
            parsed = datetime.fromisoformat(t.replace("Z", "+00:00"))
            when = parsed.isoformat() if parsed.tzinfo else parsed.isoformat() + "+00:00"
    except ValueError:
        raise AnalyticsError(f"{what} {text!r}: give a date (2026-03-01) or an RFC 3339 time "
                             "(2026-03-01T19:30:00Z)") from None
    return f"TIMESTAMPTZ {_sql_text(when)}"


def games_filter(*, players: Sequence[str] = (), date_from: str | None = None,
                 date_to: str | None = None) -> str | None:
    """A condition on the ``games`` view that keeps the games every one of ``players`` (ids)
    sat in, begun from ``date_from`` to ``date_to`` (dates, ``to`` taking in the whole day,
    or RFC 3339 times); None: no condition.

    >>> games_filter(players=["ann"], date_from="2026-03-01")
    "list_contains(players, 'ann') AND first_at >= TIMESTAMPTZ '2026-03-01T00:00:00+00:00'"
    """
    conds = [f"list_contains(players, {_sql_text(p)})" for p in players]
    start = time_bound(date_from, end=False, what="--from")
    stop = time_bound(date_to, end=True, what="--to")
    if start:
        conds.append(f"first_at >= {start}")
    if stop:
        conds.append(f"first_at < {stop}")
    return " AND ".join(conds) or None


def both(*conds: str | None) -> str | None:
    """The conditions that are given, joined with AND (None: none)."""
    given = [c for c in conds if c]
    if len(given) > 1:
        return " AND ".join(f"({c})" for c in given)
    return given[0] if given else None


def player_ids(names: Sequence[str], known: dict[str, str]) -> list[str]:
    """``--player`` values as player ids: a display name (any case) of ``known`` (id ->
    name) is its player's id; anything else is taken as an id."""
    by_name = {n.lower(): i for i, n in known.items()}
    return [n if n in known else by_name.get(n.lower(), n) for n in names]


@dataclass(frozen=True)
class Question:
    """One ``questions/<name>.sql`` file (:data:`QUESTIONS_DIR`)."""

    name: str
    question: str
    sql: str
    dims: tuple[tuple[str, str], ...]        # (name, expression); the first is the default
    plot: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    path: Path | None = None
    #: what an answer without rows means (``-- empty: ...``), said instead of "(no rows)"
    empty: str | None = None
    #: the game whose rounds the question is about (``-- kind: ...``; None: every game)
    kind: str | None = None
    #: when it counts a score-only round (``-- score_only: ...``, a condition on ``rounds``;
    #: None: the question does not say, and no count of those left out is made)
    score_only: str | None = None
    #: what a dimension needs of a score-only round besides (``-- score_only by DIM: ...``)
    score_only_by: tuple[tuple[str, str], ...] = ()
    #: the column that names a row's game where the time dimensions look it up (``-- game:
    #: p.game``, for a query that joins tables; default ``game``)
    game_ref: str = "game"

    @property
    def dimensions(self) -> list[str]:
        """The dimensions its file defines (the first: default)."""
        return [d for d, _ in self.dims]

    @property
    def groupings(self) -> list[str]:
        """Every dimension it may be grouped by: its own, then the time dimensions
        (:data:`TIME_DIMS`) it does not define itself (none for a question that cannot be
        grouped at all)."""
        own = self.dimensions
        return own + [d for d in TIME_DIMS if d not in own] if own else own

    def dimension(self, name: str) -> str | None:
        """The SQL of dimension ``name`` (None: the question has no such dimension)."""
        own = dict(self.dims)
        if name in own:
            return own[name]
        if name in TIME_DIMS and own:
            return (f"(SELECT _t.{name} FROM _times AS _t WHERE _t._game = {self.game_ref})")
        return None

    def score_only_counted(self, by: str | None = None) -> str:
        """The condition under which the question, grouped by ``by``, counts a score-only
        round (SQL on a row of ``rounds``).

        >>> q = Question("q", "?", "", (("trump", "trump"), ALL), score_only="made IS NOT NULL",
        ...              score_only_by=(("trump", "trump IS NOT NULL"),))
        >>> q.score_only_counted("trump")
        '(made IS NOT NULL) AND (trump IS NOT NULL)'
        """
        if self.score_only is None:
            raise AnalyticsError(f"question {self.name} does not say which score-only rounds "
                                 "it counts (-- score_only: ...)")
        name = by or (self.dims[0][0] if self.dims else ALL[0])
        extra = dict(self.score_only_by).get(name)
        return f"({self.score_only})" + (f" AND ({extra})" if extra else "")

    def render(self, by: str | None = None) -> str:
        """The SQL with ``{by}`` and ``{dim}`` filled in for dimension ``by``."""
        sql = self.sql
        if "{score_only}" in sql:
            sql = sql.replace("{score_only}", f"(recorded = 'played' OR ({self.score_only_counted(by)}))")
        if "{by}" not in sql and "{dim}" not in sql:
            if by not in (None, ALL[0]):
                raise AnalyticsError(f"question {self.name} has no dimensions to group by")
            return sql
        name = by or self.dims[0][0]
        expr = self.dimension(name)
        if expr is None:
            raise AnalyticsError(f"question {self.name} cannot be grouped by {name!r}; "
                                 f"choose one of: {', '.join(self.groupings)}")
        return sql.replace("{by}", f'{expr} AS "{name}"').replace("{dim}", f'"{name}"')

    def left_out_sql(self, by: str | None = None) -> str:
        """The query that counts the score-only rounds the question, grouped by ``by``,
        leaves out: those of its game whose sheet does not record what it needs."""
        kind = f" AND kind = {_sql_text(self.kind)}" if self.kind else ""
        return (f"SELECT count(*) FROM rounds AS r WHERE recorded = 'score_only'{kind} "
                f"AND NOT coalesce({self.score_only_counted(by)}, false)")


_HEADER = re.compile(r"^--\s*(question|by|plot|note|empty|kind|game|score_only(?:\s+by\s+\w+)?)"
                     r"\s*:\s*(.*)$", re.IGNORECASE)


def parse_question(path: Path) -> Question:
    text = path.read_text()
    question, dims, plot, notes, empty = "", [], {}, [], None
    kind: str | None = None
    game_ref = "game"
    score_only: str | None = None
    score_only_by: list[tuple[str, str]] = []
    for line in text.splitlines():
        if not line.startswith("--"):
            if line.strip():
                break
            continue
        m = _HEADER.match(line.strip())
        if not m:
            continue
        key, value = m.group(1).lower(), m.group(2).strip()
        if key == "question":
            question = value
        elif key == "by":
            name, sep, expr = value.partition("=")
            name = name.strip()
            if name == ALL[0] and not sep:
                dims.append(ALL)
            else:
                dims.append((name, expr.strip() if sep else name))
        elif key == "plot":
            plot = dict(kv.split("=", 1) for kv in value.split())
        elif key == "empty":
            empty = value
        elif key == "kind":
            kind = value
        elif key == "game":
            game_ref = value
        elif key == "score_only":
            score_only = value
        elif key.startswith("score_only"):
            score_only_by.append((key.split()[-1], value))
        else:
            notes.append(value)
    if not question:
        raise AnalyticsError(f"{path}: the first comment must be `-- question: ...`")
    if ("{by}" in text or "{dim}" in text) and ALL not in dims:
        dims.append(ALL)
    if "{score_only}" in text and score_only is None:
        raise AnalyticsError(f"{path}: the query uses {{score_only}}, but no `-- score_only: "
                             "...` line says which score-only rounds it counts")
    unknown = [d for d, _ in score_only_by if d not in dict(dims)]
    if unknown:
        raise AnalyticsError(f"{path}: `-- score_only by {unknown[0]}` names no dimension of "
                             "the question")
    return Question(path.stem, question, text, tuple(dims), plot, tuple(notes), path, empty,
                    kind, score_only, tuple(score_only_by), game_ref)


def questions(folder: Path = QUESTIONS_DIR) -> dict[str, Question]:
    """Every question in ``folder``, by name (the file name without ``.sql``)."""
    if not folder.is_dir():
        raise AnalyticsError(f"{folder}: the analytics queries are missing")
    return {p.stem: parse_question(p) for p in sorted(folder.glob("*.sql"))}


@dataclass
class Result:
    """A query's answer: column names and rows, with what was asked."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    question: str | None = None
    name: str | None = None
    by: str | None = None
    where: str | None = None
    sql: str = ""
    #: what no rows means, for a question that says (see :attr:`Question.empty`)
    empty: str | None = None
    #: score-only rounds the question left out: their sheets do not record what it needs
    #: (None: not a question, or one that does not say)
    score_only_left_out: int | None = None
    #: answered over what the public may see (:attr:`Dataset.public`)
    public: bool = False

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, (plain(v) for v in r), strict=True)) for r in self.rows]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "question": self.question, "by": self.by,
                               "where": self.where, "columns": self.columns,
                               "rows": self.records()}
        if self.empty is not None and not self.rows:
            out["empty"] = self.empty
        if self.score_only_left_out is not None:
            out["score_only_left_out"] = self.score_only_left_out
        if self.public:
            out["public"] = True
        return out

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        for r in self.rows:
            w.writerow([_csv_cell(plain(v)) for v in r])
        return buf.getvalue()


def plain(v: Any) -> Any:
    """A DuckDB value as plain JSON-able Python."""
    if isinstance(v, Decimal):
        return float(v)
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    if isinstance(v, datetime | date):
        return v.isoformat()
    if isinstance(v, list | tuple):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


def _csv_cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, list | dict):
        return json.dumps(v, ensure_ascii=False)
    return v


def _sql_text(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


#: The rounds the public may not see into, in a finished game: those that ended with cards
#: unplayed (a ruling, an annulled Klaberjass deal), whose hands stay secret for good.
SECRET_ROUNDS = "recorded = 'played' AND NOT complete"


class Dataset:
    """A DuckDB connection with one view per table over an export's current snapshot.

    ``public``: only what the public may see of the games (as the service shows them to a
    public token): finished games (a game in play has a round being played), without the
    rounds that ended with cards unplayed (:data:`SECRET_ROUNDS`: their plays, tricks,
    violations and events are left out, and the games' and players' counts of violations
    and revokes count without them), and without the events' ``payload`` (it holds what no
    player saw: a Klaberjass deal's stock).
    """

    def __init__(self, out_dir: str | Path, *, where: str | None = None,
                 public: bool = False, external: bool = False) -> None:
        loaded = load_manifest(out_dir)
        if loaded is None:
            raise AnalyticsError(f"{out_dir}: no export here; run `jaslog export {out_dir}` first")
        self.snapshot, self.manifest = loaded
        self.where = where
        self.public = public
        self.con = duckdb.connect()
        self.con.execute("SET TimeZone = 'UTC'")  # times come out as stored, whatever the machine
        self._views(where)
        if public:
            self._public_views()
        if not external:
            self._lock()

    def _lock(self) -> None:
        """Shut the connection in on the snapshot's files: no other file and no network
        (``read_text('/etc/passwd')``, ``FROM 'https://...'``, ``getenv``), no extension
        installed or loaded on the way, and no ``SET`` that would open it again. The views
        read only the files of the manifest, which stay allowed
        (a ``Dataset(..., external=True)``, ``jaslog sql --external``, skips this)."""
        files = [str(self.snapshot / f["path"]) for f in self.manifest["files"]]
        con = self.con
        con.execute("SET allowed_paths = [" + ", ".join(_sql_text(f) for f in files) + "]")
        for setting in ("enable_external_access", "autoinstall_known_extensions",
                        "autoload_known_extensions"):
            con.execute(f"SET {setting} = false")
        con.execute("SET lock_configuration = true")

    def _views(self, where: str | None) -> None:
        con = self.con
        hive = "{" + ", ".join(f"'{n}': '{'INTEGER' if t == pa.int32() else 'VARCHAR'}'"
                               for n, t, _ in PARTITIONS) + "}"
        for t in TABLES:
            files = [str(self.snapshot / f["path"]) for f in self.manifest["files"]
                     if f["table"] == t]
            if files:
                listed = "[" + ", ".join(_sql_text(f) for f in files) + "]"
                con.execute(f"CREATE VIEW _all_{t} AS SELECT * FROM read_parquet({listed}, "
                            f"hive_partitioning = true, union_by_name = true, hive_types = {hive})")
            else:  # no rows yet: an empty relation with the table's columns
                schema = SCHEMAS[t]
                for n, typ, _ in PARTITIONS:
                    schema = schema.append(pa.field(n, typ))
                con.register(f"_empty_{t}", schema.empty_table())
                con.execute(f"CREATE VIEW _all_{t} AS SELECT * FROM _empty_{t}")
        # the views of the tables are named after them; the public's are made over these
        at = "_seen_" if self.public else ""
        if where:
            try:
                con.execute(f"CREATE VIEW {at}games AS SELECT * FROM _all_games WHERE ({where})")
                con.execute(f"SELECT count(*) FROM {at}games").fetchall()
            except duckdb.Error as e:
                raise AnalyticsError(f"--where {where!r}: {first_line(e)}") from None
        else:
            con.execute(f"CREATE VIEW {at}games AS SELECT * FROM _all_games")
        for t in TABLES:
            if t == "games":
                continue
            cond = f" WHERE game IN (SELECT game FROM {at}games)" if where else ""
            con.execute(f"CREATE VIEW {at}{t} AS SELECT * FROM _all_{t}{cond}")
        times = ", ".join(f"{expr} AS {name}" for name, expr in TIME_DIMS.items())
        con.execute(f"CREATE VIEW _times AS SELECT game AS _game, {times} FROM _all_games")

    def _public_views(self) -> None:
        """The views again over what the public may see (see :class:`Dataset`)."""
        con = self.con
        con.execute("CREATE VIEW _finished AS SELECT * FROM _seen_games WHERE finished")
        con.execute(f"CREATE VIEW _secret AS SELECT game, round FROM _seen_rounds WHERE "
                    f"game IN (SELECT game FROM _finished) AND {SECRET_ROUNDS}")
        for t in ("plays", "tricks", "rounds", "violations", "events"):
            payload = " REPLACE (NULL::VARCHAR AS payload)" if t == "events" else ""
            con.execute(f"CREATE VIEW {t} AS SELECT *{payload} FROM _seen_{t} AS x WHERE "
                        "x.game IN (SELECT game FROM _finished) AND NOT EXISTS (SELECT 1 "
                        "FROM _secret s WHERE s.game = x.game AND s.round = x.round)")
        # the ratings count finished games only, as a whole: nothing of a round in them
        con.execute("CREATE VIEW ratings AS SELECT * FROM _seen_ratings")
        # what counts violations counts those the public sees (none of a secret round)
        con.execute("CREATE VIEW _broken AS SELECT game, seat, count(*) AS n FROM violations "
                    "WHERE category <> 'irregularity' GROUP BY ALL")
        con.execute("CREATE VIEW _revoked AS SELECT game, seat, count(*) AS n FROM plays "
                    "WHERE NOT legal GROUP BY ALL")
        secret = "x.game IN (SELECT game FROM _secret)"
        game_broken = "(SELECT sum(n) FROM _broken b WHERE b.game = x.game)"
        con.execute(
            f"CREATE VIEW games AS SELECT * REPLACE ("
            f"CASE WHEN {secret} THEN coalesce({game_broken}, 0)::INTEGER ELSE x.violations "
            f"END AS violations, CASE WHEN {secret} THEN coalesce({game_broken}, 0) = 0 AND "
            f"x.error IS NULL ELSE x.ok END AS ok) FROM _finished AS x")
        seat_count = "coalesce((SELECT n FROM {t} c WHERE c.game = x.game AND c.seat = x.seat), 0)"
        con.execute(
            f"CREATE VIEW players AS SELECT * REPLACE ("
            f"CASE WHEN {secret} THEN {seat_count.format(t='_revoked')}::SMALLINT "
            f"ELSE x.revokes END AS revokes, "
            f"CASE WHEN {secret} THEN {seat_count.format(t='_broken')}::SMALLINT "
            f"ELSE x.violations END AS violations) "
            f"FROM _seen_players AS x WHERE x.game IN (SELECT game FROM _finished)")

    def query(self, sql: str) -> Result:
        """Run one query (see :func:`check_query`: statements that are not queries are refused)."""
        check_query(sql)
        try:
            cur = self.con.execute(sql)
            rows = cur.fetchall()
        except duckdb.PermissionException as e:
            raise AnalyticsError(f"{first_line(e)}: a query reads the export's views only "
                                 "(jaslog sql --external lets it read other files and the "
                                 "network)") from None
        except duckdb.Error as e:
            raise AnalyticsError(first_line(e)) from None
        cols = [d[0] for d in cur.description] if cur.description else []
        return Result(cols, [tuple(r) for r in rows], sql=sql, where=self.where,
                      public=self.public)

    def stale_note(self) -> str:
        """What to say when the snapshot's tables are not of this version's layout (a query
        may then miss a column): '' when they are."""
        tables = self.manifest.get("tables", {})
        if all(tables.get(t, {}).get("fingerprint") == fingerprint(t) for t in TABLES):
            return ""
        return (" (this export was written by another version of jaslog, whose tables differ: "
                "export it again with jaslog export DIR --full)")

    def ask(self, q: Question, by: str | None = None) -> Result:
        sql = q.render(by)
        try:
            res = self.query(sql)
        except AnalyticsError as e:
            raise AnalyticsError(f"question {q.name}: {e}{self.stale_note()}") from None
        res.question, res.name, res.empty = q.question, q.name, q.empty
        res.by = (by or q.dims[0][0]) if q.dims else None
        if q.score_only is not None:
            try:
                row = self.con.execute(q.left_out_sql(by)).fetchone()
            except duckdb.Error as e:
                raise AnalyticsError(f"question {q.name}: its score_only lines: "
                                     f"{first_line(e)}{self.stale_note()}") from None
            res.score_only_left_out = int(row[0]) if row else 0
        if res.by == ALL[0] and ALL[0] in res.columns:  # one group: the column says nothing
            i = res.columns.index(ALL[0])
            res.columns = res.columns[:i] + res.columns[i + 1:]
            res.rows = [r[:i] + r[i + 1:] for r in res.rows]
        return res

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Dataset:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: Statement types that only read: SELECT (with WITH, VALUES, FROM-first, DESCRIBE, SHOW and
#: SUMMARIZE, which DuckDB parses as selects), PRAGMA reads such as table_info, CALL of a table
#: function, and EXPLAIN of any of these.
READ_STATEMENTS = frozenset({duckdb.StatementType.SELECT, duckdb.StatementType.PRAGMA,
                             duckdb.StatementType.CALL, duckdb.StatementType.EXPLAIN})
READS_TEXT = "SELECT, WITH, VALUES, FROM, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN, PRAGMA or CALL"


def check_query(sql: str) -> None:
    """Refuse, in a sentence, SQL that is not exactly one query: nothing, several statements,
    or a statement that changes something (DROP, CREATE, COPY, SET, ATTACH...), also behind
    EXPLAIN ANALYZE, which runs what it explains. DuckDB's own parser decides."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as e:
        raise AnalyticsError(first_line(e)) from None
    if not statements:
        raise AnalyticsError("no query given: write one, e.g. "
                             "\"SELECT ruleset, count(*) AS games FROM games GROUP BY ALL\"")
    if len(statements) > 1:
        raise AnalyticsError(f"one query at a time, please: this SQL holds {len(statements)} "
                             "statements")
    statement = statements[0]
    if statement.type == duckdb.StatementType.EXPLAIN:
        explained = _explained(sql)
        if explained is not None:
            statement = explained
    if statement.type not in READ_STATEMENTS or (
            duckdb.ExpectedResultType.QUERY_RESULT not in statement.expected_result_type):
        raise AnalyticsError(f"{' '.join(sql.split())[:60]!r} is not a query (DuckDB reads it as "
                             f"{statement.type.name}): only queries run here ({READS_TEXT}); "
                             "they read the dataset and change nothing")


def _explained(sql: str) -> Any:
    """The statement an EXPLAIN [ANALYZE] [(options)] statement explains: the first statement
    DuckDB parses from one of its tokens on."""
    for offset, _ in duckdb.tokenize(sql)[1:]:
        try:
            found = duckdb.extract_statements(sql[offset:])
        except duckdb.Error:
            continue
        if len(found) == 1:
            return found[0]
    return None


def first_line(e: BaseException) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


def run_question(out_dir: str | Path, name: str, *, by: str | None = None,
                 where: str | None = None, public: bool = False) -> Result:
    """Answer one question over an export (the typical stats query of the benchmark);
    ``public``: over what the public may see (:class:`Dataset`)."""
    qs = questions()
    if name not in qs:
        raise AnalyticsError(f"no question {name!r}; `jaslog stats --list` shows them")
    with Dataset(out_dir, where=where, public=public) as ds:
        return ds.ask(qs[name], by)


def run_sql(out_dir: str | Path, sql: str, *, where: str | None = None,
            external: bool = False) -> Result:
    with Dataset(out_dir, where=where, external=external) as ds:
        return ds.query(sql)


__all__: Sequence[str] = [
    "QUESTIONS_DIR", "AnalyticsError", "Dataset", "Question", "Result", "check_query",
    "parse_question", "questions", "run_question", "run_sql",
]
