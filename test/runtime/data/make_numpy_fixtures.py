#!/usr/bin/env python3
"""Regenerates the numpy-written .npz fixtures of NpzTest.cpp.

Checked in (they are tiny) so the tests need no numpy; rerun after changing
them: python3 make_numpy_fixtures.py
"""
import numpy as np

x = np.arange(12).reshape(3, 4)
labels = np.array([0, 1, 2])
np.savez("numpy_savez.npz", x=x.astype(np.float32), labels=labels.astype(np.int64))
np.savez_compressed(
    "numpy_savez_compressed.npz",
    x=x.astype(np.float64),
    labels=labels.astype(np.int32),
)
