"""The seed record's digests are keyed by a secret each process draws from the OS at first use, held only inside
a keyed hash object: the same seed gives other digests in another process (a digest that leaks cannot be tested
against candidate seeds elsewhere), and no module attribute, pickle, repr or refusal message carries the key or a
digest (semiprivate.theory.privacy.seeds, "the record's key").  Code in the same process can still call the
record's functions: that is stated, not tested, as outside what a key can protect."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from semiprivate.theory.privacy import _release, seeds
from semiprivate.theory.privacy.sanitizers import NoisyHistogramSanitizer

X = np.array([0, 1, 1, 2, 3, 5, 5, 7, 6, 4])

_DIGESTS = """
import numpy as np
from semiprivate.theory.privacy import seeds
X = np.array([0, 1, 1, 2, 3, 5, 5, 7, 6, 4])
for _ in range(2):
    print(seeds._sealed_identity(seeds.seed_identity(0)).hex(), seeds.fingerprint("k", {}, {"X": X}).hex(),
          seeds.output_mac(X).hex(), seeds._fresh_key(b"w" * 64).hex())
"""


def _digests_here() -> str:
    return " ".join([seeds._sealed_identity(seeds.seed_identity(0)).hex(), seeds.fingerprint("k", {}, {"X": X}).hex(),
                     seeds.output_mac(X).hex(), seeds._fresh_key(b"w" * 64).hex()])


def test_the_same_seed_gives_other_digests_in_another_process():
    out = subprocess.run([sys.executable, "-c", _DIGESTS], capture_output=True, text=True, check=True,
                         env=dict(os.environ)).stdout.split("\n")
    first, again = out[0], out[1]
    assert first == again  # stable within a process (the record compares digests made at different times)
    here = _digests_here()
    assert here == _digests_here()
    theirs, ours = first.split(), here.split()
    assert len(theirs) == len(ours) == 4
    assert all(a != b for a, b in zip(theirs, ours))  # every kind of digest: another key


def _byte_strings(value, depth=0, seen=None):
    """Every bytes-like object reachable from ``value`` through containers (not through functions)."""
    seen = set() if seen is None else seen
    if id(value) in seen or depth > 6:
        return
    seen.add(id(value))
    if isinstance(value, bytes | bytearray | memoryview):
        yield bytes(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _byte_strings(k, depth + 1, seen)
            yield from _byte_strings(v, depth + 1, seen)
    elif isinstance(value, list | tuple | set | frozenset):
        for v in value:
            yield from _byte_strings(v, depth + 1, seen)


@pytest.mark.parametrize("module", [seeds, _release], ids=["seeds", "_release"])
def test_no_module_attribute_holds_a_key(module):
    seeds.fingerprint("k", {}, {"X": X})  # the key is drawn by now
    for name, value in vars(module).items():
        if name == "_RECORD" or name == "_FRESH":
            continue  # the digests themselves (checked below: never handed out)
        assert "KEY" not in name.upper() or not isinstance(value, bytes | bytearray), name
        assert not [b for b in _byte_strings(value) if len(b) >= 16], name


def test_no_public_output_carries_a_digest():
    est = NoisyHistogramSanitizer(1.0, domain_size=8, rng=0)
    est.sanitize(X)
    other = NoisyHistogramSanitizer(1.0, domain_size=8, rng=0)
    with pytest.raises(ValueError) as refused:
        other.sanitize(X[3:])
    digests = [b for b in _byte_strings(dict(seeds._RECORD)) if len(b) >= 16]
    assert digests  # the record holds the release's digests
    shown = [pickle.dumps(est), pickle.dumps(other), repr(est).encode(), repr(other).encode(),
             str(refused.value).encode(), repr(vars(est)).encode()]
    for digest in digests:
        for text in shown:
            assert digest not in text and digest.hex().encode() not in text
    for name in seeds.__all__ + _release.__all__:
        assert not isinstance(getattr(seeds, name, None), bytes | bytearray)
