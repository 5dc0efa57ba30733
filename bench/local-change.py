#!/usr/bin/env python3
"""Does a local change of the scene tell another shot (a burst frame) from an edited copy?

A measurement (docs/FEATURES.md, "Near or similar"), not a rule cull uses. For every
(original, edited copy) pair of each corpus's truth.csv and every negative (a similar shot or a
look-alike, paired with its scene's original), it takes the two 32x32 layout thumbnails that
`cull run` stored, aligns them by brute force (every window of one side, in 5% steps from half
the frame to all of it, then coordinate descent to 0.5%; both directions, with and without
mirroring; distance: mean rank difference), and then measures what differs:

  1. the aligned window's gray levels mapped onto the other's histogram (so tone, contrast and
     colour-to-gray edits cancel),
  2. each cell's difference to the closest of the other's 3x3 neighbouring cells (so a misfit
     of one cell, a crop's or a rotation's, cancels),
  3. the largest connected blob of cells changed by more than TAU levels that touches no cell
     of the outer EDGE band (overlays at edges, captions and borders, are left out):
     its share of the frame.

A subject that moved or was lit differently should leave a blob; an edit should not. Prints,
per edit, the blob share's quantiles (min, 10%, median, 90%, max) and the fraction of pairs at
0.01 / 0.02 / 0.03 of the frame or more.

Usage: bench/local-change.py CORPUS_DIR:DB.sqlite [...]     (needs numpy and scipy; the
corpora and databases as bench/analysed-corpora.sh makes them). About 10 minutes per corpus.
"""
import csv, collections, os, sqlite3, sys
import numpy as np
from scipy.ndimage import label, map_coordinates

N = 32
TAUS = (12, 16, 20, 24)
EDGES = (1, 2)


def load(corpus, db):
    thumbnails = {}
    with sqlite3.connect(db) as con:
        for path, blob in con.execute("SELECT p.path, f.thumbnail FROM photos p JOIN photo_features f ON f.photo_id = p.id WHERE p.status = 'analysed'"):
            if blob and len(blob) == N * N:
                thumbnails[os.path.relpath(path, corpus)] = np.frombuffer(blob, np.uint8).reshape(N, N).astype(np.float32)
    with open(os.path.join(corpus, "truth.csv")) as fh:
        truth = {r["path"]: (r["group"], r["transform"]) for r in csv.DictReader(fh)}
    return thumbnails, truth


def sample(image, x, y, w, h):
    """Bilinear samples of window (x, y, w, h), in fractions of the frame, at N x N cell centres."""
    centres = (np.arange(N) + 0.5) / N
    ys, xs = np.meshgrid((y + centres * h) * N - 0.5, (x + centres * w) * N - 0.5, indexing="ij")
    return map_coordinates(image, [ys, xs], order=1, mode="nearest")


def ranks(values):
    flat = values.ravel()
    order = np.argsort(flat, kind="stable")
    out = np.empty_like(flat)
    out[order] = np.arange(flat.size) / flat.size
    return out


def distance(a, b):
    return float(np.mean(np.abs(ranks(a) - ranks(b))))


def windows(step):
    out = []
    for w in np.arange(0.5, 1.0001, step):
        for h in np.arange(0.5, 1.0001, step):
            for x in np.arange(0, 1 - w + 1e-6, step):
                for y in np.arange(0, 1 - h + 1e-6, step):
                    out.append((x, y, w, h))
    return out


COARSE = windows(0.05)


def align(a, b):
    """The window of a that best matches all of b: (distance, window)."""
    best, window = min((distance(sample(a, *w), b), w) for w in COARSE)
    window, step = list(window), 0.025
    while step >= 0.005:
        improved = False
        for k in range(4):
            for sign in (-1, 1):
                trial = list(window)
                trial[k] += sign * step
                if min(trial[0], trial[1]) < 0 or min(trial[2], trial[3]) < 0.45 or trial[0] + trial[2] > 1.0001 or trial[1] + trial[3] > 1.0001:
                    continue
                d = distance(sample(a, *trial), b)
                if d < best:
                    best, window, improved = d, trial, True
        if not improved:
            step /= 2
    return best, tuple(window)


def tone_matched(a, b):
    """a's values replaced by b's at the same rank: any monotone tone change cancels."""
    flat = a.ravel()
    out = np.empty_like(flat)
    out[np.argsort(flat, kind="stable")] = np.sort(b.ravel())
    return out.reshape(a.shape)


def tolerant_difference(a, b):
    padded = np.pad(b, 1, mode="edge")
    return np.min([np.abs(a - padded[1 + dy:1 + dy + N, 1 + dx:1 + dx + N]) for dy in (-1, 0, 1) for dx in (-1, 0, 1)], axis=0)


def largest_inner_blob(a, b, tau, edge):
    matched = tone_matched(a, b)
    change = np.maximum(tolerant_difference(matched, b), tolerant_difference(b, matched))
    labels, count = label(change > tau, structure=np.ones((3, 3)))
    best = 0.0
    for i in range(1, count + 1):
        ys, xs = np.nonzero(labels == i)
        if ys.min() < edge or xs.min() < edge or ys.max() >= N - edge or xs.max() >= N - edge:
            continue
        best = max(best, ys.size / (N * N))
    return best


def aligned_pairs(corpus, db):
    thumbnails, truth = load(corpus, db)
    originals = {g: p for p, (g, t) in truth.items() if t == "original"}
    for path, (group, transform) in sorted(truth.items()):
        if transform == "original":
            continue
        negative = group not in originals
        original = originals.get(group.split("#")[0] if negative else group)
        if original not in thumbnails or path not in thumbnails:
            continue
        a, b = thumbnails[original], thumbnails[path]
        best = None
        for mirrored in (False, True):
            bm = b[:, ::-1] if mirrored else b
            d, w = align(a, bm)
            if best is None or d < best[0]:
                best = (d, sample(a, *w), bm)
            d, w = align(bm, a)
            if d < best[0]:
                best = (d, a, sample(bm, *w))
        yield transform, negative, best[1], best[2]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    pairs = []
    for spec in sys.argv[1:]:
        corpus, db = spec.split(":", 1)
        pairs += list(aligned_pairs(corpus, db))
    for tau in TAUS:
        for edge in EDGES:
            print(f"local-change tau {tau} levels, edge band {edge} cells: blob share min / 10% / median / 90% / max; pairs at >= 0.01 / 0.02 / 0.03")
            by_edit = collections.defaultdict(list)
            for transform, negative, a, b in pairs:
                by_edit[(negative, transform)].append(largest_inner_blob(a, b, tau, edge))
            for (negative, transform), shares in sorted(by_edit.items()):
                shares = np.array(shares)
                quantiles = " ".join(f"{q:.3f}" for q in np.quantile(shares, [0, 0.1, 0.5, 0.9, 1]))
                at = " ".join(f"{np.mean(shares >= level):.2f}" for level in (0.01, 0.02, 0.03))
                print(f"  {transform:22s} {'negative' if negative else 'edit':8s} n={len(shares):3d}  {quantiles}  |  {at}")


if __name__ == "__main__":
    main()
