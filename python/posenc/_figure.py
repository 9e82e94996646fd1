"""Figures: what the program draws, drawn by the same code, shown inline in Jupyter."""
import os
import tempfile

from . import _native

def _umask():
    """The process's umask, read without setting it (os.umask would, for every thread)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}


class Figure:
    """A figure posenc draws: ``_repr_png_``/``_repr_svg_`` show it in Jupyter, ``save`` writes it.

    Drawn on first use in each format (PNG, SVG, PDF) by the command that draws it in the
    program, with the same size, dpi and style options; the bytes are kept.
    """

    def __init__(self, command, args, tables, what):
        self.command = command
        self._args = list(args)
        self._tables = tables
        self._what = what
        self._bytes = {}
        self.notes = []

    def _draw(self, fmt):
        if fmt not in self._bytes:
            name = "%s.%s" % (self.command, fmt)
            r = _native.check(_native.run([self.command] + self._args + ["-o", name], self._tables))
            self._bytes[fmt] = bytes(r.files[name])
        return self._bytes[fmt]

    def png(self):
        """The figure as PNG bytes."""
        return self._draw("png")

    def svg(self):
        """The figure as SVG text."""
        return self._draw("svg").decode("utf-8")

    def pdf(self):
        """The figure as PDF bytes."""
        return self._draw("pdf")

    def _repr_png_(self):
        return self.png()

    def _repr_svg_(self):
        return self.svg()

    def save(self, path):
        """Write the figure to PATH; the extension (.png, .svg, .pdf) chooses the format."""
        ext = os.path.splitext(os.fspath(path))[1].lower()
        if ext not in _FORMATS:
            raise ValueError("output '%s': unknown figure format (use .png, .svg or .pdf)" % path)
        data = self._draw(_FORMATS[ext])
        # As the program writes files: complete or not at all (a temporary file renamed).
        folder = os.path.dirname(os.path.abspath(path))
        try:
            fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=folder)
        except OSError as e:  # the message names the file asked for, not the temporary one
            raise type(e)(e.errno, e.strerror, os.fspath(path)) from None
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        return path

    def __repr__(self):
        return "<posenc.Figure %s: %s>" % (self.command, self._what)
