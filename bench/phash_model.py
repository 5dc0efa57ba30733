"""cull's pHash in numpy, for the benchmarks that measure window geometry on hashes alone
(bench/straightened-recall.py, bench/free-crop-recall.py): 32x32 area averages of the gray
image, the 8x8 lowest DCT frequencies against their median; equal to `PerceptualHash.pHash`
bit for bit on an unturned frame."""
import numpy as np
from PIL import Image

SIDE = 32
_k = np.arange(SIDE)
BASIS = np.cos(np.pi * (2 * _k[None, :] + 1) * _k[:, None] / (2 * SIDE))[:8]


def phash(cells):
    low = (BASIS @ cells @ BASIS.T).flatten()
    median = np.median(low)
    value = 0
    for coefficient in low:
        value = value << 1 | (1 if coefficient > median else 0)
    return value


def window(gray, x, y, w, h):
    """The box (fractions of the frame) of a gray PIL image, area-averaged to SIDE x SIDE."""
    W, H = gray.size
    part = gray.crop((round(x * W), round(y * H), round((x + w) * W), round((y + h) * H)))
    return np.asarray(part.resize((SIDE, SIDE), Image.BOX), dtype=np.float64)
