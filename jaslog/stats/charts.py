"""Charts and terminal tables of a statistics answer (:class:`jaslog.stats.analytics.Result`):
:func:`plot` draws one as a bar chart into a PNG, SVG or PDF file with matplotlib (the
``plot`` extra, the only module of jaslog that imports it), :func:`result_table_data` gives
its cells as text for a terminal table.
"""

from __future__ import annotations

import os
import textwrap
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

from jaslog.stats.analytics import AnalyticsError, Question, Result


class PlotUnavailable(AnalyticsError):
    """A chart was asked for, and matplotlib, which draws it, is not installed (it comes with
    the ``plot`` extra: ``pip install 'jaslog[plot]'``).

    >>> PlotUnavailable().code
    'plot_unavailable'
    """

    code = "plot_unavailable"


def _label(v: Any) -> str:
    if v is None:
        return "(none)"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


#: The chart formats ``plot`` writes, by file extension.
PLOT_FORMATS = ("png", "svg", "pdf")


def _matplotlib() -> ModuleType:
    """matplotlib, set to draw into files (the Agg backend); :class:`PlotUnavailable` when it
    is not installed."""
    try:
        import matplotlib  # deferred: the optional plot extra, loaded only to draw
    except ImportError:
        raise PlotUnavailable("drawing a chart needs matplotlib, which is not installed: "
                              "pip install 'jaslog[plot]'") from None
    matplotlib.use("Agg")
    return matplotlib


def check_plot_path(path: str | Path) -> Path:
    """Refuse, in a sentence, a chart file that cannot be written: an extension that is not
    .png, .svg or .pdf, a folder, a missing or read-only folder, or no matplotlib to draw it.
    Cheap: check before the work."""
    _matplotlib()
    p = Path(path)
    ext = p.suffix.lower().lstrip(".")
    if ext not in PLOT_FORMATS:
        given = f"not .{ext}" if ext else "it has no extension"
        raise AnalyticsError(f"{p}: a chart is written as PNG, SVG or PDF; name the file "
                             f".png, .svg or .pdf ({given})")
    if p.is_dir():
        raise AnalyticsError(f"{p} is a folder; give the chart a file name (.png, .svg or .pdf)")
    folder = p.parent
    if not folder.exists():
        raise AnalyticsError(f"cannot write the chart {p}: there is no folder {folder}")
    if not folder.is_dir():
        raise AnalyticsError(f"cannot write the chart {p}: {folder} is not a folder")
    if not os.access(p if p.exists() else folder, os.W_OK):
        raise AnalyticsError(f"cannot write the chart {p}: "
                             f"{'the file' if p.exists() else 'its folder'} is read-only")
    return p


def plot(result: Result, q: Question | None, path: str | Path) -> Path:
    """Draw ``result`` as a bar chart into a PNG, SVG or PDF file (by its extension): x is the
    question's ``plot: x=`` column (else the non-numeric columns), bars are its ``y=`` column
    (else the last numeric one)."""
    out = check_plot_path(path)
    matplotlib = _matplotlib()
    import matplotlib.pyplot as plt  # deferred: the optional plot extra (see _matplotlib)

    if not result.rows:
        raise AnalyticsError("nothing to plot: the query returned no rows")
    spec = q.plot if q is not None else {}
    cols = result.columns
    numeric = [i for i, c in enumerate(cols)
               if all((isinstance(r[i], int | float | Decimal) and not isinstance(r[i], bool))
                      or r[i] is None for r in result.rows)
               and any(r[i] is not None for r in result.rows)]
    y_name = spec.get("y")
    if y_name is None or y_name not in cols:
        if not numeric:
            raise AnalyticsError("nothing to plot: the result has no numeric column")
        y_name = cols[numeric[-1]]
    yi = cols.index(y_name)
    x_spec = spec.get("x")
    if x_spec == "<by>" and result.by is not None and result.by in cols:
        x_spec = result.by
    label_cols = [i for i in range(len(cols)) if i not in numeric and i != yi]
    if x_spec in cols:
        xi = cols.index(x_spec)
        group_cols = [i for i in label_cols if i != xi]
        label_cols = [xi]
    else:
        group_cols = []
        label_cols = label_cols or [0]
    labels = [" / ".join(_label(r[i]) for i in group_cols + label_cols) for r in result.rows]
    note = ""
    if "rounds" in cols and cols.index("rounds") != yi:  # how much each bar stands on
        ri = cols.index("rounds")
        if len({r[ri] for r in result.rows}) == 1:
            note = f" ({_label(result.rows[0][ri])} rounds)"
        else:
            labels = [f"{lab}\n({_label(r[ri])} rounds)" for lab, r in zip(labels, result.rows,
                                                                           strict=True)]
    values = [float(r[yi]) if r[yi] is not None else 0.0 for r in result.rows]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.6 * len(labels) + 2), 4.5), dpi=110)
    bars = ax.bar(range(len(values)), values, color="#2e7d5b")
    ax.set_xticks(range(len(labels)), labels, rotation=30 if len(labels) > 6 else 0,
                  ha="right" if len(labels) > 6 else "center")
    ax.set_ylabel(y_name.replace("_", " "))
    ax.set_xlabel(" / ".join(cols[i] for i in group_cols + label_cols).replace("_", " ") + note)
    title = result.question or result.name or "jaslog sql"
    ax.set_title(textwrap.fill(title, 70), fontsize=10)
    rate = y_name.endswith("_rate") or y_name.startswith("share")
    for b, v in zip(bars, values, strict=True):
        ax.annotate(f"{v:.1%}" if rate else f"{v:.3g}", (b.get_x() + b.get_width() / 2, v),
                    ha="center", va="bottom", fontsize=8)
    if rate:
        ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    try:
        fig.savefig(out, format=out.suffix.lower().lstrip("."))
    except OSError as e:
        raise AnalyticsError(f"cannot write the chart {out}: {e.strerror or e}") from None
    finally:
        plt.close(fig)
    return out


def result_table_data(result: Result) -> tuple[list[str], list[list[str]]]:
    """Columns and rows as text for a terminal table (rates as percentages)."""
    out = []
    for r in result.rows:
        cells = []
        for c, v in zip(result.columns, r, strict=True):
            if v is None:
                cells.append("")
            elif isinstance(v, float | Decimal) and (c.endswith("_rate") or c.startswith("share")):
                cells.append(f"{float(v):.1%}")
            elif isinstance(v, float | Decimal):
                cells.append(f"{float(v):,.2f}")
            elif isinstance(v, datetime):
                cells.append(v.strftime("%Y-%m-%d %H:%M"))
            elif isinstance(v, list | tuple):
                cells.append(", ".join(str(x) for x in v))
            else:
                cells.append(str(v))
        out.append(cells)
    return list(result.columns), out
