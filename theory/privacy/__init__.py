"""Privacy mechanisms and accounting: the exponential mechanism over finite classes
(:mod:`semiprivate.theory.privacy.exponential`), basic noise mechanisms (:mod:`semiprivate.theory.privacy.mechanisms`).
Import the sub-modules directly."""
