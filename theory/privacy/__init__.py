"""Privacy mechanisms and accounting: the exponential mechanism over finite classes
(:mod:`theory.privacy.exponential`), basic noise mechanisms (:mod:`theory.privacy.mechanisms`).
Import the sub-modules directly."""
