; an impossible spec: a 3x3 kernel without padding does not fit a 2-wide input.
(declare-const W Int)
(declare-const K Int)
(declare-const OW Int)
(assert (and (>= W 1) (<= W 2)))
(assert (= K 3))
(assert (= OW (+ (- W K) 1)))
(assert (>= OW 1))
