"""Unit costs for the floors in bench/RESULTS.md, measured on this machine (stdout: key=value lines).

- font_setup_s: a fresh process's first text measurement with cairo's toy API and "DejaVu Sans", as posenc
  does it (fontconfig loads its configuration and caches then); ctypes, no Python work inside the timing.
- trig_ns: one libm sin of a large argument (np.sin over 10^6 of them: libm per element).
- flop_ns: one floating-point operation of a BLAS matrix product on all cores (2 n^3 flops of a 2048^3 dgemm).
- sqrt_ns: one square root (np.sqrt over 10^6 values, in place).
- colour_ns: colouring one pixel: a value scaled to a 256-entry colormap index and looked up (numpy, in
  place, 640 x 480 values).
Each is the median of several repetitions, in CPU time (time.process_time: all of the process's threads),
so a loaded machine does not inflate it.

Usage: floor_costs.py [font]   (with "font": only font_setup_s, in this fresh process)
"""
import ctypes
import ctypes.util
import statistics
import sys
import time


def font_setup():
    cairo = ctypes.CDLL(ctypes.util.find_library("cairo") or "libcairo.so.2")
    cairo.cairo_image_surface_create.restype = ctypes.c_void_p
    cairo.cairo_create.restype = ctypes.c_void_p
    cairo.cairo_create.argtypes = [ctypes.c_void_p]
    cairo.cairo_select_font_face.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
    cairo.cairo_set_font_size.argtypes = [ctypes.c_void_p, ctypes.c_double]
    cairo.cairo_text_extents.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    ext = (ctypes.c_double * 6)()
    t0 = time.process_time()
    surface = cairo.cairo_image_surface_create(0, 1, 1)
    cr = cairo.cairo_create(ctypes.c_void_p(surface))
    cairo.cairo_select_font_face(cr, b"DejaVu Sans", 0, 0)
    cairo.cairo_set_font_size(cr, 10.0)
    cairo.cairo_text_extents(cr, b"0.5 position", ext)
    return time.process_time() - t0


def best(fn, reps=7):
    return statistics.median(fn() for _ in range(reps))


if len(sys.argv) > 1 and sys.argv[1] == "font":
    print(f"font_setup_s={font_setup():.6f}")
    sys.exit(0)

import subprocess  # noqa: E402

import numpy as np  # noqa: E402

fonts = [float(subprocess.run([sys.executable, __file__, "font"], capture_output=True, text=True)
               .stdout.split("=")[1]) for _ in range(5)]
print(f"font_setup_s={statistics.median(fonts):.6f}")

x = np.linspace(1e3, 1e6, 10**6)


def trig():
    t0 = time.process_time()
    np.sin(x)
    return (time.process_time() - t0) / x.size * 1e9


print(f"trig_ns={best(trig):.3f}")
a = np.random.default_rng(0).random((2048, 2048))


def flop():
    t0 = time.process_time()
    a @ a
    return (time.process_time() - t0) / (2 * 2048.0**3) * 1e9


print(f"flop_ns={best(flop):.5f}")
y = np.random.default_rng(1).random(10**6)


def sqrt():
    z = y.copy()
    t0 = time.process_time()
    np.sqrt(z, out=z)
    return (time.process_time() - t0) / z.size * 1e9


print(f"sqrt_ns={best(sqrt):.3f}")
v = np.random.default_rng(2).random((480, 640))
lut = np.random.default_rng(3).integers(0, 2**32, 256, dtype=np.uint32)


def colour():
    t0 = time.process_time()
    idx = ((v - 0.0) * 255.999).astype(np.intp)
    np.take(lut, idx)
    return (time.process_time() - t0) / v.size * 1e9


print(f"colour_ns={best(colour):.3f}")
