"""How to cite the toolkit and the four papers it implements: ``semiprivate cite``.

:data:`PAPERS` holds one :class:`Reference` per paper key of the SPEC (BNS15, ABM19, HPSY, PILLAR),
with the authors, title, venue and pages the papers print (BNS15: SODA 2015 pp. 461-477, as cited
in ABM19's references; ABM19: NeurIPS 2019 pp. 10342-10352, its proceedings record), and a URL: the
arXiv record of the same title and authors (BNS15 arXiv:1407.2662, ABM19 arXiv:1910.11519 as ABM19
itself cites it, PILLAR arXiv:2306.03962, 2023).  HPSY's text prints no year, venue or identifier and
no public record of it was found: it is cited by authors and title with a note saying so, not guessed.  :func:`software_bibtex` cites the software at the installed version; ``CITATION.cff``
at the repository root carries the same facts for citation tools.

>>> print(PAPERS["ABM19"].bibtex().splitlines()[0])
@inproceedings{ABM19,
>>> "version = {" + __version__ + "}" in software_bibtex()
True
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

from semiprivate import __version__

__all__ = ["Reference", "PAPERS", "SUMMARY", "software_bibtex", "bibtex", "main"]

SUMMARY = "print BibTeX for the software and the four papers it implements"

SOFTWARE_TITLE = "semiprivate: a verified theory toolkit, with performance kernels, for semi-private learning"
SOFTWARE_AUTHOR = "{The semiprivate developers}"
SOFTWARE_YEAR = 2026
LICENSE = "MIT"


@dataclass(frozen=True)
class Reference:
    """One paper: its SPEC key and the BibTeX fields the paper itself states."""

    key: str
    entry_type: str
    authors: tuple[str, ...]
    title: str
    fields: dict[str, str] = field(default_factory=dict)

    def bibtex(self) -> str:
        """The BibTeX entry, keyed by the SPEC paper key."""
        rows = [("author", " and ".join(self.authors)), ("title", "{" + self.title + "}"), *self.fields.items()]
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in rows)
        return f"@{self.entry_type}{{{self.key},\n{body}\n}}"


PAPERS: dict[str, Reference] = {
    "BNS15": Reference(
        "BNS15", "inproceedings", ("Amos Beimel", "Kobbi Nissim", "Uri Stemmer"),
        "Learning Privately with Labeled and Unlabeled Examples",
        {"booktitle": "Proceedings of the Twenty-Sixth Annual ACM-SIAM Symposium on Discrete Algorithms (SODA)",
         "pages": "461--477", "publisher": "Society for Industrial and Applied Mathematics", "year": "2015",
         "eprint": "1407.2662", "archiveprefix": "arXiv", "url": "https://arxiv.org/abs/1407.2662"},
    ),
    "ABM19": Reference(
        "ABM19", "inproceedings", ("Noga Alon", "Raef Bassily", "Shay Moran"),
        "Limits of Private Learning with Access to Public Data",
        {"booktitle": "Advances in Neural Information Processing Systems 32 (NeurIPS 2019)",
         "pages": "10342--10352", "year": "2019", "eprint": "1910.11519", "archiveprefix": "arXiv",
         "url": "https://arxiv.org/abs/1910.11519"},
    ),
    "HPSY": Reference(
        "HPSY", "misc", ("Yaxi Hu", "Francesco Pinto", "Amartya Sanyal", "Fanny Yang"),
        "Semi-private learning via low dimensional structures",
        {"note": "Manuscript (ETH Zurich, University of Oxford); its text prints no year, venue or identifier, "
                 "and none is given here"},
    ),
    "PILLAR": Reference(
        "PILLAR", "misc", ("Francesco Pinto", "Yaxi Hu", "Fanny Yang", "Amartya Sanyal"),
        "PILLAR: How to make semi-private learning more effective",
        {"howpublished": "arXiv preprint arXiv:2306.03962", "year": "2023", "eprint": "2306.03962",
         "archiveprefix": "arXiv", "url": "https://arxiv.org/abs/2306.03962"},
    ),
}


def software_bibtex() -> str:
    """BibTeX for the software itself, at the installed version."""
    return ("@software{semiprivate,\n"
            f"  author = {{{SOFTWARE_AUTHOR}}},\n"
            f"  title = {{{{{SOFTWARE_TITLE}}}}},\n"
            f"  version = {{{__version__}}},\n"
            f"  year = {{{SOFTWARE_YEAR}}},\n"
            f"  license = {{{LICENSE}}}\n"
            "}")


def bibtex(keys: list[str] | None = None, *, software: bool = True) -> str:
    """BibTeX of the software (unless ``software=False``) and of the papers ``keys`` (all when None).

    Raises
    ------
    ValueError
        A key that is not one of :data:`PAPERS`.
    """
    if keys is None:
        keys = list(PAPERS)
    if isinstance(keys, str) or not isinstance(keys, (list, tuple)) or not all(isinstance(k, str) for k in keys):
        raise TypeError(f"keys must be None or a list of paper keys (str), got {keys!r}")
    unknown = [k for k in keys if k not in PAPERS]
    if unknown:
        raise ValueError(f"keys names unknown paper(s) {unknown}; known: {', '.join(PAPERS)}")
    parts = ([software_bibtex()] if software else []) + [PAPERS[k].bibtex() for k in keys]
    return "\n\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``semiprivate cite [PAPER ...] [--no-software]``: print BibTeX entries to stdout."""
    parser = argparse.ArgumentParser(prog="semiprivate cite", description=SUMMARY + ".")
    parser.add_argument("papers", nargs="*", metavar="PAPER", help=f"paper keys ({', '.join(PAPERS)}); default: all")
    parser.add_argument("--no-software", action="store_true", help="leave out the entry for the software")
    ns = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        text = bibtex(ns.papers or None, software=not ns.no_software)
    except ValueError as exc:
        print(f"semiprivate cite: error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0
