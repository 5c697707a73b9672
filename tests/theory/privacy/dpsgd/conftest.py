"""The tests here compare calls of the private trainers under one seed (reference against fast path, one
parameter changed, common random numbers): each such call is a release of its own, which the seed record would
refuse, so these tests run without it (``seed_reuse_allowed``); the record's own tests are in ``release/``."""

import pytest


@pytest.fixture(autouse=True)
def _without_seed_record(seed_reuse_allowed):
    yield
