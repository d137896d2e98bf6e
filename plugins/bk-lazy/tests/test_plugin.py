"""The entry point stays light: listing backends imports no graph machinery."""


def test_listing_backends_imports_only_the_light_entry_point():
    import subprocess
    import sys

    code = "import sys, bk; bk.backends(); assert sorted(m for m in sys.modules if m.startswith('bk_lazy')) == ['bk_lazy', 'bk_lazy.plugin']"
    subprocess.run([sys.executable, "-c", code], check=True)
