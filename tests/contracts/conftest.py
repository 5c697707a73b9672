"""Shared by the bad-input contract suite (tests/contracts/): what "the message names the parameter" means."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest


def _names_word(text: str, word: str) -> bool:
    """``word`` occurs in ``text`` as a whole word (a substring check would let ``n`` match "integer")."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])", text) is not None


@pytest.fixture
def names_word() -> Callable[[str, str], bool]:
    """``names_word(message, parameter)``: the message names the parameter as a word."""
    return _names_word
