"""Layer 2: the exact relational check of a guard, on the slice of facts it touches.

The engine's network already holds what isl needs: bounds of atoms, bounds of
linear combinations (the relational facts) and nonlinear atoms with their
operands. For one guard this layer takes the nearest slice of that network,
turns it into integer linear constraints — nonlinear atoms become variables
linked to their operands by linear constraints derived from the current
intervals (McCormick for products, floor bounds for division, ``0 <= x mod y <
y``, ``min <= each side``) — and asks isl whether the guard (or its negation)
is entailed. Real-sorted atoms stay out: isl reasons over the integers.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterable

from absint.lang import terms as T
from absint.lang.terms import INT, Term
from domains.packing import nearest_slice
from domains.polyhedra import LinearConstraint, Polyhedron

if TYPE_CHECKING:  # pragma: no cover
    from absint.reasoning.network import Engine

#: slice size, counted in weight: a variable weighs 1, a nonlinear atom (which brings
#: McCormick/division constraints with large coefficients, isl's costly case) weighs 3
MAX_SLICE = 36
NONLINEAR_WEIGHT = 9
MAX_OPERATIONS = 20_000
#: after this many isl queries in a row without a verdict, only every k-th candidate is
#: tried (k grows with the streak): files full of real guards do not pay isl on each
BACKOFF_STREAK = 32


class RelationalLayer:
    """Answers guards the value network leaves open; ``None`` means still unknown."""

    def __init__(self, engine: "Engine", max_slice: int = MAX_SLICE,
                 max_operations: int = MAX_OPERATIONS):
        self.engine = engine
        self.max_slice = max_slice
        self.max_operations = max_operations
        self.queries = 0
        self.exhausted = 0
        self._misses = 0  # isl queries since the last verdict
        self._candidates = 0

    # ------------------------------------------------------------ slices

    def _atoms_of(self, t: Term) -> list[Term]:
        coefs, _ = T.linear_parts(t)
        return list(coefs)

    def _neighbours(self, a: Term) -> Iterable[Term]:
        e = self.engine
        if a.kind not in ("var", "lin", "to_real"):
            for arg in a.args:
                if arg.sort is INT:
                    yield from self._atoms_of(arg)
        for q in e.parents.get(a, ()):
            if q.kind == "lin":
                yield from q.args
            elif q.sort is INT:
                yield q

    def _slice(self, atoms: list[Term]) -> list[Term]:
        def weight(a: Term) -> int:
            return 1 if a.kind == "var" else NONLINEAR_WEIGHT

        return [a for a in nearest_slice(atoms, self._neighbours, self.max_slice, weight) if a.sort is INT]

    # ------------------------------------------------------------ constraints

    def _constraints(self, dims: list[Term], params: list[Term] = ()) -> tuple[list[LinearConstraint], dict, int, bool]:
        """Integer constraints over ``dims`` then ``params`` (isl parameters).

        Returns the constraints, the atom -> index map, the number of set
        dimensions (``dims`` plus one existential per congruence ``x = m*k + r``)
        and whether any constraint relates two atoms.
        """
        e, d = self.engine, self.engine.d
        atoms = list(dims) + list(params)
        congruent = []
        for a in atoms:
            v = e.val.get(a)
            if v is not None and getattr(v, "modulus", 1) > 1 and v.lo != v.hi:
                congruent.append((a, v))
        n_dims = len(dims) + len(congruent)
        index = {a: i for i, a in enumerate(dims)}
        index.update({a: n_dims + j for j, a in enumerate(params)})
        out: list[LinearConstraint] = []
        relational = False

        def bound(coefs: dict[Term, int], const, lo, hi) -> None:
            idx = tuple((index[a], int(v)) for a, v in coefs.items())
            if not math.isinf(lo):
                out.append(LinearConstraint(idx, int(const - lo)))
            if not math.isinf(hi):
                out.append(LinearConstraint(tuple((i, -v) for i, v in idx), int(hi - const)))

        for a in atoms:
            v = e.val.get(a)
            if v is not None:
                lo, hi = d.bounds(v)
                bound({a: 1}, 0, lo, hi)
        for k, (a, v) in enumerate(congruent):  # a = m*k + r
            out.append(LinearConstraint(((index[a], 1), (len(dims) + k, -v.modulus)), -int(v.residue), True))
        seen_keys = set()
        for a in atoms:
            for q in e.parents.get(a, ()):
                if q.kind != "lin" or q in seen_keys or not all(x in index for x in q.args):
                    continue
                seen_keys.add(q)
                lo, hi = d.bounds(e.val[q])
                if math.isinf(lo) and math.isinf(hi):
                    continue
                coefs, c = q.data
                bound(dict(zip(q.args, coefs)), c, lo, hi)
                relational = True
        for a in atoms:
            links = _links(a, index, e)
            if links:
                out.extend(links)
                relational = True
        return out, index, n_dims, relational

    def symbolic_bound(self, t: Term, params: set[Term], upper: bool = True) -> list[Term] | None:
        """Valid bounds of ``t`` as terms over the atoms built from ``params`` only.

        isl's parametric maximum gives one affine piece per region of the
        parameters; each piece is kept only if it bounds ``t`` everywhere, so
        the minimum (``upper``) or maximum of the returned pieces is a sound bound.
        """
        if t.sort is not INT:
            return None
        sign = 1 if upper else -1
        coefs, c = T.linear_parts(t)
        if not coefs:
            return [t]
        atoms = self._slice(list(coefs))
        if not all(a in atoms for a in coefs):
            return None

        def is_param(a: Term) -> bool:
            return all(v in params for v in T.free_vars(a))

        dims = [a for a in atoms if not is_param(a)]
        ps = [a for a in atoms if is_param(a)]
        constraints, index, n_dims, _ = self._constraints(dims, ps)
        poly = Polyhedron(n_dims, len(ps), max_operations=self.max_operations)
        poly.add_all(constraints)
        lin = tuple((index[a], sign * int(v)) for a, v in coefs.items())
        pieces = poly.parametric_maximum(lin, sign * int(c))
        if pieces is None:
            self.exhausted += 1
            return None
        out: list[Term] = []
        for _, pcoefs, const, den in pieces:
            # sign*t <= (sum pcoefs*p + const) / den, valid everywhere?
            check = LinearConstraint(
                tuple((i, -den * v) for i, v in lin) + tuple((n_dims + j, v) for j, v in pcoefs.items() if v),
                const)
            if poly.entails(check) is not True:
                continue
            expr = T.add(T.const(const), *(T.scale(ps[j], v) for j, v in pcoefs.items() if v))
            if den != 1:
                expr = T.div(expr, T.const(den))
            expr = expr if upper else T.neg(expr)
            if all(expr is not o for o in out):
                out.append(expr)
        return out or None

    # ------------------------------------------------------------ queries

    def decide(self, g: Term) -> bool | None:
        """Truth of a normal comparison over Int atoms, or None."""
        if g.kind not in ("le", "eq", "ne"):
            return None
        t = g.args[0]
        if t.sort is not INT:
            return None
        coefs, c = T.linear_parts(t)
        if not coefs or any(a.sort is not INT for a in coefs):
            return None
        if not any(self.engine.blocks.related(a) for a in coefs):
            return None
        atoms = self._slice(list(coefs))
        if not all(a in atoms for a in coefs):
            return None
        self._candidates += 1
        if self._candidates % (1 + self._misses // BACKOFF_STREAK):
            return None
        constraints, index, n, relational = self._constraints(atoms)
        if not relational:
            return None
        self.queries += 1
        verdict = self._entailment(g, coefs, c, constraints, index, n)
        self._misses = 0 if verdict is not None else self._misses + 1
        return verdict

    def _entailment(self, g: Term, coefs, c, constraints, index, n) -> bool | None:
        poly = Polyhedron(n, max_operations=self.max_operations)
        poly.add_all(constraints)
        lin = tuple((index[a], int(v)) for a, v in coefs.items())
        neg = tuple((i, -v) for i, v in lin)
        if g.kind == "le":  # t <= 0  <=>  -t >= 0
            guard = LinearConstraint(neg, -int(c))
        else:
            guard = LinearConstraint(lin, int(c), equality=True)
        if g.kind == "ne":
            possible = poly.satisfiable_with(guard)
            if possible is None:
                self.exhausted += 1
                return None
            if not possible:
                return True
            return False if poly.entails(guard) else None
        entailed = poly.entails(guard)
        if entailed is None:
            self.exhausted += 1
            return None
        if entailed:
            return True
        possible = poly.satisfiable_with(guard)
        if possible is None:
            self.exhausted += 1
            return None
        return False if not possible else None

    # ------------------------------------------------------------ residual guards (compiler API)

    def residual(self, guards: list[Term]) -> list[Term] | None:
        """Of the normal comparisons ``guards`` (``le``/``eq`` over Int atoms), the
        constraints still needed where the facts hold: isl's gist of their
        conjunction on the slice they touch. The conjunction of the result is
        equivalent to that of ``guards`` under the facts (the slice is implied by
        them, and ``gist ∩ C = G ∩ C`` for any such context ``C``); None when not
        applicable (atoms outside the slice, isl out of budget)."""
        atoms: dict[Term, None] = {}
        for g in guards:
            if g.kind not in ("le", "eq") or g.args[0].sort is not INT:
                return None
            self.engine.register(g.args[0])
            atoms.update(dict.fromkeys(T.linear_parts(g.args[0])[0]))
        if not atoms or any(a.sort is not INT for a in atoms):
            return None
        dims = self._slice(list(atoms))
        if not all(a in dims for a in atoms):
            return None
        constraints, index, n, _ = self._constraints(dims)
        poly = Polyhedron(n, max_operations=self.max_operations)
        poly.add_all(constraints)
        wanted = []
        for g in guards:
            coefs, c = T.linear_parts(g.args[0])
            lin = tuple((index[a], int(v)) for a, v in coefs.items())
            if g.kind == "le":  # t <= 0  <=>  -t >= 0
                wanted.append(LinearConstraint(tuple((i, -v) for i, v in lin), -int(c)))
            else:
                wanted.append(LinearConstraint(lin, int(c), equality=True))
        kept = poly.gist(wanted)
        if kept is None:
            self.exhausted += 1
            return None
        atom_at = {i: a for a, i in index.items()}
        out = []
        for con in kept:
            if any(i not in atom_at for i, _ in con.coefs):  # a congruence's existential
                return None
            lhs = T.add(T.const(con.const), *(T.scale(atom_at[i], v) for i, v in con.coefs))
            out.append(T.eq(lhs, T.ZERO) if con.equality else T.ge(lhs, T.ZERO))
        return out


def _links(a: Term, index: dict[Term, int], e: "Engine") -> list[LinearConstraint]:
    """Linear constraints tying a nonlinear atom to its operands (all in ``index``)."""
    k = a.kind
    if k in ("var", "to_real") or a.sort is not INT:
        return []
    d = e.d
    me = index[a]

    def lin_of(t: Term):
        coefs, c = T.linear_parts(t)
        if not all(x in index for x in coefs):
            return None
        return [(index[x], int(v)) for x, v in coefs.items()], int(c)

    def bounds_of(t: Term):
        e.register(t)
        return d.bounds(e.value(t))

    out: list[LinearConstraint] = []
    if k == "mul":
        fs = a.args
        for i, f in enumerate(fs):
            lf = lin_of(f)
            if lf is None:
                continue
            rest = T.mul(T.ONE, *(fs[:i] + fs[i + 1:]))
            flo, _ = bounds_of(f)
            rlo, rhi = bounds_of(rest)
            if flo >= 0:  # m = f * rest with f >= 0:  rlo*f <= m <= rhi*f
                fc, f0 = lf
                if not math.isinf(rlo):
                    out.append(LinearConstraint(((me, 1),) + tuple((j, -int(rlo) * v) for j, v in fc), -int(rlo) * f0))
                if not math.isinf(rhi):
                    out.append(LinearConstraint(((me, -1),) + tuple((j, int(rhi) * v) for j, v in fc), int(rhi) * f0))
        if len(fs) == 2:
            out.extend(_mccormick(me, fs, lin_of, bounds_of))
    elif k in ("div", "mod"):
        x, y = a.args
        lx = lin_of(x)
        if lx is None:
            return out
        xc, x0 = lx
        if y.kind == "const" and y.data > 0:
            dv = y.data
            if k == "div":  # dv*q <= x <= dv*q + dv - 1
                out.append(LinearConstraint(tuple(xc) + ((me, -dv),), x0))
                out.append(LinearConstraint(tuple((j, -v) for j, v in xc) + ((me, dv),), -x0 + dv - 1))
            else:
                out.append(LinearConstraint(((me, 1),), 0))
                out.append(LinearConstraint(((me, -1),), dv - 1))
                q = T.div(x, y)
                if q in index:  # r = x - dv*q
                    out.append(LinearConstraint(tuple(xc) + ((index[q], -dv), (me, -1)), x0, True))
            return out
        ylo, _ = bounds_of(y)
        xlo, _ = bounds_of(x)
        ly = lin_of(y)
        if ylo >= 1:
            if k == "mod":  # 0 <= r <= y - 1
                out.append(LinearConstraint(((me, 1),), 0))
                if ly is not None:
                    yc, y0 = ly
                    out.append(LinearConstraint(tuple(yc) + ((me, -1),), y0 - 1))
            if xlo >= 0:  # 0 <= x div y <= x  and  x mod y <= x
                out.append(LinearConstraint(((me, 1),), 0))
                out.append(LinearConstraint(tuple(xc) + ((me, -1),), x0))
    elif k in ("min", "max"):
        sign = 1 if k == "min" else -1
        for arg in a.args:
            la = lin_of(arg)
            if la is not None:  # min <= arg,  max >= arg
                ac, a0 = la
                out.append(LinearConstraint(tuple((j, sign * v) for j, v in ac) + ((me, -sign),), sign * a0))
    return out


def _mccormick(me: int, fs, lin_of, bounds_of) -> list[LinearConstraint]:
    """The four McCormick inequalities of ``m = x*y`` (those with finite bounds)."""
    x, y = fs
    lx, ly = lin_of(x), lin_of(y)
    if lx is None or ly is None:
        return []
    (xl, xu), (yl, yu) = bounds_of(x), bounds_of(y)
    (xc, x0), (yc, y0) = lx, ly

    def make(sign: int, a, b) -> LinearConstraint | None:
        # sign*(m - a*y - b*x + a*b) >= 0
        if math.isinf(a) or math.isinf(b):
            return None
        a, b = int(a), int(b)
        coefs: dict[int, int] = {me: sign}
        for j, v in yc:
            coefs[j] = coefs.get(j, 0) - sign * a * v
        for j, v in xc:
            coefs[j] = coefs.get(j, 0) - sign * b * v
        const = sign * (a * b - a * y0 - b * x0)
        return LinearConstraint(tuple(coefs.items()), const)

    cands = [make(1, xl, yl), make(1, xu, yu), make(-1, xu, yl), make(-1, xl, yu)]
    return [c for c in cands if c is not None]
