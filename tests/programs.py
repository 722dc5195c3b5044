"""Hand-written programs shared by several test files."""

#: true at its example point and implied, but hard for Z3 (a sum of cubes): its query times out
FERMAT = """(declare-const x Int)
(set-info :example-x 3)
(declare-const y Int)
(set-info :example-y 4)
(declare-const z Int)
(set-info :example-z 5)
(assert (>= x 1))
(assert (>= y 1))
(assert (>= z 1))
(assert (not (= (+ (* x x x) (* y y y)) (* z z z))))
"""
