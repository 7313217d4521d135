#!/usr/bin/env bash
# Build the local Python image that the docker/podman sandbox backend runs model-written code in.
#
# No container registry is needed: the root file system is assembled from the host's own Debian
# packages of Python (python3.11-minimal, libpython3.11-minimal, libpython3.11-stdlib) plus the shared
# libraries they link against, then loaded with `podman import` (or `docker import`).
#
# Usage: sandbox/build_image.sh [IMAGE_NAME]
#   IMAGE_NAME defaults to localhost/small-llm-bench-sandbox:py3.11 (what the engine looks for).
#   SANDBOX_ENGINE=podman|docker picks the CLI (default: podman if installed, else docker).
#   CONTAINER_HOST / DOCKER_HOST are honoured by the CLI as usual.
# Needs: a Debian or Ubuntu host with `apt-get install python3.11-minimal libpython3.11-stdlib` done
# (they are there whenever Debian's python3 is), and podman or docker.
set -euo pipefail

IMAGE="${1:-localhost/small-llm-bench-sandbox:py3.11}"
PYVER="${SANDBOX_PYVER:-3.11}"
ENGINE="${SANDBOX_ENGINE:-}"
if [[ -z "$ENGINE" ]]; then
    if command -v podman >/dev/null 2>&1; then ENGINE=podman
    elif command -v docker >/dev/null 2>&1; then ENGINE=docker
    else echo "build_image.sh: neither podman nor docker found (apt-get install -y podman)" >&2; exit 2
    fi
fi
PKGS=("python${PYVER}-minimal" "libpython${PYVER}-minimal" "libpython${PYVER}-stdlib")
for p in "${PKGS[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        echo "build_image.sh: Debian package $p is not installed (apt-get install -y $p)" >&2
        exit 2
    fi
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/sllmb-image.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
ROOT="$WORK/rootfs"
mkdir -p "$ROOT"/{usr/bin,usr/lib,usr/lib64,etc,tmp,scratch,proc,dev,sys}
chmod 1777 "$ROOT/tmp" "$ROOT/scratch"
# Merged-/usr layout, as on current Debian.
ln -s usr/bin "$ROOT/bin"; ln -s usr/lib "$ROOT/lib"; ln -s usr/lib64 "$ROOT/lib64"; ln -s usr/bin "$ROOT/sbin"

copy_path() {  # copy one host path (file or symlink) into the rootfs at the same place
    local src="$1"
    [[ -e "$src" || -L "$src" ]] || return 0
    [[ -d "$src" && ! -L "$src" ]] && { mkdir -p "$ROOT$src"; return 0; }
    mkdir -p "$ROOT$(dirname "$src")"
    cp -a "$src" "$ROOT$src"
    if [[ -L "$src" ]]; then copy_path "$(readlink -f "$src")"; fi
}

# 1. The interpreter and its standard library, minus documentation and test suites.
for p in "${PKGS[@]}"; do
    dpkg -L "$p" | grep -Ev '^/usr/share/(doc|man|lintian)|/test/|/idlelib/|/tkinter/|/ensurepip/' \
        | while read -r f; do copy_path "$f"; done
done
ln -sf "python${PYVER}" "$ROOT/usr/bin/python3"

# 2. The shared libraries the interpreter and its extension modules link against (ldd closure).
find "$ROOT/usr" -type f \( -name "python${PYVER}" -o -name '*.so*' \) -print0 \
    | { xargs -0 ldd 2>/dev/null || true; } \
    | sed -nE 's@^[[:space:]]+([^ ]+ => )?(/[^ ]+) \(0x.*@\2@p' | sort -u \
    | while read -r lib; do copy_path "$lib"; done
# The dynamic loader itself, under the name the binaries ask for.
for ld in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1; do copy_path "$ld"; done
ldconfig -r "$ROOT" 2>/dev/null || true

# 3. Users: the code runs as nobody (65534); no password hashes anywhere.
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/scratch:/usr/sbin/nologin\n' \
    > "$ROOT/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$ROOT/etc/group"

# Smoke test before import: the copied interpreter runs with only the rootfs libraries.
if command -v chroot >/dev/null 2>&1 && [[ "$(id -u)" == 0 ]]; then
    chroot "$ROOT" /usr/bin/python3 -I -c 'import ctypes, json, subprocess, sqlite3' \
        || { echo "build_image.sh: the assembled interpreter does not start" >&2; exit 1; }
fi

tar --numeric-owner -C "$ROOT" -cf "$WORK/rootfs.tar" .
"$ENGINE" import \
    --change 'USER 65534:65534' \
    --change 'WORKDIR /scratch' \
    --change 'ENV PATH=/usr/bin:/bin' \
    --change 'CMD ["/usr/bin/python3"]' \
    "$WORK/rootfs.tar" "$IMAGE" >/dev/null
echo "built $IMAGE with $ENGINE ($(du -sh "$ROOT" | cut -f1) root file system)"
