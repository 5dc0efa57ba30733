#!/usr/bin/env python3
"""Writes the end-to-end library of issue 9: N small generated photos (random shapes on plain
backgrounds, 160x120, JPEG) and K of them again at 120x90, quality 80, in folders of 1,000,
plus truth.csv (path, group). Deterministic (seeded); keeps files already there.

    python3 bench/e2e-library.py OUT [--photos 200000] [--copies 20000] [--jobs 2]

Needs Pillow (pip install pillow). Used by bench/rescan.sh and the end-to-end measurement in
bench/RESULTS.md.
"""
import argparse, csv, os, random, sys
from multiprocessing import Pool


def photo(index):
    from PIL import Image, ImageDraw
    rng = random.Random(index)
    im = Image.new("RGB", (160, 120), tuple(rng.randrange(256) for _ in range(3)))
    d = ImageDraw.Draw(im)
    for _ in range(rng.randrange(3, 9)):
        x0, y0 = rng.randrange(160), rng.randrange(120)
        x1, y1 = x0 + rng.randrange(10, 90), y0 + rng.randrange(10, 70)
        colour = tuple(rng.randrange(256) for _ in range(3))
        (d.ellipse if rng.random() < 0.5 else d.rectangle)((x0, y0, x1, y1), fill=colour)
    return im


def write(args):
    out, index, copy = args
    folder = os.path.join(out, f"f{index // 1000:03d}")
    path = os.path.join(folder, f"p{index:06d}.jpg")
    copy_path = os.path.join(folder, f"p{index:06d}-small.jpg")
    if os.path.exists(path) and (not copy or os.path.exists(copy_path)):
        return
    os.makedirs(folder, exist_ok=True)
    im = photo(index)
    im.save(path, quality=90)
    if copy:
        im.resize((120, 90)).save(copy_path, quality=80)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--photos", type=int, default=200_000)
    ap.add_argument("--copies", type=int, default=20_000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    step = max(1, a.photos // max(1, a.copies))
    copied = set(range(0, a.photos, step)[: a.copies])
    with Pool(a.jobs) as pool:
        for done, _ in enumerate(pool.imap_unordered(write, ((a.out, i, i in copied) for i in range(a.photos)), chunksize=500)):
            if done % 20_000 == 0:
                print(f"{done}/{a.photos}", file=sys.stderr)
    with open(os.path.join(a.out, "truth.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["path", "group", "transform"])
        for i in range(a.photos):
            folder = f"f{i // 1000:03d}"
            w.writerow([f"{folder}/p{i:06d}.jpg", str(i), "original"])
            if i in copied:
                w.writerow([f"{folder}/p{i:06d}-small.jpg", str(i), "small"])
    print(f"{a.photos} photos and {len(copied)} copies in {a.out}")


if __name__ == "__main__":
    main()
