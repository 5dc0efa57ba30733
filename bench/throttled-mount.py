#!/usr/bin/env python3
"""A read-only FUSE passthrough that reads like a NAS over 1 GbE: every read request waits a
fixed latency (default 1 ms) and all requests share one bandwidth (default 110 MB/s, a token
bucket). It counts the bytes and requests it served; reading MOUNT/.nas-stats returns them as
"bytes REQUESTS" (the file is not listed). Used by bench/nas.sh.

    python3 bench/throttled-mount.py SOURCE MOUNT [--rate 110e6] [--latency 0.001]

Runs in the foreground until unmounted (fusermount -u MOUNT). Needs fusepy (pip) and libfuse2
(Debian's fuse and libfuse2 packages); bench/nas.sh installs them.
"""
import argparse, errno, os, threading, time

from fuse import FUSE, FuseOSError, Operations

STATS = "/.nas-stats"


class Bucket:
    """Bandwidth shared by every request: a request of n bytes waits until n tokens are there."""

    def __init__(self, rate, burst):
        self.rate, self.burst = rate, burst
        self.tokens, self.last = burst, time.monotonic()
        self.lock = threading.Lock()

    def take(self, n):
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
            self.last = now
            self.tokens -= n
            wait = -self.tokens / self.rate if self.tokens < 0 else 0
        if wait > 0:
            time.sleep(wait)


class Throttled(Operations):
    def __init__(self, root, rate, latency):
        self.root, self.latency = os.path.realpath(root), latency
        self.bucket = Bucket(rate, burst=256 * 1024)
        self.counting = threading.Lock()  # not "lock": fusepy calls attributes by operation name
        self.bytes = self.requests = 0

    def _path(self, path):
        return os.path.join(self.root, path.lstrip("/"))

    def _stats(self):
        with self.counting:
            return f"{self.bytes} {self.requests}\n".encode()

    def getattr(self, path, fh=None):
        if path == STATS:
            return {"st_mode": 0o100444, "st_nlink": 1, "st_size": 64, "st_mtime": time.time(), "st_atime": time.time(), "st_ctime": time.time()}
        try:
            st = os.lstat(self._path(path))
        except OSError as error:
            raise FuseOSError(error.errno)
        return {key: getattr(st, key) for key in ("st_mode", "st_nlink", "st_size", "st_uid", "st_gid", "st_atime", "st_mtime", "st_ctime")}

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._path(path))

    def open(self, path, flags):
        if flags & (os.O_WRONLY | os.O_RDWR):
            raise FuseOSError(errno.EROFS)
        if path == STATS:
            return 0
        return os.open(self._path(path), os.O_RDONLY)

    def read(self, path, size, offset, fh):
        if path == STATS:
            return self._stats()[offset:offset + size]
        time.sleep(self.latency)
        self.bucket.take(size)
        data = os.pread(fh, size, offset)
        with self.counting:
            self.bytes += len(data)
            self.requests += 1
        return data

    def release(self, path, fh):
        if path != STATS:
            os.close(fh)
        return 0

    def statfs(self, path):
        st = os.statvfs(self.root)
        return {key: getattr(st, key) for key in ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files", "f_flag", "f_frsize", "f_namemax")}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("mount")
    parser.add_argument("--rate", type=float, default=110e6, help="bytes per second, all requests together")
    parser.add_argument("--latency", type=float, default=0.001, help="seconds each read request waits")
    args = parser.parse_args()
    FUSE(Throttled(args.source, args.rate, args.latency), args.mount, foreground=True, ro=True, nothreads=False, allow_other=False)
