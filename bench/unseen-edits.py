#!/usr/bin/env python3
"""Edits none of cull's corpora make, of the development and holdout originals: a probe of
accuracy on edits cull's features and rules were not developed on.

Usage: bench/unseen-edits.py OUT_DIR DEV_CORPUS HOLDOUT_CORPUS [...]

For every original of each corpus (CORPUS/photos/*/original.*), 15 edits: a strong and a mild
vignette (corners darkened by 45% and 20% of their level, falling off with the square of the
distance from the centre), Gaussian noise (sigma 10 levels), saturation x1.6, sepia toning,
histogram equalisation, a 200-pixel copy, the pixels turned 90 degrees (no EXIF flag), a 2
degree straighten with the crop that hides its corners, a 5% black frame, a translucent dark
banner with text across the middle (16% of the height, the way proofs are watermarked), a
keystone fix (4% a side) cropped back in, a 5x5 median filter, brightness x1.35 and a centre
square crop. Writes OUT_DIR/photos/<corpus>-<group>/<edit>.jpg and OUT_DIR/truth.csv in the
development corpus's format, so ../shared/corpus/score.py scores `cull run --format csv` on it
(bench/RESULTS.md, "Edits no corpus makes"). Needs Pillow and numpy.
"""
import csv, glob, math, os, sys
import numpy as np
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter, ImageOps

out, corpora = sys.argv[1], sys.argv[2:]
def vignette(im, strength):
    w, h = im.size
    y, x = np.mgrid[0:h, 0:w]
    r = np.sqrt(((x - w / 2) / (w / 2)) ** 2 + ((y - h / 2) / (h / 2)) ** 2) / math.sqrt(2)
    f = 1 - strength * r ** 2
    return Image.fromarray(np.clip(np.asarray(im, dtype=np.float32) * f[..., None], 0, 255).astype(np.uint8))
def noise(im):
    a = np.asarray(im, dtype=np.float32)
    rng = np.random.default_rng(im.size[0] * 7919 + im.size[1])
    return Image.fromarray(np.clip(a + rng.normal(0, 10, a.shape), 0, 255).astype(np.uint8))
def sepia(im):
    g = np.asarray(ImageOps.grayscale(im), dtype=np.float32)
    return Image.fromarray(np.clip(np.stack([g * 1.07, g * 0.74 + 20, g * 0.43 + 10], -1), 0, 255).astype(np.uint8))
def straighten(im, degrees):
    w, h = im.size
    a = math.radians(abs(degrees))
    k = 1 / (math.cos(a) + max(w / h, h / w) * math.sin(a))
    r = im.rotate(degrees, resample=Image.BICUBIC, expand=False)
    cw, ch = round(w * k), round(h * k)
    return r.crop(((w - cw) // 2, (h - ch) // 2, (w + cw) // 2, (h + ch) // 2))
def keystone(im):
    w, h = im.size
    d = 0.04 * w
    # the top edge narrowed by 4% a side, as a perspective fix leaves it, then cropped back in
    quad = (-d, 0, 0, h, w, h, w + d, 0)
    t = im.transform((w, h), Image.QUAD, quad, Image.BICUBIC)
    return t.crop((round(0.04 * w), 0, round(0.96 * w), h))
def banner(im):
    c = im.copy().convert("RGBA"); layer = Image.new("RGBA", c.size, (0, 0, 0, 0)); d = ImageDraw.Draw(layer)
    w, h = c.size
    d.rectangle((0, round(h * 0.42), w, round(h * 0.58)), fill=(0, 0, 0, 120))
    d.text((w * 0.1, h * 0.47), "SAMPLE - not for reproduction", fill=(255, 255, 255, 230))
    return Image.alpha_composite(c, layer).convert("RGB")
def edit(t, im):
    w, h = im.size
    if t == "vignette": return vignette(im, 0.45)
    if t == "vignette20": return vignette(im, 0.20)
    if t == "noise10": return noise(im)
    if t == "saturate": return ImageEnhance.Color(im).enhance(1.6)
    if t == "sepia": return sepia(im)
    if t == "equalize": return ImageOps.equalize(im)
    if t == "tiny200": s = 200 / max(w, h); return im.resize((max(1, round(w * s)), max(1, round(h * s))), Image.LANCZOS)
    if t == "rot90_pixels": return im.transpose(Image.ROTATE_90)
    if t == "straighten2": return straighten(im, 2)
    if t == "border_black5": p = round(0.05 * min(w, h)); return ImageOps.expand(im, border=p, fill=(0, 0, 0))
    if t == "banner": return banner(im)
    if t == "keystone": return keystone(im)
    if t == "median5": return im.filter(ImageFilter.MedianFilter(5))
    if t == "bright35": return ImageEnhance.Brightness(im).enhance(1.35)
    if t == "crop_square": s = min(w, h); return im.crop(((w - s) // 2, (h - s) // 2, (w - s) // 2 + s, (h - s) // 2 + s))
    raise ValueError(t)
T = ["vignette", "vignette20", "noise10", "saturate", "sepia", "equalize", "tiny200", "rot90_pixels", "straighten2", "border_black5",
     "banner", "keystone", "median5", "bright35", "crop_square"]
Q = {"noise10": 92, "tiny200": 80}
rows = []
for corpus in corpora:
    for orig in sorted(glob.glob(os.path.join(corpus, "photos", "*", "original.*"))):
        name = os.path.basename(corpus.rstrip("/")) + "-" + os.path.basename(os.path.dirname(orig))
        im = ImageOps.exif_transpose(Image.open(orig)).convert("RGB")
        os.makedirs(f"{out}/photos/{name}", exist_ok=True)
        f = f"{out}/photos/{name}/original.jpg"; im.save(f, "JPEG", quality=92)
        rows.append((os.path.relpath(f, out), name, "original"))
        for t in T:
            f = f"{out}/photos/{name}/{t}.jpg"
            edit(t, im).save(f, "JPEG", quality=Q.get(t, 88))
            rows.append((os.path.relpath(f, out), name, t))
with open(f"{out}/truth.csv", "w", newline="") as fh:
    wr = csv.writer(fh); wr.writerow(["path", "group", "transform"]); wr.writerows(rows)
print(len(rows), "files")
