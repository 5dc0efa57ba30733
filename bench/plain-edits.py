#!/usr/bin/env python3
"""Writes colour edits of plain graphics: N graphics of the end-to-end library's kind
(bench/e2e-library.py: shapes on a plain ground, 160x120), each with 18 colour-edited copies
(saturation, hue, white balance, contrast, brightness, gamma, curves, black and white, sepia,
auto-contrast, equalise) or, with --edits geometry, 9 crops, frames and turns, in a folder per graphic, plus truth.csv (path, group, transform) and
pairs.tsv (EDIT<TAB>ORIGINAL<TAB>COPY, absolute paths) for bench/judge-pairs.sh.
Deterministic (seeded by the graphic's index, past the library's own); keeps nothing stale.

    python3 bench/plain-edits.py OUT [--graphics 150] [--edits colour|geometry]

Needs Pillow and NumPy (pip install pillow numpy). Used by bench/plain-edits.sh and the
"Shape colours" measurement in bench/RESULTS.md.
"""
import argparse, csv, importlib.util, os

import numpy as np
from PIL import Image, ImageEnhance, ImageOps

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("e2e_library", os.path.join(here, "e2e-library.py"))
e2e_library = importlib.util.module_from_spec(spec)
spec.loader.exec_module(e2e_library)


def hue(im, degrees):
    hsv = np.array(im.convert("HSV")).astype(int)
    hsv[..., 0] = (hsv[..., 0] + int(degrees / 360 * 256)) % 256
    return Image.fromarray(hsv.astype("uint8"), "HSV").convert("RGB")


def gains(im, red, green, blue):
    """Per-channel gains: a white balance or a warm/cool grade."""
    a = np.array(im).astype(float) * np.array([red, green, blue])
    return Image.fromarray(np.clip(a, 0, 255).astype("uint8"))


def gamma(im, exponent):
    a = np.array(im).astype(float) / 255
    return Image.fromarray((255 * a ** exponent).astype("uint8"))


def sepia(im):
    g = np.array(im.convert("L")).astype(float)
    a = np.stack([g * 1.07, g * 0.74, g * 0.43], -1) + np.array([40, 25, 10])
    return Image.fromarray(np.clip(a, 0, 255).astype("uint8"))


def curves(im):
    """An S-curve on every channel."""
    a = np.array(im).astype(float) / 255
    return Image.fromarray((255 * (0.5 - 0.5 * np.cos(np.pi * a))).astype("uint8"))


def crop(im, left, top, right, bottom):
    """The graphic with the given shares of its width and height cut from each side."""
    w, h = im.size
    return im.crop((round(left * w), round(top * h), round(w - right * w), round(h - bottom * h)))


def border(im, share, fill):
    """The graphic framed: bars of `share` of its height above and below (a letterbox)."""
    return ImageOps.expand(im, border=(0, round(share * im.size[1])), fill=fill)


def rotated(im, degrees):
    """Turned a few degrees and cropped to the largest centred box with no corner showing."""
    import math
    w, h = im.size
    a = math.radians(abs(degrees))
    k = 1 / (math.cos(a) + max(w / h, h / w) * math.sin(a))
    cw, ch = round(w * k), round(h * k)
    r = im.rotate(degrees, resample=Image.BICUBIC)
    return r.crop(((w - cw) // 2, (h - ch) // 2, (w + cw) // 2, (h + ch) // 2))


# The colour edits of the first measurement ("Shape colours", bench/RESULTS.md).
EDITS = {
    "sat60": lambda im: ImageEnhance.Color(im).enhance(0.6),
    "sat140": lambda im: ImageEnhance.Color(im).enhance(1.4),
    "sat170": lambda im: ImageEnhance.Color(im).enhance(1.6),
    "hue+20": lambda im: hue(im, 20),
    "hue-20": lambda im: hue(im, -20),
    "warm": lambda im: gains(im, 1.1, 1.0, 0.85),
    "cool": lambda im: gains(im, 0.88, 1.0, 1.12),
    "wb_strong": lambda im: gains(im, 1.25, 1.05, 0.75),
    "contrast130": lambda im: ImageEnhance.Contrast(im).enhance(1.3),
    "contrast70": lambda im: ImageEnhance.Contrast(im).enhance(0.7),
    "bright120": lambda im: ImageEnhance.Brightness(im).enhance(1.2),
    "gamma08": lambda im: gamma(im, 0.8),
    "gamma125": lambda im: gamma(im, 1.25),
    "sepia": sepia,
    "gray": lambda im: im.convert("L").convert("RGB"),
    "curves": curves,
    "autocontrast": lambda im: ImageOps.autocontrast(im, cutoff=2),
    "equalize": ImageOps.equalize,
}

# Crops, frames and turns of graphics (screenshots trimmed, letterboxed, straightened): what
# the corpora's crops are for photos. The hard set's geometry, and crops of other sizes.
GEOMETRY = {
    "crop5": lambda im: crop(im, 0.05, 0.05, 0.05, 0.05),
    "crop10": lambda im: crop(im, 0.1, 0.1, 0.1, 0.1),
    "crop22_top": lambda im: crop(im, 0, 0.22, 0, 0),
    "crop15_two": lambda im: crop(im, 0.15, 0, 0, 0.1),
    "crop_corner": lambda im: crop(im, 0, 0, 0.2, 0.2),
    "crop8_resize": lambda im: crop(im, 0.08, 0.03, 0.02, 0.07).resize((120, 90), Image.LANCZOS),
    "border_white12": lambda im: border(im, 0.12, (255, 255, 255)),
    "border_black8": lambda im: ImageOps.expand(im, border=round(0.08 * im.size[1]), fill=(0, 0, 0)),
    "rotate4_crop": lambda im: rotated(im, 4),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--graphics", type=int, default=150)
    parser.add_argument("--edits", choices=["colour", "geometry"], default="colour",
                        help="colour edits (the default) or crops, frames and turns")
    args = parser.parse_args()
    edits = EDITS if args.edits == "colour" else GEOMETRY
    out = os.path.abspath(args.out)
    truth, pairs = [], []
    for i in range(args.graphics):
        # Indices past the library's 200,000 photos and its holdouts: graphics it does not hold.
        im = e2e_library.photo(500_000 + i)
        folder = f"g{i:04d}"
        os.makedirs(os.path.join(out, folder), exist_ok=True)
        original = os.path.join(out, folder, "original.jpg")
        im.save(original, quality=90)
        truth.append((f"{folder}/original.jpg", i, "original"))
        for name, edit in edits.items():
            path = os.path.join(out, folder, name + ".jpg")
            edit(im).save(path, quality=90)
            truth.append((f"{folder}/{name}.jpg", i, name))
            pairs.append((name, original, path))
    with open(os.path.join(out, "truth.csv"), "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["path", "group", "transform"])
        writer.writerows(truth)
    with open(os.path.join(out, "pairs.tsv"), "w", newline="") as fh:
        csv.writer(fh, delimiter="\t", lineterminator="\n").writerows(pairs)
    print(f"{len(truth)} files, {len(pairs)} pairs in {out}")


if __name__ == "__main__":
    main()
