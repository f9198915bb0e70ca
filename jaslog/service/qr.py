"""QR codes of the links a service hands out (a table's scorer link on its table card), drawn
as inline SVG by `segno <https://github.com/heuer/segno>`_ (pure Python, ISO/IEC 18004).

The picture is made in the service from the link it answers with; nothing about it is sent
anywhere else, and the link's token sits in its ``#fragment``, which a browser never sends
(a server's access log does not see it).

>>> svg = qr_svg("https://club.example/record/cup-r1-t1#token=jl_x", title="table 1")
>>> svg.startswith("<svg") and "viewBox" in svg and "<title>table 1</title>" in svg
True
"""

from __future__ import annotations

import segno


def qr_svg(text: str, *, title: str = "") -> str:
    """``text`` as a QR code (error correction M, the smallest version that holds it): an
    ``<svg class="qr">`` without a fixed size (a ``viewBox``), so the page sizes it."""
    code = segno.make(text, error="m", micro=False)
    return str(code.svg_inline(scale=4, omitsize=True, svgclass="qr", title=title or None))
