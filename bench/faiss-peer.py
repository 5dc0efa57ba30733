#!/usr/bin/python3
"""FAISS's binary indexes on the frame hashes the candidate-search benchmark wrote.

Usage: /usr/bin/python3 bench/faiss-peer.py FRAMES.u64 [--radius 10] [--floor-max 300000]
                                             [--queries 100000] [--threads N]

FRAMES.u64 is what CandidateSearchBenchmark writes when CULL_BENCH_FRAMES_OUT names a file
(bench/grouping.sh candidates does): the realistic rows' frame pHashes, 8 bytes each, little
endian. The task is the one the benchmark times for the popcount floor and for cull's
multi-index hashing: every pair of frames within RADIUS bits. Each method prints its time and
its pair count in the benchmark's line format, so the lines sort in beside the Swift ones.
Above --floor-max rows the indexes hold every row but answer an even sample of --queries rows,
and the time and pairs printed are scaled to every row (FAISS's multi-index hashing took 100 s
for 300,000 queries here: a million would take the better part of an hour).

FAISS comes from Debian's python3-faiss (1.7.3): the same C++ library as libfaiss-dev, whose
C API headers ship without their implementation (libfaiss.a defines no faiss_* symbol), so
cull could only link it through a C++ shim of its own. A batch range search is one call into
the C++ code, so Python adds nothing measurable to these times. HNSW answers k-nearest
queries only (no range search), so it has no line here.
"""
import argparse
import sys
import time

import numpy as np

try:
    import faiss
except ImportError:
    sys.exit("faiss-peer: no faiss module for this Python; on Debian: apt-get install python3-faiss "
             "(and run this script with /usr/bin/python3)")


def pairs_from(lims, count):
    # Each query finds itself and each pair twice (a finds b, b finds a).
    return (int(lims[count]) - count) // 2


def timed(body):
    start = time.perf_counter()
    value = body()
    return value, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("frames")
    parser.add_argument("--radius", type=int, default=10)
    parser.add_argument("--floor-max", type=int, default=300_000,
                        help="IndexBinaryFlat (every pair's popcount) only up to this many rows, as the Swift floor")
    parser.add_argument("--queries", type=int, default=100_000,
                        help="above --floor-max rows, how many rows (evenly spread) query the indexes; times and pairs scaled")
    parser.add_argument("--threads", type=int, default=0, help="OpenMP threads (default: every core)")
    args = parser.parse_args()

    frames = np.fromfile(args.frames, dtype="<u8")
    count = len(frames)
    codes = np.ascontiguousarray(frames.view(np.uint8).reshape(count, 8))
    if args.threads:
        faiss.omp_set_num_threads(args.threads)
    threads = faiss.omp_get_max_threads()
    # FAISS's binary range search keeps distances strictly below its radius.
    below = args.radius + 1

    # Every row queries up to --floor-max rows; above, an even sample, scaled.
    step = 1 if count <= args.floor_max else -(-count // args.queries)
    queries = codes[::step]
    sampled = f" ({len(queries)} of {count} rows querying, scaled)" if step > 1 else ""

    def search(index):
        """Pairs within the radius, from the queries' results, and the seconds it took, both
        scaled to every row querying."""
        (lims, _, _), seconds = timed(lambda: index.range_search(queries, below))
        if step == 1:
            return pairs_from(lims, count), seconds
        # Each sampled row finds itself and its partners; every pair is found from both sides.
        return round((int(lims[len(queries)]) - len(queries)) * count / len(queries) / 2), seconds * count / len(queries)

    def say(method, seconds, pairs):
        print(f"candidates n={count}: FAISS {faiss.__version__} {method}, {threads} threads{sampled}: "
              f"{seconds:.2f} s, {pairs} pairs", flush=True)

    exact = None
    if count <= args.floor_max:
        index = faiss.IndexBinaryFlat(64)
        index.add(codes)
        exact, seconds = search(index)
        say("IndexBinaryFlat (every pair's popcount): query", seconds, exact)
        del index
    else:
        print(f"candidates n={count}: FAISS IndexBinaryFlat not run above {args.floor_max} rows (n² pairs)", flush=True)

    # Multi-index hashing: nhash tables of b bits; probing every key within nflip bits of the
    # query's is exact when nflip ≥ ⌊radius / nhash⌋ (pigeonhole over the pieces).
    for nhash, bits in [(4, 16), (3, 21)]:
        index = faiss.IndexBinaryMultiHash(64, nhash, bits)
        index.nflip = args.radius // nhash
        _, build = timed(lambda: index.add(codes))
        pairs, seconds = search(index)
        say(f"IndexBinaryMultiHash {nhash}×{bits} bits, nflip {index.nflip} (exact): build {build:.2f} s, query", seconds, pairs)
        if exact is not None and pairs != exact:
            print(f"faiss-peer: IndexBinaryMultiHash found {pairs} pairs against {exact}", file=sys.stderr)
        exact = pairs if exact is None else exact
        del index

    # An inverted file over binary k-means: approximate, so its recall against the exact pairs.
    lists = 1024
    quantiser = faiss.IndexBinaryFlat(64)
    index = faiss.IndexBinaryIVF(quantiser, 64, lists)
    sample = codes[np.random.default_rng(1).choice(count, size=min(count, 64 * lists), replace=False)]
    _, train = timed(lambda: index.train(sample))
    index.add(codes)
    for probes in [8, 32]:
        index.nprobe = probes
        pairs, seconds = search(index)
        say(f"IndexBinaryIVF {lists} lists, nprobe {probes} (approximate: {pairs / max(1, exact):.3f} of the pairs): "
            f"train {train:.2f} s, query", seconds, pairs)


if __name__ == "__main__":
    main()
