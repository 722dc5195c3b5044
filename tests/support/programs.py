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

#: a transposed input (strides 1, 4 for sizes 4, 4): not contiguous, so that preset is refused
TRANSPOSED = """(declare-const y_size0 Int)
(set-info :example-y_size0 4)
(declare-const y_size1 Int)
(set-info :example-y_size1 4)
(declare-const y_stride0 Int)
(set-info :example-y_stride0 1)
(declare-const y_stride1 Int)
(set-info :example-y_stride1 4)
(assert (>= y_size0 2))
(assert (>= y_size1 y_size0))
"""
