"""Privacy mechanisms and accounting.

* :mod:`semiprivate.theory.privacy.exponential` -- the exponential mechanism over finite classes;
* :mod:`semiprivate.theory.privacy.mechanisms` -- basic noise mechanisms; :mod:`.sanitizers` -- BNS15's sanitizers;
* private linear models: :mod:`.linear` (losses, clipping), :mod:`.noisy_sgd` (BST14 Noisy-SGD),
  :mod:`.dpsgd` (DP-SGD), :mod:`.accounting` (dp-accounting's RDP and PLD accountants, noise calibration),
  :mod:`.pillar_selection` (PILLAR Alg 2), :mod:`.sgd_audits` (their audit cases);
* public data and model selection the scikit-learn way: :mod:`.public_rows`, :mod:`.model_selection`.

Import the sub-modules directly."""
