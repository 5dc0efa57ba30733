#!/usr/bin/env python3
"""Exports the features cull stored for real, analysed photos as the model the grouping
benchmark draws its rows from (bench/grouping.sh).

Usage: bench/feature-model.py OUT.json CORPUS_DIR:DB.sqlite [CORPUS_DIR:DB.sqlite ...]

Each CORPUS_DIR has a truth.csv (path,group,transform; ../shared/corpus/build-corpus.py or
bench/holdout-corpus.py) and DB is the database of a `cull run CORPUS_DIR/photos --db DB`. For
every analysed photo of the truth file the model keeps its whole-frame pHash, its window
pHashes, its 32x32 layout thumbnail, its 16x16 chroma layout (none for grayscale files), its
64x64 detail layout (pipeline 8; none for photos without fine texture), its
mirror pHash, its content box and content pHash (if it has borders), its width and height
(oriented), the analysis pipeline that computed them, its truth group and its transform
("original" for the photo the others were made from). The benchmark uses the originals as the statistics of
distinct photos (bit balance, how windows relate to frames, thumbnails) and every (original,
edited copy) pair as an edit family to plant: the copy's features differ from its
original's exactly as the real edit made them differ.
"""
import base64, csv, json, os, sqlite3, struct, sys


def rows(corpus, db):
    truth = {r["path"]: r for r in csv.DictReader(open(os.path.join(corpus, "truth.csv")))}
    con = sqlite3.connect(db)
    out = []
    for path, phash, windows, thumbnail, mirror, box, content, chroma, detail, width, height, pipeline in con.execute(
            "SELECT p.path, p.phash, f.window_phashes, f.thumbnail, f.mirror_phash, f.content_box, f.content_phash, f.chroma, f.detail, "
            "p.width, p.height, p.pipeline_version "
            "FROM photos p JOIN photo_features f ON f.photo_id = p.id WHERE p.status = 'analysed'"):
        rel = os.path.relpath(path, corpus)
        if rel not in truth or windows is None or thumbnail is None:
            continue
        t = truth[rel]
        out.append({
            "corpus": os.path.basename(os.path.normpath(corpus)),
            "group": t["group"],
            "transform": t["transform"],
            "phash": phash & 0xFFFFFFFFFFFFFFFF,
            "windows": list(struct.unpack("<%dQ" % (len(windows) // 8), windows)),
            "thumbnail": base64.b64encode(thumbnail).decode(),
            "chroma": base64.b64encode(chroma).decode() if chroma else None,
            "detail": base64.b64encode(detail).decode() if detail else None,
            "mirror": (mirror or 0) & 0xFFFFFFFFFFFFFFFF,
            "content": None if content is None or box is None else content & 0xFFFFFFFFFFFFFFFF,
            "content_box": None if box is None else list(struct.unpack("<4f", box)),
            "width": width,
            "height": height,
            "pipeline": pipeline,
        })
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    photos = []
    for spec in sys.argv[2:]:
        corpus, db = spec.split(":", 1)
        photos += rows(corpus, db)
    originals = sum(1 for p in photos if p["transform"] == "original")
    json.dump({"photos": photos}, open(sys.argv[1], "w"))
    print(f"{len(photos)} photos, {originals} originals -> {sys.argv[1]}", file=sys.stderr)


if __name__ == "__main__":
    main()
