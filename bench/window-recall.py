#!/usr/bin/env python3
"""Which window hashes candidate search needs, measured on really analysed photos.

Usage: bench/window-recall.py CORPUS_DIR:DB.sqlite [CORPUS_DIR:DB.sqlite ...]

Each CORPUS_DIR has a truth.csv and DB is the database of `cull run CORPUS_DIR/photos --db DB`
(as for bench/feature-model.py). For every (original, edited copy) pair of a truth group the
script computes what candidate search can see of the pair:

- frame: the whole-frame pHash distance;
- crop(S): the smallest distance between one photo's whole frame and a window in S of the
  other's, either way round (the copy is a crop of the original, or the original of the copy,
  as when a border was added);
- overlay(S): the smallest distance between the same window in S of both.

and prints, for each search plan (which windows are probed, at which radius), how many pairs
of each edit are within reach of the plan. Candidate search costs about (windows probed) x
(probes at that radius), so the plan to keep is the cheapest one that loses nothing that the
full plan (all 50 windows at 8 bits) finds.
"""
import csv, os, sqlite3, struct, sys
from collections import defaultdict

GRID90 = list(range(25))          # 90% windows, offsets 0..10% in 2.5% steps, row by row
GRID80 = list(range(25, 50))      # 80% windows, offsets 0..20% in 5% steps


def grid(base, steps):
    """Windows of one grid at the given offset steps (0..4) in both directions."""
    return [base + row * 5 + column for row in steps for column in steps]


WINDOW_SETS = {
    "all 50": GRID90 + GRID80,
    "90% 5x5": GRID90,
    "80% 5x5": GRID80,
    "90% 3x3 + 80% 3x3": grid(0, [0, 2, 4]) + grid(25, [0, 2, 4]),
    "90% 3x3 + 80% 5x5": grid(0, [0, 2, 4]) + GRID80,
    "90% 5x5 + 80% 3x3": GRID90 + grid(25, [0, 2, 4]),
    "90% 3x3": grid(0, [0, 2, 4]),
    "90% centre + 80% centre": [12, 37],
}
OVERLAY_SETS = {
    "9 (90% on the 5% grid)": grid(0, [0, 2, 4]),
    "4 corners": [0, 4, 20, 24],
}


def hamming(a, b):
    return bin(a ^ b).count("1")


def load(corpus, db):
    truth = {r["path"]: r for r in csv.DictReader(open(os.path.join(corpus, "truth.csv")))}
    con = sqlite3.connect(db)
    photos = []
    for path, phash, windows in con.execute(
            "SELECT p.path, p.phash, f.window_phashes FROM photos p "
            "JOIN photo_features f ON f.photo_id = p.id WHERE p.status = 'analysed'"):
        rel = os.path.relpath(path, corpus)
        if rel not in truth or windows is None:
            continue
        t = truth[rel]
        photos.append((t["group"], t["transform"], phash & 0xFFFFFFFFFFFFFFFF,
                       struct.unpack("<%dQ" % (len(windows) // 8), windows)))
    return photos


def pairs(photos):
    by_group = defaultdict(list)
    for p in photos:
        by_group[p[0]].append(p)
    for members in by_group.values():
        originals = [p for p in members if p[1] == "original"]
        for o in originals:
            for c in members:
                if c is not o and c[1] != "original":
                    yield o, c


def crop_distance(a, b, windows):
    return min(min(hamming(a[2], b[3][k]), hamming(b[2], a[3][k])) for k in windows)


def overlay_distance(a, b, windows):
    return min(hamming(a[3][k], b[3][k]) for k in windows)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    found = []
    for spec in sys.argv[1:]:
        corpus, db = spec.split(":", 1)
        name = os.path.basename(os.path.normpath(corpus))
        for o, c in pairs(load(corpus, db)):
            found.append((f"{name}/{c[1]}", o, c))
    edits = sorted({e for e, _, _ in found})

    plans = []
    for wname, windows in WINDOW_SETS.items():
        for radius in (8, 6, 5, 4):
            plans.append((f"crops {wname} <= {radius}", lambda o, c, w=windows, r=radius: crop_distance(o, c, w) <= r))
    for oname, windows in OVERLAY_SETS.items():
        for radius in (8, 6, 4):
            plans.append((f"overlays {oname} <= {radius}", lambda o, c, w=windows, r=radius: overlay_distance(o, c, w) <= r))
    plans.append(("frames <= 10", lambda o, c: hamming(o[2], c[2]) <= 10))

    frame_reach = {id(c): hamming(o[2], c[2]) <= 10 for _, o, c in found}
    print("plan | pairs within reach (of %d) | of those the frames miss | edits short of all" % len(found))
    for name, reach in plans:
        within = [(e, o, c) for e, o, c in found if reach(o, c)]
        extra = sum(1 for _, o, c in within if not frame_reach[id(c)])
        per_edit = defaultdict(lambda: [0, 0])
        for e, o, c in found:
            per_edit[e][1] += 1
            if reach(o, c) or frame_reach[id(c)]:
                per_edit[e][0] += 1
        short = ", ".join(f"{e} {w}/{n}" for e, (w, n) in sorted(per_edit.items()) if w < n)
        print(f"{name} | {len(within)} | {extra} | {short}")

    print("\ndistance of the best window (all 50, either way) for pairs the frames miss, by edit:")
    for e in edits:
        ds = sorted(crop_distance(o, c, WINDOW_SETS["all 50"]) for ee, o, c in found if ee == e and not frame_reach[id(c)])
        if ds:
            print(f"  {e}: {ds}")


if __name__ == "__main__":
    main()
