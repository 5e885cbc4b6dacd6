"""Paths for the Python tests; ctest sets them (PYTHONPATH to the tree's build, SARFUSE_CLI)."""
import os
import pathlib

import pytest

SOURCE = pathlib.Path(os.environ.get("SARFUSE_TEST_SOURCE", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def source_dir() -> pathlib.Path:
    return SOURCE


@pytest.fixture(scope="session")
def cli() -> str:
    path = os.environ.get("SARFUSE_CLI", str(SOURCE / "build" / "sarfuse"))
    if not os.path.exists(path):
        pytest.fail(f"sarfuse CLI not found at {path} (set SARFUSE_CLI)")
    return path
