"""The report as a document: a list of blocks (heading, paragraph, list, table, image)
rendered to Markdown and to HTML with its styles inline, so the two always say the same thing."""

from __future__ import annotations

import html
import re


class Doc:
    """A document under construction; :meth:`markdown` and :meth:`html` render it."""

    def __init__(self):
        self.blocks: list[tuple] = []

    def h(self, level: int, text: str, anchor: str | None = None):
        self.blocks.append(("h", level, text, anchor))

    def p(self, text: str):
        self.blocks.append(("p", text))

    def ul(self, items: list[str]):
        if items:
            self.blocks.append(("ul", items))

    def table(self, headers: list[str], rows: list[list[str]], css: list[list[str]] | None = None):
        self.blocks.append(("table", headers, rows, css))

    def img(self, path: str, caption: str):
        self.blocks.append(("img", path, caption))

    # -- rendering
    def markdown(self) -> str:
        out = []
        for b in self.blocks:
            if b[0] == "h":
                # An explicit anchor, so that links such as (#findings) work in Markdown too
                # (a renderer's own slug of the heading's text would differ).
                out.append((f'<a id="{b[3]}"></a>\n\n' if b[3] else "") + "#" * b[1] + " " + b[2])
            elif b[0] == "p":
                out.append(b[1])
            elif b[0] == "ul":
                out.append("\n".join(f"- {x}" for x in b[1]))
            elif b[0] == "table":
                _, headers, rows, _ = b
                out.append("\n".join(
                    ["| " + " | ".join(_md(h) for h in headers) + " |",
                     "|" + "|".join("---" for _ in headers) + "|"]
                    + ["| " + " | ".join(_md(c) for c in r) + " |" for r in rows]))
            elif b[0] == "img":
                out.append(f"![{b[2]}]({b[1]})\n\n*{b[2]}*")
        return "\n\n".join(out) + "\n"

    def html(self, title: str) -> str:
        body = []
        for b in self.blocks:
            if b[0] == "h":
                aid = f' id="{html.escape(b[3])}"' if b[3] else ""
                body.append(f"<h{b[1]}{aid}>{html.escape(b[2])}</h{b[1]}>")
            elif b[0] == "p":
                body.append(f"<p>{_inline(b[1])}</p>")
            elif b[0] == "ul":
                body.append("<ul>" + "".join(f"<li>{_inline(x)}</li>" for x in b[1]) + "</ul>")
            elif b[0] == "table":
                _, headers, rows, css = b
                t = ["<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in headers) + "</tr></thead><tbody>"]
                for i, r in enumerate(rows):
                    cells = []
                    for j, c in enumerate(r):
                        cls = css[i][j] if css and css[i][j] else ""
                        cells.append(f'<td class="{cls}">{_inline(c)}</td>' if cls else f"<td>{_inline(c)}</td>")
                    t.append("<tr>" + "".join(cells) + "</tr>")
                t.append("</tbody></table>")
                body.append("".join(t))
            elif b[0] == "img":
                body.append(f'<figure><img src="{html.escape(b[1])}" alt="{html.escape(b[2])}">'
                            f"<figcaption>{html.escape(b[2])}</figcaption></figure>")
        return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
                f"<style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1300px;
padding:0 1em;color:#222;line-height:1.4}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f0f0f0}
td.pass{background:#e3f4e1}td.fail{background:#fbdcdc}td.known{background:#fff1c9}
td.pat{background:#eceff4}td.notrun{background:#f4f4f4;color:#777}td.nodata{background:#f3e6f7}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd}
figcaption{font-style:italic;font-size:13px;color:#555}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.6em}
"""


_LINK = re.compile(r"\[([^\]\n]+)\]\((#[A-Za-z0-9_.:-]+)\)")
_ANCHOR = re.compile(r'&lt;a id=&quot;([A-Za-z0-9_.:-]+)&quot;&gt;&lt;/a&gt;')
_CODE = re.compile(r"`([^`\n]+)`")


def _inline(text: str) -> str:
    """A paragraph's, item's or cell's text as HTML: escaped, with the Markdown the report
    writes made live: links within the page, anchors and code."""
    s = html.escape(str(text))
    s = _LINK.sub(r'<a href="\2">\1</a>', s)
    s = _ANCHOR.sub(r'<a id="\1"></a>', s)
    return _CODE.sub(r"<code>\1</code>", s)


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")
