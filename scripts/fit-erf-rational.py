#!/usr/bin/python3
"""Fits the coefficients of the CPU kernels' erf for gelu
(runtime/backends/cpu/kernels/TransformerSimdImpl.inc, erfRational):
erf(x) ~ x P(x^2) / Q(x^2) on [0, 4], P of degree 6 and Q of degree 4 in
x^2 with Q(0) = 1 (erf is odd; beyond 4 it is 1 in float32).

Method: linearized least squares iterated on the previous denominator
(Sanathanan-Koerner), then Lawson's reweighting toward the minimax fit.
Reference values from mpmath at 30 digits. Prints the coefficients, the
fit's max error in double precision and that of the float32 Horner
evaluation the kernel does.

    /usr/bin/python3 scripts/fit-erf-rational.py
"""
import mpmath
import numpy as np

mpmath.mp.dps = 30
NP, NQ = 7, 5  # coefficients of P and Q


def fit():
    n = 4000
    cheb = 2.0 + 2.0 * np.cos(np.pi * (np.arange(n) + 0.5) / n)
    x = np.sort(np.concatenate([cheb, np.linspace(1e-4, 4.0, 2000)]))
    f = np.array([float(mpmath.erf(v)) for v in x])
    z = x * x
    denominator = np.ones_like(x)
    weight = np.ones_like(x)
    for it in range(60):
        # x P(z) - f Q(z) = 0 with Q's constant 1: unknowns p0..p6, q1..q4.
        scale = weight / np.abs(denominator)
        cols = [x * z ** k for k in range(NP)] + [-f * z ** k for k in range(1, NQ)]
        a = np.stack(cols, 1) * scale[:, None]
        norms = np.linalg.norm(a, axis=0)
        sol, *_ = np.linalg.lstsq(a / norms, f * scale, rcond=None)
        sol = sol / norms
        p, q = sol[:NP], np.concatenate([[1.0], sol[NP:]])
        denominator = np.polyval(q[::-1], z)
        err = x * np.polyval(p[::-1], z) / denominator - f
        if it >= 10:
            weight = weight * np.sqrt(np.abs(err) + 1e-12)
            weight /= weight.max()
    return p, q, np.abs(err).max()


def float32_error(p, q):
    pf, qf = p.astype(np.float32), q.astype(np.float32)
    xs = np.linspace(-4, 4, 20001).astype(np.float32)
    z = xs * xs
    pv = np.float32(pf[-1])
    for c in pf[-2::-1]:
        pv = pv * z + c
    qv = np.float32(qf[-1])
    for c in qf[-2::-1]:
        qv = qv * z + c
    got = (xs * pv / qv).astype(np.float64)
    ref = np.array([float(mpmath.erf(float(v))) for v in xs])
    return np.abs(got - ref).max()


def main():
    p, q, err = fit()
    print("max |error| in double: %.3g; float32 Horner: %.3g" % (err, float32_error(p, q)))
    print("P (x^0 .. x^12):", ", ".join("%.9gf" % c for c in p))
    print("Q (x^0 .. x^8): ", ", ".join("%.9gf" % c for c in q))


if __name__ == "__main__":
    main()
