"""ctest fixture: compile every example that should compile (and the
test-only models) into --models, once per ctest run, on all cores."""

import os
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


class BuildModels(E.E2ETestCase):
    def test_build(self):
        os.makedirs(E.MODELS, exist_ok=True)
        names = E.EXAMPLE_MODELS + E.TEST_MODELS

        def build(name):
            try:
                return E.compile_model(name, E.MODELS), None
            except AssertionError as e:
                return None, e
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            results = list(pool.map(build, names))
        for name, (out, err) in zip(names, results):
            with self.subTest(model=name):
                self.assertIsNone(err)
                self.assertTrue(os.path.getsize(out) > 0)


if __name__ == "__main__":
    E.main()
