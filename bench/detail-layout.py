#!/usr/bin/env python3
"""What a 64x64 layout buys the judge on fine texture (a design measurement, not cull's code).

Two measures, on corpora in ../shared/corpus's layout (truth.csv with path, group, transform):

1. For every file, DetailLayout's test: for each of four windows (the whole frame, the 80%
   centre, the 90% windows at the top left and in the centre), 12x12 area averages of the window
   from the file's 32x32 thumbnail and from its 64x64 plane; the root mean square of their
   differences over the standard deviation of the plane's (at least 1 gray level); the largest
   of the four. Printed: the highest files, and how many pass each share.
2. For every crop whose geometry is known (GEO below), the judge's comparison of the crop's
   whole frame with the original's window under it (ranks of 12x12 cells, mean absolute rank
   difference of the best 90% of cells, LayoutThumbnail.difference without the flat-area rule)
   when both are resampled from 32x32 thumbnails and from 64x64 planes. The window limit is 0.06.

Thumbnails and planes are area averages of the whole file, rounded (cull's worker takes them
from the decoder's reduced image, short side at least 256: the same up to rounding).

Usage: python3 bench/detail-layout.py CORPUS...   (needs pillow, pillow-heif, numpy, scipy)
bench/RESULTS.md, "A detail layout for fine texture".
"""
import csv, os, sys, numpy as np
from PIL import Image
from scipy.stats import rankdata
import pillow_heif; pillow_heif.register_heif_opener()

# transform: window of the original under the crop's whole frame (x, y, width, height)
GEO = {'crop10': (.1, .1, .8, .8), 'webp_crop10': (.1, .1, .8, .8), 'crop5': (.05, .05, .9, .9),
       'crop3_left': (.03, 0, .97, 1), 'crop_asym': (.07, .02, .92, .92), 'crop22_top': (0, .22, 1, .78),
       'crop15_two': (.15, 0, .85, .9)}
PROBES = [(0, 0, 1, 1), (.1, .1, .8, .8), (0, 0, .9, .9), (.05, .05, .9, .9)]

def averaging(start, span, size, n):
    """n x size matrix: row i averages the i-th n-th of [start, start + span) (fractions of size)."""
    m = np.zeros((n, size)); edges = (start + span * np.arange(n + 1) / n) * size
    for i in range(n):
        a, b = edges[i], edges[i + 1]
        for p in range(int(a), min(size, int(np.ceil(b)))):
            m[i, p] = max(0.0, min(b, p + 1) - max(a, p))
        m[i] /= b - a
    return m

def plane(path, side):
    image = np.asarray(Image.open(path).convert('L'), dtype=float)
    h, w = image.shape
    return np.round(averaging(0, 1, h, side) @ image @ averaging(0, 1, w, side).T)

def cells(p, window, n=12):
    x, y, w, h = window; side = p.shape[0]
    return averaging(y, h, side, n) @ p @ averaging(x, w, side, n).T

def difference(a, b):
    ra = (rankdata(a.ravel()) - 1) / (a.size - 1); rb = (rankdata(b.ravel()) - 1) / (b.size - 1)
    d = np.sort(np.abs(ra - rb)); return d[:int(round(d.size * 0.9))].mean()

def misstatement(path):
    fine = plane(path, 64); coarse = np.round(fine.reshape(32, 2, 32, 2).mean(axis=(1, 3)))
    worst = 0.0
    for window in PROBES:
        exact, resampled = cells(fine, window), cells(coarse, window)
        worst = max(worst, np.sqrt(((exact - resampled) ** 2).mean()) / max(exact.std(), 1.0))
    return worst

scores, crops = [], []
for root in sys.argv[1:]:
    rows = list(csv.DictReader(open(os.path.join(root, 'truth.csv'))))
    originals = {r['group']: os.path.join(root, r['path']) for r in rows if r['transform'] == 'original'}
    for r in rows:
        path = os.path.join(root, r['path'])
        scores.append((misstatement(path), r['group'], r['transform']))
        if r['transform'] in GEO and r['group'] in originals:
            original = originals[r['group']]
            pair = []
            for side in (32, 64):
                pair.append(difference(cells(plane(original, side), GEO[r['transform']]), cells(plane(path, side), (0, 0, 1, 1))))
            crops.append((pair[0], pair[1], r['group'], r['transform']))
scores.sort(reverse=True)
print('highest misstatements (file: share):')
for score, group, transform in scores[:30]:
    print(f'  {score:.3f}  {group} {transform}')
print(f'{len(scores)} files; ' + ', '.join(f'past {t}: {sum(s > t for s, _, _ in scores)}' for t in (0.10, 0.15, 0.20, 0.25)))
print('crops against their original\'s window, from 32x32 and from 64x64 (limit 0.06), worst first:')
crops.sort(reverse=True)
for d32, d64, group, transform in crops[:25]:
    print(f'  {d32:.3f} -> {d64:.3f}  {group} {transform}')
print(f'{len(crops)} crops; past 0.06 from 32x32: {sum(c[0] > 0.06 for c in crops)}, from 64x64: {sum(c[1] > 0.06 for c in crops)}')
