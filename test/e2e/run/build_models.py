"""ctest fixture: compile every example that should compile (and the
test-only models) into --models, once per ctest run."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


class BuildModels(E.E2ETestCase):
    def test_build(self):
        os.makedirs(E.MODELS, exist_ok=True)
        for name in E.EXAMPLE_MODELS + E.TEST_MODELS:
            with self.subTest(model=name):
                out = E.compile_model(name, E.MODELS)
                self.assertTrue(os.path.getsize(out) > 0)


if __name__ == "__main__":
    E.main()
