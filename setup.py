# cffi_modules needs setup.py beside pyproject.toml (the cffi docs' recommended layout).
from setuptools import setup

setup(cffi_modules=["dataplane/_build.py:ffibuilder"])
