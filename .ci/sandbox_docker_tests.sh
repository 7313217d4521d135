#!/usr/bin/env bash
# Run the sandbox tests against a real container engine: Podman from Debian, driven by the `docker` SDK
# through Podman's Docker-compatible socket. Called by .ci/run when SANDBOX_DOCKER_TESTS=1; runs alone too.
#
# What it does: installs podman, runc and bubblewrap if missing (as root, with apt-get), writes a private
# containers.conf (runc as the runtime; explicit ulimits inside the host's hard limits), starts
# `podman system service` on a socket in a temp dir, builds the sandbox image if it is not there
# (sandbox/build_image.sh: no registry needed), then runs tests/sandbox with DOCKER_HOST pointing at it.
# Extra arguments go to pytest. SANDBOX_REBUILD=1 rebuilds the image even when it exists.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE="${SANDBOX_IMAGE:-localhost/small-llm-bench-sandbox:py3.11}"
PYTHON="${PYTHON:-python3}"

need=()
command -v podman >/dev/null 2>&1 || need+=(podman)
command -v runc >/dev/null 2>&1 || need+=(runc)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
if ((${#need[@]})); then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        apt-get install -y --no-install-recommends "${need[@]}" >/dev/null \
            || { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${need[@]}" >/dev/null; }
    else
        echo "sandbox_docker_tests: missing ${need[*]} (apt-get install -y ${need[*]})" >&2
        exit 2
    fi
fi

RUNDIR="$(mktemp -d "${TMPDIR:-/tmp}/sllmb-podman.XXXXXX")"
SERVICE_PID=""
cleanup() {
    if [[ -n "$SERVICE_PID" ]]; then kill "$SERVICE_PID" 2>/dev/null || true; wait "$SERVICE_PID" 2>/dev/null || true; fi
    rm -rf "$RUNDIR"
}
trap cleanup EXIT

hard_nofile="$(ulimit -Hn)"; hard_nproc="$(ulimit -Hu)"
[[ "$hard_nofile" == unlimited ]] && hard_nofile=1048576
[[ "$hard_nproc" == unlimited ]] && hard_nproc=1048576
nofile=$(( hard_nofile < 20000 ? hard_nofile : 20000 ))
nproc=$(( hard_nproc < 32768 ? hard_nproc : 32768 ))
cat > "$RUNDIR/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=${nproc}:${nproc}"]
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF="$RUNDIR/containers.conf"

SOCK="$RUNDIR/podman.sock"
# Started from the temp dir: conmon leaves an empty `oom` marker in its working directory when a container
# is OOM-killed (the memory test does that), and it should not land in the checkout.
(cd "$RUNDIR" && exec podman system service --time=0 "unix://$SOCK" >"$RUNDIR/service.log" 2>&1) &
SERVICE_PID=$!
for _ in $(seq 1 100); do [[ -S "$SOCK" ]] && break; sleep 0.1; done
[[ -S "$SOCK" ]] || { echo "sandbox_docker_tests: podman service did not start:" >&2; cat "$RUNDIR/service.log" >&2; exit 1; }

start=$(date +%s)
if [[ "${SANDBOX_REBUILD:-0}" == 1 ]] || ! podman image exists "$IMAGE"; then
    SANDBOX_ENGINE=podman sandbox/build_image.sh "$IMAGE"
    echo "sandbox_docker_tests: image built in $(( $(date +%s) - start )) s"
else
    echo "sandbox_docker_tests: image $IMAGE already present (SANDBOX_REBUILD=1 to rebuild)"
fi

export DOCKER_HOST="unix://$SOCK" SANDBOX_DOCKER_TESTS=1
start=$(date +%s)
"$PYTHON" -m pytest tests/sandbox -q -p no:cacheprovider -rs -s "$@"
echo "sandbox_docker_tests: tests took $(( $(date +%s) - start )) s"
