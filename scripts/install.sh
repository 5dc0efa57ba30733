#!/usr/bin/env bash
# Installs cull as systemd services: the binaries, the units, an example configuration (an
# existing one is never overwritten), the `cull` user and group, and the folders they use.
#
# Usage: scripts/install.sh [--root DIR] [--build DIR] [--no-user]
#   --root DIR   install under DIR instead of / (packaging, tests); no systemctl then
#   --build DIR  where the binaries are (default .build/release: `swift build -c release` first)
#   --no-user    do not create the cull user and group (they exist, or DIR is not a system)
set -euo pipefail
cd "$(dirname "$0")/.."
root=/ build=.build/release make_user=1
while [ $# -gt 0 ]; do
  case $1 in
    --root) root=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --no-user) make_user=0; shift ;;
    *) echo "usage: scripts/install.sh [--root DIR] [--build DIR] [--no-user]" >&2; exit 64 ;;
  esac
done
for binary in cull cull-worker; do
  [ -x "$build/$binary" ] || { echo "install: $build/$binary is missing: run \`swift build -c release\` first" >&2; exit 1; }
done
root=${root%/}
install -d "$root/usr/local/bin" "$root/etc/systemd/system" "$root/etc/cull" "$root/etc/cull/authorized" "$root/var/lib/cull"
install -m 755 "$build/cull" "$build/cull-worker" "$root/usr/local/bin/"
install -m 644 deploy/cull.service deploy/cull-worker@.service "$root/etc/systemd/system/"
if [ -e "$root/etc/cull/cull.env" ]; then
  install -m 644 deploy/cull.env "$root/etc/cull/cull.env.example"
  echo "install: kept $root/etc/cull/cull.env; the new example is cull.env.example"
else
  install -m 644 deploy/cull.env "$root/etc/cull/cull.env"
fi
if [ "$make_user" = 1 ]; then
  getent group cull >/dev/null || groupadd --system cull
  id cull >/dev/null 2>&1 || useradd --system --gid cull --home-dir /var/lib/cull --shell /usr/sbin/nologin cull
  chown cull:cull "$root/var/lib/cull"
  # Keys: the daemon reads its secret key and the authorised folder as the cull user.
  chgrp cull "$root/etc/cull" "$root/etc/cull/authorized"
  chmod 750 "$root/etc/cull" "$root/etc/cull/authorized"
fi
if [ -z "$root" ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
  systemctl daemon-reload
fi
cat <<MSG
install: done. Next:
  edit ${root}/etc/cull/cull.env (library folders: CULL_WORKER_ROOTS, CULL_LIBRARY_ROOTS);
  cull serve --check-config and cull-worker --check-config print what the daemons will use
  for workers on other machines: keys (deploy/README.md, "More machines")
  systemctl enable --now cull cull-worker@1 cull-worker@2
  add people who may scan to group cull: usermod -aG cull NAME
MSG
