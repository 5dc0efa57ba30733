#!/usr/bin/env python3
"""How far crops that no edit in the corpora makes lie from the windows workers hash.

Usage: bench/free-crop-recall.py CORPUS_DIR [CORPUS_DIR ...] [--per-photo N] [--seed S]

The corpora's crop edits are a handful of fixed proportions (10% all round, 3% off the left, 15%
off one side and 10% off one end, ...). Users crop anywhere: with the aspect ratio locked (the
default of most desktop tools) or free (the default of phones). For every original of each
corpus's truth.csv the script draws N crops, half with the aspect locked and half free, each
keeping 75-100% of each side at a random place, and measures what candidate search can see of
the (original, crop) pair: the distance from the crop's whole-frame pHash to the nearest window
hash of the original. It prints, per band of the share of a side kept and for locked and free
crops apart, the share of crops within 10 bits (the search's crop radius), 8 (the radius of
most windows in large libraries), 7 (what its probes find exactly below 500,000 photos) and 5
(exact above), for sets of crop windows: the 56 workers hash (`FeatureWindow.crops`), subsets
a plan may probe, and 16 windows of other aspects no pipeline hashes yet.
A crop further than the radius from every window is never paired with its original, whatever
the judge would say (the hard set's crop15_two of Grey and ColorfulCups, bench/RESULTS.md).

The pHash is cull's (32x32 area averages of the gray image, the 8x8 lowest DCT frequencies
against their median; the same as bench/straightened-recall.py): a crop's frame and a window of
the original are the same computation over two boxes, so the measure is the geometry alone,
without JPEG's noise (which adds a bit or two on top).
"""
import argparse, csv, os, random
from PIL import Image, ImageOps
from phash_model import phash, window


def grid(size, steps, width=None):
    width = width or size
    return [(x, y, width, size) for y in steps for x in steps]


def corners(width, height):
    return [(x, y, width, height) for y in (0, 1 - height) for x in (0, 1 - width)]


G90 = grid(0.9, [0, .025, .05, .075, .1])
G90_3 = grid(0.9, [0, .05, .1])
G80 = grid(0.8, [0, .05, .1, .15, .2])
G80_3 = grid(0.8, [0, .1, .2])
BANDS6 = [(x, 0, 0.8, 1) for x in (0, .1, .2)] + [(0, y, 1, 0.8) for y in (0, .1, .2)]
# Windows of other aspects, in the corners (not hashed by any pipeline yet): what a crop that
# keeps different shares of the two sides (85% x 90%, a free crop) would meet.
ASPECTS16 = corners(0.85, 0.9) + corners(0.9, 0.85) + corners(0.8, 0.9) + corners(0.9, 0.8)
# Sets of crop windows a plan may probe, all of them hashed by pipeline 4 and later workers
# (`FeatureWindow.crops`; the straightened frames are left out: they serve turned crops).
SETS = {
    "90% 5x5, 80% 3x3 (40)": G90 + G80_3 + BANDS6,
    "90% 5x5, 80% 5x5 (56)": G90 + G80 + BANDS6,
    "90% 3x3, 80% 5x5 (40)": G90_3 + G80 + BANDS6,
    "90% 3x3, 80% 3x3 (24)": G90_3 + G80_3 + BANDS6,
    "90% 5x5, 80% 3x3, 16 aspects (56)": G90 + G80_3 + BANDS6 + ASPECTS16,
}
BANDS = [(0.95, 1.0), (0.9, 0.95), (0.85, 0.9), (0.8, 0.85), (0.75, 0.8)]
RADII = [10, 8, 7, 5]


def draw_crop(rng):
    """A crop keeping 75-100% of each side: the aspect locked half the time."""
    kw = rng.uniform(0.75, 1.0)
    kh = kw if rng.random() < 0.5 else rng.uniform(0.75, 1.0)
    return rng.uniform(0, 1 - kw), rng.uniform(0, 1 - kh), kw, kh


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("corpora", nargs="+")
    parser.add_argument("--per-photo", type=int, default=20)
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    originals = [os.path.join(c, r["path"]) for c in args.corpora
                 for r in csv.DictReader(open(os.path.join(c, "truth.csv"))) if r["transform"] == "original"]
    results = []  # (locked, smaller side kept, {set: nearest distance})
    for path in originals:
        gray = ImageOps.exif_transpose(Image.open(path)).convert("L")
        frame = phash(window(gray, 0, 0, 1, 1))
        hashes = {name: [frame] + [phash(window(gray, *w)) for w in windows] for name, windows in SETS.items()}
        for _ in range(args.per_photo):
            x, y, kw, kh = draw_crop(rng)
            copy = phash(window(gray, x, y, kw, kh))
            nearest = {name: min(bin(copy ^ h).count("1") for h in hashes[name]) for name in SETS}
            results.append((kw == kh, min(kw, kh), nearest))
    print(f"{len(originals)} originals, {len(results)} crops; share of crops within R bits of a window hash of their original")
    for radius in RADII:
        print(f"\nwithin {radius} bits")
        print(f"{'kept':<10} {'aspect':<7} {'crops':>5}  " + "  ".join(f"{name:>34}" for name in SETS))
        for locked in (True, False):
            for low, high in BANDS:
                band = [r for l, k, r in results if l == locked and low <= k < high + (1e-9 if high == 1 else 0)]
                if not band:
                    continue
                shares = [sum(r[n] <= radius for r in band) / len(band) for n in SETS]
                print(f"{low:.2f}-{high:.2f}  {'locked' if locked else 'free':<7} {len(band):>5}  "
                      + "  ".join(f"{s:>34.3f}" for s in shares))
            everything = [r for l, k, r in results if l == locked]
            shares = [sum(r[n] <= radius for r in everything) / len(everything) for n in SETS]
            print(f"{'all':<10} {'locked' if locked else 'free':<7} {len(everything):>5}  " + "  ".join(f"{s:>34.3f}" for s in shares))


if __name__ == "__main__":
    main()
