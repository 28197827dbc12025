#!/bin/sh
# The JRE base ContainerImagesIT builds both Dockerfiles on (podman build --from): a minimal Debian
# bookworm with openjdk-17-jre-headless from Debian's own packages, imported into podman's store.
# Made once per machine (about 4 to 7 minutes, most of it downloading and configuring packages);
# a no-op when it exists. It runs under a lock, so that CI can start it early, beside the build,
# and the test that needs it waits for that run instead of making a second one.
#   local/src/test/sh/jre-base.sh       prints the image's name (its last line)
#   TURNSTILE_DEBIAN_MIRROR   the Debian mirror (default http://deb.debian.org/debian)
# Needs root, podman and debootstrap.
set -eu
image=localhost/turnstile-debian-jre17:local
work=/var/tmp/turnstile-jre-base
mkdir -p "$work"
exec 9>/var/lock/turnstile-jre-base.lock
flock 9
if ! podman image exists "$image"; then
  rm -rf "$work/rootfs"
  debootstrap --variant=minbase --include=openjdk-17-jre-headless bookworm "$work/rootfs" \
    "${TURNSTILE_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$work/debootstrap.log" 2>&1 ||
    { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
  tar -C "$work/rootfs" -c . | podman import - "$image" >>"$work/debootstrap.log" 2>&1
  rm -rf "$work/rootfs"
fi
echo "$image"
