#!/usr/bin/env python3
"""Wall time and peak RSS of a whole process tree: how the end-to-end figures are measured.

Usage: python3 bench/tree-measure.py OUT -- COMMAND [ARGS...]

Runs COMMAND with its standard output in OUT (standard error in OUT.err), samples the RSS of
the command and every process under it every 0.25 s (`cull run` starts its coordinator's
workers as child processes: the issue's memory line is for all of them together), and prints
the exit status, the wall time, the peak of the tree's summed RSS, the peak of the command's
own, and the blocks the tree read and wrote (from the children's rusage). For example, the
end-to-end library, page cache dropped first (bench/RESULTS.md, "End to end"):

    sync; echo 3 > /proc/sys/vm/drop_caches
    python3 bench/tree-measure.py /tmp/e2e.csv -- .build/release/cull run /tmp/e2e --db NEW.sqlite --format csv
"""
import os
import resource
import subprocess
import sys
import time


def children_by_parent():
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                # The command name may hold spaces and parentheses: the fields after its last ')'.
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # the process ended while being read
        parents.setdefault(parent, []).append(int(entry))
    return parents


def tree(root):
    parents, todo, found = children_by_parent(), [root], []
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += parents.get(pid, [])
    return found


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit("usage: tree-measure.py OUT -- COMMAND [ARGS...]")
    out, command = sys.argv[1], sys.argv[3:]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    with open(out, "w") as stdout, open(out + ".err", "w") as stderr:
        process = subprocess.Popen(command, stdout=stdout, stderr=stderr)
        peak_tree = peak_top = 0
        while process.poll() is None:
            peak_tree = max(peak_tree, sum(rss_kib(pid) for pid in tree(process.pid)))
            peak_top = max(peak_top, rss_kib(process.pid))
            time.sleep(0.25)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"rc {process.returncode} wall {wall:.3f} s, peak tree {peak_tree / 1024:.0f} MiB, top {peak_top / 1024:.0f} MiB, "
          f"block writes {(after.ru_oublock - before.ru_oublock) * 512 / 1e6:.1f} MB, "
          f"reads {(after.ru_inblock - before.ru_inblock) * 512 / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
