#!/usr/bin/env python3
"""Which straightened windows a worker should hash: measured on the corpora's originals.

Usage: bench/straightened-recall.py CORPUS_DIR [CORPUS_DIR ...] [--per-photo N] [--seed S]

A straighten tool turns a photo by a few degrees and crops it to the largest centred box of the
same shape that shows no corner. Such a copy lies off every axis-aligned window
(`FeatureWindow.crops`), so its whole-frame pHash may be far from all of the original's window
hashes. For every original of each corpus's truth.csv, the script makes N straightened copies
at random angles (0.5-8 degrees, either way), hashes each copy's whole frame, and prints, per
band of angles, the share of copies within 8 bits (the crop radius of candidate search) of the
original's nearest window hash, for the 56 crop windows alone and with each candidate set of
straightened windows added (the same turned box at the set's angles).

The pHash is cull's (32x32 area averages of the gray image, the 8x8 lowest DCT frequencies
against their median: equal to `PerceptualHash.pHash` bit for bit on an unturned frame). The
copies and the straightened windows are both turned with PIL's bicubic rotation of the frame
reduced to 512 pixels across, so the comparison measures the geometry, not two resamplers.
"""
import argparse, csv, math, os, random
import numpy as np
from PIL import Image, ImageOps
from phash_model import SIDE, phash, window


def largest_box(degrees, W, H):
    a = math.radians(abs(degrees))
    return 1 / (math.cos(a) + max(W / H, H / W) * math.sin(a))


def straightened(gray, degrees):
    W, H = gray.size
    small = gray.resize((512, round(H * 512 / W)), Image.BOX) if W > 512 else gray
    turned = small.rotate(degrees, resample=Image.BICUBIC, expand=False)
    w, h = turned.size
    k = largest_box(degrees, w, h)
    box = (round((w - w * k) / 2), round((h - h * k) / 2), round((w + w * k) / 2), round((h + h * k) / 2))
    return np.asarray(turned.crop(box).resize((SIDE, SIDE), Image.BOX), dtype=np.float64)


def grid(size, step):
    return [(c * step, r * step, size, size) for r in range(5) for c in range(5)]


CROPS = grid(0.9, 0.025) + grid(0.8, 0.05) + [(x, 0, 0.8, 1) for x in (0, .1, .2)] + [(0, y, 1, 0.8) for y in (0, .1, .2)]
SETS = {"crops only": [], "±3°": [3, -3], "±2.5°, ±5°": [2.5, -2.5, 5, -5], "±3°, ±6° (pipeline 6)": [3, -3, 6, -6],
        "±2°, ±4°, ±6°": [2, -2, 4, -4, 6, -6]}
BANDS = [(0.5, 1.5), (1.5, 3), (3, 4.5), (4.5, 6), (6, 8)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("corpora", nargs="+")
    parser.add_argument("--per-photo", type=int, default=10)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    random.seed(args.seed)
    originals = [os.path.join(c, r["path"]) for c in args.corpora
                 for r in csv.DictReader(open(os.path.join(c, "truth.csv"))) if r["transform"] == "original"]
    angles = sorted({a for s in SETS.values() for a in s})
    results = []
    for path in originals:
        gray = ImageOps.exif_transpose(Image.open(path)).convert("L")
        crops = [phash(window(gray, 0, 0, 1, 1))] + [phash(window(gray, *w)) for w in CROPS]
        turned = {a: phash(straightened(gray, a)) for a in angles}
        for _ in range(args.per_photo):
            degrees = random.choice([-1, 1]) * random.uniform(0.5, 8)
            copy = phash(straightened(gray, degrees))
            nearest = min(bin(copy ^ h).count("1") for h in crops)
            results.append((abs(degrees), {name: min([nearest] + [bin(copy ^ turned[a]).count("1") for a in s])
                                           for name, s in SETS.items()}))
    print(f"{len(originals)} originals, {len(results)} straightened copies; share within 8 bits of a window hash:")
    print("angle      copies  " + "  ".join(f"{name:>22}" for name in SETS))
    for low, high in BANDS:
        band = [r for a, r in results if low <= a < high]
        print(f"{low:>3}-{high:<4}°  {len(band):>6}  " + "  ".join(f"{sum(r[n] <= 8 for r in band) / len(band):>22.2f}" for n in SETS))


if __name__ == "__main__":
    main()
