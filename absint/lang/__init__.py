"""The term language: sorts, the operator table, terms, evaluator, printer, programs."""
