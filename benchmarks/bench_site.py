"""Site benchmark: `mkdocs build --strict` for a synthetic fleet of 500 models.

Targets: the build under 60 s on the project's 2-core machine; the leaderboard page under 500 KB; no chart
library on any page (the radars are inline SVG). The fleet is generated in a temporary folder
first (not timed) and never committed.

    python benchmarks/bench_site.py [--models 500] [--seed 1] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BUILD_TARGET_S = 60.0
PAGE_TARGET_KB = 500.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="build into this folder and keep it")
    args = parser.parse_args()

    from engine.publish.board import board_from_dir
    from tests.helpers.fleet import make_fleet

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        make_fleet(root, args.models, args.seed, unsized=args.models // 20)
        print(f"fleet of {args.models} models written in {time.perf_counter() - t0:.1f} s (not timed)")

        t0, c0 = time.perf_counter(), time.process_time()
        board = board_from_dir(root / "results", root / "models.yaml")
        board_s, board_cpu = time.perf_counter() - t0, time.process_time() - c0
        print(
            f"board alone: {board_s:.1f} s wall, {board_cpu:.1f} s CPU ({board.separability.pair_count} pairs, "
            f"{board.separability.separable_count} separable)"
        )
        del board

        out = args.keep or root / "site"
        env = dict(
            os.environ,
            NO_MKDOCS_2_WARNING="1",
            SLLMB_SITE_RESULTS=str(root / "results"),
            SLLMB_SITE_MODELS=str(root / "models.yaml"),
        )
        t0 = time.perf_counter()
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(out)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        build_s = time.perf_counter() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        build_cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
        if done.returncode != 0:
            print(done.stderr[-3000:])
            return 1

        board_page = out / "leaderboard" / "index.html"
        page_kb = board_page.stat().st_size / 1024
        pages = sorted(out.rglob("*.html"))
        script_loads = sum(1 for p in pages if "plotly" in p.read_text(encoding="utf-8").lower())
        radar_pages = sum(1 for p in pages if 'class="lb-radar-svg"' in p.read_text(encoding="utf-8"))
        card = next((out / "models").glob("*/index.html"))
        json_kb = (out / "leaderboard.json").stat().st_size / 1024

        print(
            f"mkdocs build --strict: {build_s:.1f} s wall, {build_cpu:.1f} s CPU for {len(pages)} pages "
            f"(target < {BUILD_TARGET_S:.0f} s wall; on a shared machine the CPU figure is the steadier one)"
        )
        print(f"load average while measuring: {os.getloadavg()[0]:.1f} (1 min) on {os.cpu_count()} cores")
        print(f"leaderboard page: {page_kb:.0f} KB (target < {PAGE_TARGET_KB:.0f} KB)")
        print(f"a model card page: {card.stat().st_size / 1024:.0f} KB")
        print(f"pages with an SVG radar: {radar_pages}; pages naming plotly: {script_loads} (target 0)")
        print(f"leaderboard.json: {json_kb:.0f} KB")
        ok = build_s < BUILD_TARGET_S and page_kb < PAGE_TARGET_KB and script_loads == 0
        print("targets met" if ok else "TARGET MISSED")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
