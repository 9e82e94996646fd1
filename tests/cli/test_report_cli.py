#!/usr/bin/env python3
"""posenc report: the PDF's pages, the HTML's structure and self-containment, the
HTML as rendered by headless Chromium, the summary against compare's CSV and
closed forms, progress on a terminal only, and failures that leave no file."""
import csv
import html.parser
import math
import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from pngrgb import png_rows  # noqa: E402
from tap import done, error_case, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
wd = workdir()
# Under the sanitizers, LeakSanitizer's summary of suppressed leaks would add to stderr.
os.environ["LSAN_OPTIONS"] = os.environ.get("LSAN_OPTIONS", "") + ":print_suppressions=0"


def page_objects(pdf):
    """Page objects: '/Type /Page' not followed by 's' (the page tree is /Pages)."""
    return len(re.findall(rb"/Type\s*/Page(?!s)", pdf))


def pdfinfo_pages(path):
    r = subprocess.run(["pdfinfo", path], capture_output=True, text=True)
    m = re.search(r"^Pages:\s+(\d+)", r.stdout, re.M)
    return int(m.group(1)) if r.returncode == 0 and m else None


def pdf_text(path):
    r = subprocess.run(["pdftotext", "-layout", path, "-"], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else ""


# ---- the PDF with no arguments: report.pdf, 9 pages ----
r = run(EXE, "report", cwd=wd)
pdf_path = os.path.join(wd, "report.pdf")
ok(r.rc == 0 and os.path.exists(pdf_path), "report with no arguments writes report.pdf", r.err)
ok(r.err.strip() == "posenc: wrote report.pdf (report of 2 schemes, 9 pages)",
   "says what it wrote, and no progress when stderr is not a terminal", repr(r.err))
pdf = open(pdf_path, "rb").read() if os.path.exists(pdf_path) else b""
ok(pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF"), "the PDF starts with %PDF- and ends with %%EOF")
# title, encodings, distance, correlation, scatter, profiles, decay, wavelengths, table
ok(page_objects(pdf) == 9, "the default PDF has 9 page objects", page_objects(pdf))
ok(pdfinfo_pages(pdf_path) == 9, "pdfinfo counts 9 pages", pdfinfo_pages(pdf_path))
ok(len(re.findall(rb"/MediaBox \[ 0 0 842 595 \]", pdf)) == 9, "every page is A4 landscape")
text = pdf_text(pdf_path)
# Vector text: the words come back out of the PDF.
for needle in ("Positional-encoding report", "sinusoidal base=10000", "neighbour_distance",
               "positions shown 256", "Frequency table", "all 32640 pairs",
               "Decay: mean dot product of positions k apart"):
    ok(needle in text, f"the PDF's text has '{needle}'", text[:300])
ok("Command: posenc report" in text, "the title page gives the command line")
ok(re.search(r"Contents\s+Encodings\s+page 2", text) and re.search(r"Frequency table\s+page 9", text),
   "the title page lists the pages", text[:1500])

# ---- a RoPE scaling adds its page; the RoFormer bound is drawn ----
r = run(EXE, "report", "-s", "rope:scaling=yarn,factor=4,original=2048", "-s", "rope:base=500000",
        "-s", "sinusoidal", "-n", "128", "-d", "64", "-o", "rope.pdf", cwd=wd)
rope_pdf = os.path.join(wd, "rope.pdf")
ok(r.rc == 0 and os.path.exists(rope_pdf), "report of a RoPE scaling", r.err)
ok(pdfinfo_pages(rope_pdf) == 10, "9 pages and one for the yarn scaling", pdfinfo_pages(rope_pdf))
rt = pdf_text(rope_pdf)
ok("RoFormer bound (RoPE)" in rt and "scaled vs unscaled frequencies" in rt
   and "attention factor" in rt, "bound panel, scaling page and its attention factor", rt[-600:])
# Two scalings, one page each.
r = run(EXE, "report", "-s", "rope:scaling=linear,factor=2", "-s", "rope:scaling=llama3",
        "-n", "64", "-d", "32", "-o", "two.pdf", cwd=wd)
ok(r.rc == 0 and pdfinfo_pages(os.path.join(wd, "two.pdf")) == 11, "two scalings: 11 pages", r.err)
# An unscaled RoPE's facts: no scaling, every one of its d/2 = 8 pairs kept (the freqs
# table's illustrative scalings are not the scheme's)
r = run(EXE, "report", "-s", "rope:base=10000", "-n", "64", "-d", "16", "-o", "plain.pdf", cwd=wd)
pt = pdf_text(os.path.join(wd, "plain.pdf")) if r.rc == 0 else ""
ok(r.rc == 0 and re.search(r"\nscaling +none\n", pt) and re.search(r"\nfactor +\u2013\n", pt)
   and re.search(r"\npairs kept +8\n", pt)
   and re.search(r"\npairs interpolated \(theta / factor\) +\u2013\n", pt),
   "unscaled rope: the facts say scaling none, 8 pairs kept, none interpolated", pt[:1800])
# M-RoPE: RoPE's frequencies over the whole width, the pairs' axes counted in the layout
# (Qwen3-VL interleaved 24/20/20: t = pairs 0, 3, ..., 57 and 60..63; h, w every third),
# its wavelengths 2 pi and 2 pi 1e4^(30/32) in the summary, its 9 pages with the frequencies
r = run(EXE, "report", "-s", "mrope:t=6,h=5,w=5,interleaved=1", "-n", "64", "-o", "mrope.pdf",
        cwd=wd)
mt = pdf_text(os.path.join(wd, "mrope.pdf")) if r.rc == 0 else ""
ok(r.rc == 0 and re.search(r"\nrotary width d_rot +32\n", mt)
   and re.search(r"\npair layout +half; t/h/w 6/5/5 interleaved\n", mt)
   and re.search(r"\npairs kept +16\n", mt)
   and re.search(r"wavelength_min +6\.28319\n", mt)
   and re.search(r"wavelength_max +35332\.9\n", mt)
   and pdfinfo_pages(os.path.join(wd, "mrope.pdf")) == 9,
   "mrope: its facts, wavelengths and frequency pages", mt[:2500])
# Eight schemes (the most): every page fits, the summary numbers its columns.
r = run(EXE, "report", "--base", "10,100,1000,10000,1e5,1e6,1e7,1e8", "-n", "64", "-d", "32",
        "-o", "eight.pdf", cwd=wd)
et = pdf_text(os.path.join(wd, "eight.pdf")) if r.rc == 0 else ""
ok(r.rc == 0 and pdfinfo_pages(os.path.join(wd, "eight.pdf")) == 9 and "scheme 8" not in et
   and "sinusoidal base=100000000 (d = 32)" in et,
   "eight schemes: 9 pages, each named by its label (not 'scheme 8')", r.err)
# A scheme without frequencies: no wavelength pages.
r = run(EXE, "report", "-s", "learned", "-s", "binary", "-n", "64", "-d", "16", "-o", "nofreq.pdf",
        cwd=wd)
ok(r.rc == 0 and pdfinfo_pages(os.path.join(wd, "nofreq.pdf")) == 7,
   "learned and binary: 7 pages (no frequencies)", r.err)


# ---- HTML ----
class Parser(html.parser.HTMLParser):
    """Collects tags, attributes, table cells; checks that elements nest."""
    VOID = {"meta", "br", "img", "hr", "link", "input", "path", "use", "rect", "image",
            "stop", "polygon", "line", "circle", "ellipse", "polyline"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.tags, self.attrs = [], [], [], []
        self.tables, self._row, self._cell, self.text = [], None, None, []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = ""
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._row is not None:
            self._row.append(self._cell)
            self._cell = None
        elif tag == "tr" and self.tables:
            self.tables[-1].append(self._row)
            self._row = None
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
        else:
            self.stack.pop()

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        self.text.append(data)


r = run(EXE, "report", "-o", "r.html", cwd=wd)
html_path = os.path.join(wd, "r.html")
ok(r.rc == 0 and os.path.exists(html_path), "report -o r.html", r.err)
doc = open(html_path, encoding="utf-8").read() if os.path.exists(html_path) else ""
p = Parser()
p.feed(doc)
p.close()
ok(doc.startswith("<!DOCTYPE html>") and not p.errors and p.stack == [],
   "the HTML parses and its elements nest", p.errors[:5] + p.stack[:5])
ok(p.tags.count("svg") == 7, "7 inline SVG figures", p.tags.count("svg"))
ok(p.tags.count("section") == 9 and p.tags.count("table") == 2, "9 sections, 2 tables")
# Self-contained: no scripts, no stylesheet links, nothing fetched from anywhere.
external = []
for tag, a in p.attrs:
    if tag in ("script", "link", "iframe", "object", "embed"):
        external.append(tag)
    for key in ("src", "href", "xlink:href", "action"):
        v = a.get(key)
        if v is not None and not (v.startswith("#") or v.startswith("data:")):
            external.append(f"{tag} {key}={v[:40]}")
external += re.findall(r"url\((?!#)[^)]*\)|@import", doc)
ok(not external, "no external reference (scripts, links, src, url())", external[:5])
ok(not re.search(r"src\s*=\s*[\"']?https?:", doc) and "<link" not in doc and "<script" not in doc,
   "no src=http, no <link>, no <script>")
# The figures' ids are unique over the page and every #reference has its target.
ids = [a["id"] for _, a in p.attrs if "id" in a]
refs = {v[1:] for _, a in p.attrs for k, v in a.items() if k in ("href", "xlink:href") and v.startswith("#")}
refs |= set(re.findall(r"url\(#([^)]+)\)", doc))
ok(len(ids) == len(set(ids)) and len(ids) > 100, "element ids are unique across the figures",
   [i for i in set(ids) if ids.count(i) > 1][:5])
ok(refs and refs <= set(ids), "every #reference points at an element of the page",
   sorted(refs - set(ids))[:5])

# ---- the summary table: compare's CSV numbers, and closed forms ----
r = run(EXE, "compare", "-o", "s.csv", cwd=wd)
rows = list(csv.reader(open(os.path.join(wd, "s.csv")))) if r.rc == 0 else []
summary = p.tables[0] if p.tables else []
ok(rows and summary and summary[0][2:] == [row[0] for row in rows[1:]],
   "the summary has one column per scheme, in order", summary[:1])
mismatch = []
for q, name in enumerate(rows[0][1:] if rows else []):
    line = next((l for l in summary[1:] if l[1] == name), None)
    for s, row in enumerate(rows[1:]):
        want = "%.6g" % float(row[q + 1])
        if line is None or line[2 + s] != want:
            mismatch.append((name, s, line and line[2 + s], want))
ok(rows and not mismatch, "every summary number is compare's CSV value to 6 digits", mismatch[:5])
cell = {l[1]: l[2:] for l in summary[1:]}
# sin/cos pairs of frequency w: <v_m, v_m+k> = sum cos(k w); d = 128 gives 64 pairs.
w10000 = [10000 ** (-2 * i / 128) for i in range(64)]
w10 = [10 ** (-2 * i / 128) for i in range(64)]
ok(cell.get("decay_0") == ["64", "64"], "decay at offset 0 is d/2 = 64", cell.get("decay_0"))
ok(cell.get("decay_10") == ["%.6g" % sum(math.cos(10 * w) for w in w10000),
                            "%.6g" % sum(math.cos(10 * w) for w in w10)],
   "decay at offset 10 is sum cos(10 w_i)", cell.get("decay_10"))
# Neighbours: |v_m - v_m+1|^2 = sum over pairs of 2 - 2 cos(w).
ok(cell.get("neighbour_distance") == ["%.6g" % math.sqrt(sum(2 - 2 * math.cos(w) for w in w10000)),
                                      "%.6g" % math.sqrt(sum(2 - 2 * math.cos(w) for w in w10))],
   "neighbour distance is sqrt(sum 2 - 2 cos w_i)", cell.get("neighbour_distance"))
ok(cell.get("wavelength_max") == ["%.6g" % (2 * math.pi / w10000[-1]), "%.6g" % (2 * math.pi / w10[-1])],
   "longest wavelength is 2 pi base^(126/128)", cell.get("wavelength_max"))
# The frequency table: every 2nd pair of 64 in the HTML, theta = base^(-2i/d).
freq = p.tables[1] if len(p.tables) > 1 else []
pairs = [int(l[0]) for l in freq[1:]]
ok(pairs == list(range(0, 64, 2)) + [63], "frequency table: every 2nd pair and the last", pairs)
bad = [l for l in freq[1:] if l[1] != "%.6g" % w10000[int(l[0])] or l[4] != "%.6g" % (2 * math.pi / w10[int(l[0])])]
ok(freq and not bad, "frequency table theta and wavelength match base^(-2i/d)", bad[:3])
crit = 2 * math.ceil(64 * math.log(256 / (2 * math.pi)) / math.log(10000))
within = sum(2 * math.pi / w <= 256 for w in w10000)
ok(crit == 52 and "critical dimension" not in "".join(p.text).split("Critical dimension")[0]
   and f"{within} of 64 pairs have wavelengths within the positions 256" in "".join(p.text)
   and within == crit // 2,
   "no critical dimension invented for a table without a training length (n = 256 is not one);"
   " the 26 pairs within the positions shown",
   (crit, within))

# Widths 64 and 96 (32 and 48 pairs): every 2nd pair of 48 in the HTML and each scheme's
# last, 31 and 47, whose wavelengths 2 pi 10000^((d - 2) / d) are the longest each turns at.
r = run(EXE, "report", "-q", "-s", "rope:base=10000,head=64", "-s", "rope:base=10000,head=96",
        "-n", "64", "-o", "widths.html", cwd=wd)
pw = Parser()
if r.rc == 0:
    pw.feed(open(os.path.join(wd, "widths.html"), encoding="utf-8").read())
fw = next((tb for tb in pw.tables if tb and tb[0] and tb[0][0] == "pair"), [])
rows_w = {l[0]: l for l in fw[1:]}
ok(sorted(int(q) for q in rows_w) == sorted(list(range(0, 48, 2)) + [31, 47]),
   "frequency table of two widths: every 2nd pair of 48 and each scheme's last (31, 47)",
   sorted(rows_w))
ok(rows_w.get("31", [""] * 5)[2] == "%.6g" % (2 * math.pi * 10000 ** (62 / 64)) and
   rows_w.get("47", [""] * 5)[4] == "%.6g" % (2 * math.pi * 10000 ** (94 / 96)) and
   rows_w.get("47", [""] * 5)[2] == "",
   "the d = 64 scheme's last wavelength at pair 31, the d = 96 one's at 47",
   (rows_w.get("31"), rows_w.get("47")))
ok("each scheme's last" in "".join(pw.text), "the table says each scheme's last pair is there")

# A linear scaling has no original context (Gemma 3's global layers state none); YaRN's is
# its own, and its attention factor 0.1 ln 4 + 1.
r = run(EXE, "report", "-q", "-s", "rope:scaling=linear,factor=8", "-s",
        "rope:scaling=yarn,factor=4,original=2048", "-n", "32", "-d", "16", "-o", "lin.html",
        cwd=wd)
pl = Parser()
if r.rc == 0:
    pl.feed(open(os.path.join(wd, "lin.html"), encoding="utf-8").read())
lt = " ".join(" ".join(pl.text).split())
ya = 0.1 * math.log(4) + 1
ok("linear scaling, factor 8: attention factor 1 (logits x 1)." in lt and
   "yarn scaling, factor 4, original context 2048: attention factor %.8g (logits x %.8g)."
   % (ya, ya * ya) in lt and "linear scaling, factor 8, original" not in lt,
   "report: no original context for a linear scaling, YaRN's own", r.err)

# The facts at the extended context: InternLM2's dynamic NTK (factor 2 over 32768) at 65536
# turns at base' = 1e6 (2 x 2 - 1)^(128/126); theta_i / theta_i0 = (base'/1e6)^(-2i/128) is 1
# for pair 0 alone, and 24 pairs have 2 pi base'^(2i/128) > 65536.
r = run(EXE, "report", "-q", "-s",
        "hf:" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "hf",
                             "internlm2-chat-1_8b-sft.json"),
        "-n", "32", "-o", "dyn.html", cwd=wd)
pd = Parser()
if r.rc == 0:
    pd.feed(open(os.path.join(wd, "dyn.html"), encoding="utf-8").read())
facts = {l[0]: l[1:] for tb in pd.tables for l in tb if l}
grown = 1e6 * 3 ** (128 / 126)
dslow = sum(2 * math.pi * grown ** (2 * i / 128) > 65536 for i in range(64))
ok(facts.get("pairs kept") == ["1"] and facts.get("pairs ramped (or rescaled)") == ["63"] and
   facts.get("scaled pairs never turning in extended ctx") == [str(dslow)] and dslow == 24,
   "report facts of a dynamic NTK model: at its extended context 65536 (1 kept, 63 ramped, "
   "24 never turning)",
   [(k, facts.get(k)) for k in ("pairs kept", "pairs ramped (or rescaled)",
                                "scaled pairs never turning in extended ctx")])

# DeepSeek-V3: YaRN's cos/sin factor is mscale(40, 1) / mscale(40, 1) = 1, and its attention
# multiplies the softmax scale by mscale(40, 1)^2 = (0.1 ln 40 + 1)^2: the facts give both.
r = run(EXE, "report", "-q", "-s", "model:deepseek-v3", "-s", "model:llama-3.1-8b", "-n", "32",
        "-o", "ds.html", cwd=wd)
pds = Parser()
if r.rc == 0:
    pds.feed(open(os.path.join(wd, "ds.html"), encoding="utf-8").read())
dfacts = {l[0]: l[1:] for tb in pds.tables for l in tb if l}
ok(dfacts.get("softmax scale x (config, mscale^2)") ==
   ["%.10g" % (0.1 * math.log(40) + 1) ** 2, "\u2013"] and
   dfacts.get("attention factor (cos, sin x)") == ["1", "1"],
   "report facts: DeepSeek-V3's softmax scale factor mscale^2 = 1.8738542, none for Llama 3.1",
   dfacts.get("softmax scale x (config, mscale^2)"))

# ---- text is escaped ----
r = run(EXE, "report", "-s", "sinusoidal:label=<b>&\"x'", "-n", "16", "-d", "8", "-o", "esc.html", cwd=wd)
esc = open(os.path.join(wd, "esc.html"), encoding="utf-8").read() if r.rc == 0 else ""
ok(r.rc == 0 and "&lt;b&gt;&amp;&quot;x&#39;" in esc and "<b>&" not in esc,
   "labels are escaped in the HTML", r.err)


# ---- the HTML in a browser: headless Chromium, screenshot not blank ----
def png_pixels(path):
    """(width, height, set of colours, fraction of white pixels) of an 8-bit RGB/RGBA PNG."""
    w, h, rows = png_rows(path)
    colours = {px for row in rows for px in row}
    white = sum(px == (255, 255, 255) for row in rows for px in row)
    return w, h, colours, white / (w * h)


browser = shutil.which("chromium") or shutil.which("chromium-browser")
if not browser:
    ok(False, "headless Chromium renders the HTML report",
       "chromium is not installed: 'make test' installs it (Debian package chromium); "
       "run 'apt-get install chromium' or 'make test'")
else:
    profile = tempfile.mkdtemp(prefix="posenc-chromium-")
    shot = os.path.join(wd, "shot.png")
    cmd = [browser, "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--user-data-dir=" + profile, "--screenshot=" + shot, "--window-size=1200,2000",
           "file://" + html_path]
    if os.geteuid() == 0:
        cmd.insert(1, "--no-sandbox")
    try:
        b = subprocess.run(cmd, capture_output=True, timeout=90)
        detail = b.stderr.decode("utf-8", "replace")[-800:]
    except subprocess.TimeoutExpired:
        detail = "chromium did not finish within 90 s"
    shutil.rmtree(profile, ignore_errors=True)
    if ok(os.path.exists(shot), "headless Chromium renders the HTML report to a screenshot", detail):
        w, h, colours, white = png_pixels(shot)
        ok((w, h) == (1200, 2000), "the screenshot is 1200 x 2000", (w, h))
        # The first screen holds the title, summary table and the encoding heatmaps.
        ok(len(colours) > 500 and white < 0.9, "the screenshot is not blank: many colours, not all white",
           f"{len(colours)} colours, {white:.1%} white")


# ---- progress: on a terminal only, one line rewritten, cleared; nothing with -q ----
def run_on_tty(args):
    """Run with stderr on a pseudo-terminal; returns (rc, what the terminal got)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([EXE, *args], cwd=wd, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    got = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    return proc.wait(timeout=120), got.decode("utf-8", "replace")


rc, tty = run_on_tty(["report", "-n", "64", "-d", "16", "-o", "tty.pdf"])
ok(rc == 0 and "\r\x1b[Kposenc: report: [1/11] computing sinusoidal base=10000" in tty
   and "[11/11] Frequency table" in tty and "\n" not in tty.split("posenc: wrote")[0].replace("\r\n", "\n").strip("\n"),
   "progress on a terminal: one line per step rewritten with \\r", repr(tty[:300]))
ok(tty.rstrip().endswith("posenc: wrote tty.pdf (report of 2 schemes, 9 pages)")
   and "\r\x1b[Kposenc: wrote" in tty, "the progress line is cleared before the last message", repr(tty[-200:]))
rc, tty = run_on_tty(["report", "-q", "-n", "64", "-d", "16", "-o", "tty.html"])
ok(rc == 0 and tty == "", "-q: nothing on the terminal", repr(tty[:200]))
rc, tty = run_on_tty(["report", "-n", "5000", "--max-memory", "10M", "-o", "tty.pdf"])
ok(rc == 1 and "\r\x1b[Kposenc: error: " in tty and tty.count("posenc: error") == 1,
   "an error clears the progress line first", repr(tty[-300:]))

# ---- failures: a one-line error, exit 2 or 1, no file left ----
e = tempfile.mkdtemp(prefix="posenc-report-err-")
error_case(EXE, "report to .png", ["report", "-o", "r.png"], 2, "report writes a PDF", cwd=e)
error_case(EXE, "report to .csv", ["report", "-o", "r.csv"], 2, "'r.csv'", cwd=e)
error_case(EXE, "report of alibi", ["report", "-s", "alibi", "-o", "r.pdf"], 2, "alibi", cwd=e)
error_case(EXE, "report of nine schemes", ["report", "--base", "1,2,3,4,5,6,7,8,9", "-o", "r.pdf"], 2,
           "", cwd=e)
error_case(EXE, "report --raw", ["report", "--raw"], 2, "--raw", cwd=e)
error_case(EXE, "report --width", ["report", "--width", "800", "-o", "r.html"], 2, "--width", cwd=e)
error_case(EXE, "report -n 1", ["report", "-n", "1", "-o", "r.pdf"], 2, "at least 2 positions", cwd=e)
error_case(EXE, "report bad metric", ["report", "--metric", "corr"], 2, "--metric", cwd=e)
error_case(EXE, "report into a missing folder", ["report", "-o", "no/such/r.pdf"], 1, "no/such/r.pdf", cwd=e)
error_case(EXE, "report beyond --max-memory", ["report", "-n", "5000", "--max-memory", "10M", "-o", "r.html"],
           1, "budget", cwd=e)
# A failed run leaves an existing report as it was.
old = os.path.join(e, "keep.pdf")
open(old, "wb").write(b"old report")
r = run(EXE, "report", "-n", "5000", "--max-memory", "10M", "-o", "keep.pdf", cwd=e)
ok(r.rc == 1 and open(old, "rb").read() == b"old report" and sorted(os.listdir(e)) == ["keep.pdf"],
   "a failed report leaves the old file untouched and nothing else", r.err)
shutil.rmtree(e, ignore_errors=True)

# ---- --help is what the man page and completion describe ----
r = run(EXE, "report", "--help")
ok(r.rc == 0 and r.text.startswith("Usage: posenc report") and "--metric" in r.text, "report --help")
r = run(EXE, "--help")
ok("report" in r.text, "posenc --help lists report")

shutil.rmtree(wd, ignore_errors=True)
done()
