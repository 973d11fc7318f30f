import pytest

try:
    import tessera
except ImportError as e:  # pragma: no cover
    raise pytest.UsageError(
        "the Python package tessera is not installed in this environment (%s): run "
        "./test/run_all.sh, or .venv/bin/pip install --no-build-isolation ./" % e)


@pytest.fixture
def con():
    c = tessera.connect(threads=2)
    yield c
    c.close()
