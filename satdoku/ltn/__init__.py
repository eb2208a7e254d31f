"""The LTN branch: labelled data sets (dataset), LTNtorch knowledge bases (kb), the Q1 unit
predicate (model), training (train), per-board decisions (classify) and held-out evaluation
(evaluate). torch and ltn are imported only inside the functions that need them."""
