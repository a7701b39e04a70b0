#!/usr/bin/env python3
"""Terminal capture (tmux capture-pane -e -p) -> SVG, for the README screenshot.

Usage: python3 assets/ansi2svg.py < capture.ansi > assets/screenshot.svg
Only what tmux emits is handled: SGR colours (16, 256, RGB), bold, reverse.
"""
import html
import re
import sys

BASE = ["#1e1e1e", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
        "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"]
FG, BG = "#d4d4d4", "#1e1e1e"


def c256(n):
    if n < 16:
        return BASE[n]
    if n < 232:
        n -= 16
        v = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (v[n // 36], v[n // 6 % 6], v[n % 6])
    g = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (g, g, g)


def sgr(params, st):
    p = [int(x) if x else 0 for x in params.split(";")] if params else [0]
    i = 0
    while i < len(p):
        a = p[i]
        if a == 0:
            st.update(fg=None, bg=None, bold=False, rev=False)
        elif a == 1:
            st["bold"] = True
        elif a == 22:
            st["bold"] = False
        elif a == 7:
            st["rev"] = True
        elif a == 27:
            st["rev"] = False
        elif 30 <= a <= 37 or 90 <= a <= 97:
            st["fg"] = BASE[a - 30 if a < 90 else a - 82]
        elif 40 <= a <= 47 or 100 <= a <= 107:
            st["bg"] = BASE[a - 40 if a < 100 else a - 92]
        elif a in (38, 48) and i + 1 < len(p):
            col = None
            if p[i + 1] == 5 and i + 2 < len(p):
                col, i = c256(p[i + 2]), i + 2
            elif p[i + 1] == 2 and i + 4 < len(p):
                col, i = "#%02x%02x%02x" % tuple(p[i + 2:i + 5]), i + 4
            st["fg" if a == 38 else "bg"] = col
        elif a == 39:
            st["fg"] = None
        elif a == 49:
            st["bg"] = None
        i += 1


def main():
    cw, ch = 8.4, 17
    rows = sys.stdin.read().rstrip("\n").split("\n")
    width = max(len(re.sub(r"\x1b\[[0-9;]*m", "", r)) for r in rows)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * cw:.0f}" height="{len(rows) * ch + 8}" '
           f'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="14">',
           f'<rect width="100%" height="100%" fill="{BG}"/>']
    st = dict(fg=None, bg=None, bold=False, rev=False)
    for y, row in enumerate(rows):
        x = 0
        for tok in re.split(r"(\x1b\[[0-9;]*m)", row):
            m = re.fullmatch(r"\x1b\[([0-9;]*)m", tok)
            if m:
                sgr(m.group(1), st)
                continue
            if not tok:
                continue
            fg, bg = st["fg"] or FG, st["bg"]
            if st["rev"]:
                fg, bg = bg or BG, fg
            if bg:
                out.append(f'<rect x="{x * cw:.1f}" y="{y * ch + 4}" width="{len(tok) * cw:.1f}" height="{ch}" fill="{bg}"/>')
            if tok.strip():
                weight = ' font-weight="bold"' if st["bold"] else ""
                out.append(f'<text x="{x * cw:.1f}" y="{y * ch + 17}" fill="{fg}"{weight} '
                           f'textLength="{len(tok) * cw:.1f}" xml:space="preserve">{html.escape(tok)}</text>')
            x += len(tok)
    out.append("</svg>")
    print("\n".join(out))


main()
