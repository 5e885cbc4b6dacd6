"""`pip install .` into a fresh virtual environment (scikit-build-core driving the project's CMake), then
the installed module must give the same SLC as the tree's build, bit for bit."""
import os
import pathlib
import subprocess
import sys

import numpy as np

import sarfuse


def test_pip_install_into_a_fresh_venv(source_dir, tmp_path):
    venv = tmp_path / "venv"
    # System site packages: numpy from Debian; scikit-build-core and pybind11 come from PyPI in pip's
    # isolated build environment.
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    env = dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL=str(os.cpu_count() or 2))
    env.pop("PYTHONPATH", None)  # the venv's own sarfuse, not the tree's
    # The packaging path without the CUDA kernels: they are the tree's own build, tested there, and
    # compiling them again took most of this test's 8 minutes on 2 cores.
    r = subprocess.run([str(py), "-m", "pip", "install", "--no-cache-dir", "--disable-pip-version-check",
                        "--config-settings=cmake.define.SARFUSE_ENABLE_CUDA=OFF", str(source_dir)],
                       env=env, capture_output=True, text=True, timeout=3000)
    assert r.returncode == 0, (r.stdout[-4000:] + r.stderr[-4000:])
    out = tmp_path / "slc.npy"
    code = (
        "import sarfuse, numpy as np, sys\n"
        "assert 'venv' in sarfuse.__file__, sarfuse.__file__\n"
        "p, s = sarfuse.default_scene()\n"
        f"np.save({str(out)!r}, sarfuse.Plan(p, backend='cpu').focus(sarfuse.simulate(p, s)))\n"
    )
    r = subprocess.run([str(py), "-c", code], env=env, cwd=str(tmp_path), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    p, s = sarfuse.default_scene()
    assert np.array_equal(np.load(out), sarfuse.Plan(p, backend="cpu").focus(sarfuse.simulate(p, s)))
    r = subprocess.run([str(py), "-m", "sarfuse", "info", str(source_dir / "examples" / "radarsat1_scene5.json")],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0 and "6900" in r.stdout, r.stdout + r.stderr
