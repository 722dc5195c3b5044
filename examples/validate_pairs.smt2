(set-option :produce-models true)
(define-fun ceil ((x Real)) Int (ite (= (to_int x) x) (to_int x) (+ (to_int x) 1)))
(define-fun min2 ((x Int) (y Int)) Int (ite (< x y) x y))
(define-fun max2 ((x Int) (y Int)) Int (ite (> x y) x y))
(define-fun sqrt ((x Real)) Real (^ x 0.5))

; pairs for `absint validate` (docs/validate.md): the facts are the asserts; each
; source<k> is an expression as recorded, target<k> what a simplifier made of it
(declare-const s0 Int)
(set-info :example-s0 4)
(declare-const s1 Int)
(set-info :example-s1 10)
(assert (>= s0 2))
(assert (>= s1 1))
; max(s0, 1) is s0 once s0 >= 2
(define-fun source0 () Int (max2 s0 1))
(define-fun target0 () Int s0)
; the remainder written out, and the remainder
(define-fun source1 () Int (- s1 (* (div s1 s0) s0)))
(define-fun target1 () Int (mod s1 s0))
; a remainder of a remainder
(define-fun source2 () Int (mod (mod s1 8) 4))
(define-fun target2 () Int (mod s1 4))
; a clamp whose lower end the facts already give
(define-fun source3 () Int (min2 (max2 s1 0) 7))
(define-fun target3 () Int (min2 s1 7))
; a wrong rounding: ceil(s1 / 2) is not floor(s1 / 2)
(define-fun source4 () Int (div (+ s1 1) 2))
(define-fun target4 () Int (div s1 2))
; a guard replaced by a stronger one: the target implies the source (not back: --equiv)
(define-fun source5 () Bool (< (+ s1 1) (* 2 s0)))
(define-fun target5 () Bool (< s1 s0))
