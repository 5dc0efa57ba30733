#!/usr/bin/env python3
"""A corpus of crops no corpus edit makes: the originals of other corpora, each with crops drawn
at random, the aspect locked or free, keeping 75-100% of each side anywhere in the frame.

Usage: bench/free-crop-corpus.py OUT CORPUS_DIR [CORPUS_DIR ...] [--per-photo N] [--seed S]

Writes OUT/photos/<group>/{original,crop-N}.jpg (JPEG quality 90, as the corpora's edits) and
OUT/truth.csv in the corpora's format (path, group, transform), the transform naming the crop's
kind and the band of the smaller share of a side kept, `locked_80-85` or `free_75-80`, so that
../shared/corpus/score.py prints the recall of each band. The crops are drawn as
bench/free-crop-recall.py draws them (which measures the same geometry on hashes alone).
"""
import argparse, csv, os, random
from PIL import Image, ImageOps

BANDS = [(0.95, 1.0), (0.9, 0.95), (0.85, 0.9), (0.8, 0.85), (0.75, 0.8)]


def band(kept):
    for low, high in BANDS:
        if low <= kept <= high:
            return f"{round(low * 100)}-{round(high * 100)}"
    return "other"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("corpora", nargs="+")
    parser.add_argument("--per-photo", type=int, default=6)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows = []
    for corpus in args.corpora:
        for r in csv.DictReader(open(os.path.join(corpus, "truth.csv"))):
            if r["transform"] != "original":
                continue
            group = os.path.basename(corpus.rstrip("/")) + "-" + r["group"].replace("/", "-")
            folder = os.path.join(args.out, "photos", group)
            os.makedirs(folder, exist_ok=True)
            image = ImageOps.exif_transpose(Image.open(os.path.join(corpus, r["path"]))).convert("RGB")
            image.save(os.path.join(folder, "original.jpg"), quality=90)
            rows.append((f"photos/{group}/original.jpg", group, "original"))
            W, H = image.size
            for n in range(args.per_photo):
                locked = n % 2 == 0
                kw = rng.uniform(0.75, 1.0)
                kh = kw if locked else rng.uniform(0.75, 1.0)
                x, y = rng.uniform(0, 1 - kw), rng.uniform(0, 1 - kh)
                box = (round(x * W), round(y * H), round((x + kw) * W), round((y + kh) * H))
                name = f"crop-{n}.jpg"
                image.crop(box).save(os.path.join(folder, name), quality=90)
                rows.append((f"photos/{group}/{name}", group, f"{'locked' if locked else 'free'}_{band(min(kw, kh))}"))
    with open(os.path.join(args.out, "truth.csv"), "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["path", "group", "transform"])
        out.writerows(rows)
    print(f"{len(rows)} files in {args.out}")


if __name__ == "__main__":
    main()
