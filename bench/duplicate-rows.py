#!/usr/bin/env python3
"""The exact and near rows of `cull run --format csv` (similar groups left out: they never count
as duplicates), as ../shared/corpus/score.py reads them.

Usage: bench/duplicate-rows.py PREDICTED.csv OUT.csv
"""
import csv, sys

predicted, duplicates = sys.argv[1:3]
with open(duplicates, "w", newline="") as fh:
    out = csv.DictWriter(fh, fieldnames=["group", "kind", "path", "keeper", "distance"], extrasaction="ignore")
    out.writeheader()
    out.writerows(r for r in csv.DictReader(open(predicted)) if r["kind"] != "similar")
