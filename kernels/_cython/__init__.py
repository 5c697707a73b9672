"""Compiled (Cython) kernels, built by ``setup.py``. Import through :mod:`kernels`."""
