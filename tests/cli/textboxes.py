"""Reading the figure engine's text box log, for tests that check a figure's text as a
reviewer would: none over another, none off the canvas, none under 6 pt, every axis with
tick labels.

With POSENC_TEXT_BOXES=FILE the engine appends "canvas W H UNIT" per page, then
"text X0 Y0 X1 Y1 SIZE<TAB>STRING" for every text it draws and "axes X0 Y0 X1 Y1" for every
panel's axes, in device units (SIZE in points). A text's box runs from the top of its
capitals to the bottom of its descenders.
"""
import os
import re
import subprocess

MIN_PT = 6.0 - 1e-6
HAIR_PT = 0.3
# The y labels of compare's panels: the row labels stand left of all of them.
AXIS_WORDS = {"position", "correlation", "corr.", "relative", "dot product"}


def pages(path):
    """[(w, h, unit, [(x0, y0, x1, y1, pt, text)])] from a box log."""
    out = []
    for line in open(path, encoding="utf-8"):
        head, _, text = line.rstrip("\n").partition("\t")
        f = head.split()
        if f[0] == "canvas":
            out.append((float(f[1]), float(f[2]), float(f[3]), []))
        elif f[0] == "text" and out:
            out[-1][3].append(tuple(float(v) for v in f[1:6]) + (text,))
    return out


def pages_with_axes(path):
    """pages(), each with the (x0, y0, x1, y1) of its panels' axes too:
    [(w, h, unit, boxes, axes)]."""
    out = []
    for line in open(path, encoding="utf-8"):
        head, _, text = line.rstrip("\n").partition("\t")
        f = head.split()
        if f[0] == "canvas":
            out.append((float(f[1]), float(f[2]), float(f[3]), [], []))
        elif f[0] == "text" and out:
            out[-1][3].append(tuple(float(v) for v in f[1:6]) + (text,))
        elif f[0] == "axes" and out:
            out[-1][4].append(tuple(float(v) for v in f[1:5]))
    return out


def axes_boxes(path):
    """[(x0, y0, x1, y1)] of every panel's axes in a box log ("axes X0 Y0 X1 Y1"), and the
    canvas unit."""
    out, unit = [], 1.0
    for line in open(path, encoding="utf-8"):
        f = line.split()
        if f[0] == "canvas":
            unit = float(f[3])
        elif f[0] == "axes":
            out.append(tuple(float(v) for v in f[1:5]))
    return out, unit


def problems(path):
    """Texts under 6 pt, off the canvas, or over another by more than a hair (0.3 pt each
    way), as sentences."""
    found = []
    for w, h, unit, boxes in pages(path):
        hair = HAIR_PT * unit
        for b in boxes:
            x0, y0, x1, y1, pt, text = b
            if pt < MIN_PT:
                found.append(f"{text!r} is {pt:.2f} pt")
            if x0 < -hair or y0 < -hair or x1 > w + hair or y1 > h + hair:
                found.append(f"{text!r} leaves the {w:g} x {h:g} canvas: "
                             f"{x0:.1f},{y0:.1f}..{x1:.1f},{y1:.1f}")
        for i in range(len(boxes)):
            a = boxes[i]
            for b in boxes[i + 1:]:
                dx = min(a[2], b[2]) - max(a[0], b[0])
                dy = min(a[3], b[3]) - max(a[1], b[1])
                if dx > hair and dy > hair:
                    found.append(f"{a[5]!r} overlaps {b[5]!r} by {dx / unit:.1f} x "
                                 f"{dy / unit:.1f} pt")
    return found


def cut_texts(path):
    return [b[5] for p in pages(path) for b in p[3] if "\u2026" in b[5]]


def row_label_boxes(boxes):
    """The rotated texts left of every y label: the row labels' lines, grouped by the rows
    they span (lines of one label overlap along y), each group's lines left to right."""
    rot = [b for b in boxes if b[3] - b[1] > b[2] - b[0]]
    edge = min((b[0] for b in rot if b[5] in AXIS_WORDS), default=0)
    lines = sorted((b for b in rot if b[2] <= edge + 0.5), key=lambda b: b[1])
    groups = []
    for b in lines:
        if groups and b[1] < groups[-1][1]:
            groups[-1] = (groups[-1][0], max(groups[-1][1], b[3]), groups[-1][2] + [b])
        else:
            groups.append((b[1], b[3], [b]))
    return [sorted(g[2], key=lambda b: b[0]) for g in groups]


def row_labels_left(boxes):
    """Each row label's lines joined left to right with the spaces left out (a line may end
    at a space, a hyphen or an '=')."""
    return ["".join(b[5] for b in g).replace(" ", "") for g in row_label_boxes(boxes)]


# "250", "-0.5", "10³", "2×10⁵" (U+2212 read as '-'): a mantissa, a power of ten, or both.
SUPER_DIGITS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
NUMBER = re.compile(r"^(-?[0-9]+(?:\.[0-9]+)?)?(?:(?:^|\u00d7)10(\u207b?[" + SUPER_DIGITS +
                    r"]+))?$")
SUPERSCRIPT = str.maketrans("\u207b" + SUPER_DIGITS, "-0123456789")


def number(text):
    """The value of a tick label ("250", "\u22120.5", "10\u00b3", "2\u00d710\u2075"), else None."""
    m = NUMBER.match(text.replace("\u2212", "-"))
    if not m or not (m.group(1) or m.group(2)):
        return None
    value = float(m.group(1)) if m.group(1) else 1.0
    return value * 10.0 ** int(m.group(2).translate(SUPERSCRIPT)) if m.group(2) else value


def tick_labels(boxes, axes, unit):
    """The number labels under an axes (x) and left of it (y): [(centre, value)] each,
    x by their centre left to right, y top to bottom."""
    x0, y0, x1, y1 = axes
    xs, ys = [], []
    for b in boxes:
        v = number(b[5])
        if v is None:
            continue
        cx, cy, size = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2, b[4] * unit
        if y1 < b[1] < y1 + 1.2 * size and x0 - 0.6 * size <= cx <= x1 + 0.6 * size:
            xs.append((cx, v))
        if x0 - 1.5 * size < b[2] < x0 and y0 - 0.6 * size <= cy <= y1 + 0.6 * size:
            ys.append((cy, v))
    return sorted(xs), sorted(ys)


def draw(exe, args, out, log):
    """Run posenc with the box log at @log (emptied first): (exit code, stderr)."""
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, POSENC_TEXT_BOXES=log)
    p = subprocess.run([exe, *args, "-q", "-o", out], capture_output=True, env=env,
                       timeout=300)
    return p.returncode, p.stderr.decode("utf-8", "replace")
