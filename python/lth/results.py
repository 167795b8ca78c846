# SPDX-License-Identifier: GPL-3.0-or-later
"""Result records of lth.ic, lth.solve, lth.bvp and lth.lqr.

Plain dataclasses of NumPy arrays and numbers; trajectories have time as the
first axis (``z[k]`` is z at ``times[k]``), and ``components`` names the
columns in the user's order (``Problem.variables``: "x1", "x1'", ... for an
equation-form file, "z_1[1]", ..., "u[1]" for a block-form one), the order
of the tools' text and CSV tables, every unknown: an equation-form file's
index-1 unknowns too (docs/equations.md section 10).  (The tools' JSON
keeps z in the chain order, the index-1 unknowns after z's s entries;
``Problem.to_chain`` converts.)  A quantity that was not computed is
None (the tools leave such keys out of their JSON).
"""

from dataclasses import dataclass, field
from typing import Optional

import numpy as np


class _ByName:
    """z["z_2[1]"] style access to a column of a trajectory."""

    def component(self, name):
        """The trajectory of one component (a name, x' also spelled "d.x" or
        "x_dot", or a 0-based index into ``components``)."""
        if not isinstance(name, str):
            return self.z[:, int(name)]
        from .problem import find_name
        k = find_name(list(self.components), name)
        if k < 0:
            raise ValueError("no component named %r; the components are %s"
                             % (name, ", ".join(self.components)))
        return self.z[:, k]

    def output(self, name):
        """The trajectory of one of the file's outputs (a name in
        ``outputs`` or a 0-based index): a column of ``y``."""
        if self.y is None:
            raise ValueError("no outputs: the data file has no `outputs` statement")
        if isinstance(name, str):
            if name not in self.outputs:
                raise ValueError("no output named %r; the outputs are %s"
                                 % (name, ", ".join(self.outputs)))
            return self.y[:, self.outputs.index(name)]
        return self.y[:, int(name)]


@dataclass
class InitialValue:
    """A consistent initial value (``lth-ic``).

    ``z0`` is consistent at ``t`` (||M0 z0 - b0|| = ``residual`` <=
    ``tolerance``); ``guess`` is what it was computed from (``guess_source``
    says where that came from), ``change`` = ||z0 - guess||, ``changed`` the
    0-based indices of the components that moved (index-1 unknowns too,
    whose values follow from the others: the JSON's ``changed`` lists z's
    only).  ``M0`` ((s-p) x nvars, rows orthonormal) and ``b0`` are the
    consistency conditions M0 z0 = b0 of Clark's section 4.1, on z: the
    columns of index-1 unknowns are 0 (y = -K^{-1}(L z + f) fixes them);
    ``method`` is "project", "nearest" or "fix".
    Vectors, M0's columns and the indices are in the user's order
    (``components``); ``fixed`` maps names to the prescribed values;
    ``sampling_error`` (sampled data only) the estimated error of z0 that
    the samples' fits cause; ``outputs`` and ``y`` (n_y numbers: the
    outputs at z0, as lth-ic's JSON) the data file's outputs
    (docs/equations.md section 11; [] and None without them).  ``path``:
    "dense" or "operator" (``lth.ic(path=...)``); on the operator path
    ``residual`` and ``guess_residual`` are ||x - (G x + q)|| and ``M0``,
    ``b0`` are None (nothing s x s is formed)."""

    t: float
    z0: np.ndarray
    residual: float
    method: str
    guess: np.ndarray
    guess_source: str
    guess_residual: float
    change: float
    changed: np.ndarray
    tolerance: float
    cond_chain: float
    M0: Optional[np.ndarray]
    b0: Optional[np.ndarray]
    p: int
    s: int
    index: int
    components: list
    fixed: Optional[dict] = None
    sampling_error: Optional[float] = None
    outputs: list = field(default_factory=list)
    y: Optional[np.ndarray] = None
    path: str = "dense"


@dataclass
class Solution(_ByName):
    """An initial-value solution (``lth-solve``).

    ``z`` (n, nvars) at ``times`` (the order asked for; columns in the
    user's order, named by ``components``), ``v`` (n, m) the state part (in the
    chain order, named by ``state_components``),
    ``drift`` = max ||P v|| (0 in exact arithmetic) and ``drift_rel``;
    ``output_gain`` = max ||Nhat + Bhat||: z's errors can be up to this many
    times the state's;
    ``z0_used`` the initial value used, every unknown (``projected``:
    replaced by Corollary 3's projection of ``z0_given``, moved by
    ``z0_change`` in z, most in component ``z0_worst``, a 0-based index into
    ``components``); ``gamma`` the drift
    damping rate; ``stats`` the integrator's counts and times;
    ``sampling_error`` (sampled data only) the estimated error of z that the
    samples' fits cause, which no ``rtol`` makes smaller.

    ``outputs`` names the data file's outputs (docs/equations.md section
    11, in the order written; [] without them) and ``y`` (n, n_y) holds
    their values y = C z + D u + y0 at ``times`` (None without outputs),
    computed from z as the tools compute their JSON's ``y``
    (lth_system_outputs); ``output(name)`` is one column.

    The global error estimate (``error_estimate=True``, the default;
    docs/user-guide.md section 6.6): ``z_error`` (n, nvars) the estimated
    error of ``z`` (columns as ``z``; an index-1 unknown's is -K^{-1} L
    times z's, y being linear in z), the difference from a second solve
    (``error_method`` at ``error_rtol``, ``error_atol``); ``error_estimate``
    its largest entry over every unknown, the index-1 ones included;
    ``error_tol`` the largest in units of the tolerance (atol + rtol times
    the component's largest size; above 1 the solve missed rtol/atol), in
    component ``error_worst`` at time ``t_error_worst``.  None
    when not estimated; ``error_failed`` says why when the second solve
    failed.

    ``path``: "dense" or "operator" (``lth.solve(path=...)``).  On the
    operator path ``output_gain`` and ``gamma`` are None (it neither forms
    Nhat + Bhat nor damps drift: lth-solve's JSON has null there),
    ``z0_residual`` is ||z0 - (G z0 + q)||, and ``stats`` also holds
    ``jv_evals``, ``lin_iters`` and ``projections`` (CVODE's products
    Ahat x, Krylov iterations and projections onto range(I - P)), and the
    proof that Pi is nonsingular between the output times: ``pi_proven``
    (the share of the interval proven from the data's enclosures),
    ``pi_proofs`` (pieces examined), ``pi_inv_bound`` (a bound of
    ||Pi^-1||_1 on the proven part, None when nothing is proven) and
    ``pi_proof_off`` (why there is no proof, or None)."""

    times: np.ndarray
    z: np.ndarray
    v: np.ndarray
    drift: float
    drift_rel: float
    output_gain: Optional[float]
    projected: bool
    z0_used: np.ndarray
    z0_given: np.ndarray
    z0_residual: float
    z0_change: float
    z0_worst: Optional[int]
    t0: float
    components: list
    method: str
    rtol: float
    atol: float
    reprojected: bool
    gamma: Optional[float]
    stats: dict
    sampling: list = field(default_factory=list)
    state_components: list = field(default_factory=list)
    sampling_error: Optional[float] = None
    error_estimate: Optional[float] = None
    error_tol: Optional[float] = None
    error_worst: Optional[str] = None
    t_error_worst: Optional[float] = None
    z_error: Optional[np.ndarray] = None
    error_method: Optional[str] = None
    error_rtol: Optional[float] = None
    error_atol: Optional[float] = None
    error_failed: Optional[str] = None
    outputs: list = field(default_factory=list)
    y: Optional[np.ndarray] = None
    path: str = "dense"


@dataclass
class BVPSolution(_ByName):
    """A boundary-value solution (``lth-bvp``).

    ``z`` (n, nvars) at ``times`` (columns in the user's order, named by
    ``components``, every unknown); ``cond_shooting`` the condition estimate of the
    shooting matrix (or of the banded system for ``multiple``/``fd``),
    ``bc_residual`` = ||B0 z(t0) + B1 z(t1) - beta||, ``cond_bvp`` the
    conditioning constant of the BVP itself and ``error_estimate`` an estimate
    of the max-norm error of z (None where not computed); for ``fd``:
    ``fd_points``, ``fd_order``, ``fd_error``, ``fd_error_layer``; for
    ``multiple``: ``intervals``; for shooting methods: ``drift``; for
    ``collocation``: ``tol``, ``stages``, ``intervals`` (the mesh), ``drift``;
    ``sampling_error`` (sampled data only) the estimated error of z that the
    samples' fits cause.  ``outputs`` and ``y`` as for :class:`Solution`.
    ``path`` ("dense" or "operator") the path taken; on the operator path
    the proof that Pi is nonsingular between the points: ``pi_proven`` (the
    share of [t0, t1] proven), ``pi_proofs`` (pieces examined),
    ``pi_inv_bound`` (a bound of ||Pi^-1||_1 there, None if nothing is
    proven), ``pi_proof_off`` (why there is no proof, or None); all None on
    the dense path."""

    times: np.ndarray
    z: np.ndarray
    cond_shooting: float
    method: str
    p: int
    s: int
    bc_residual: float
    components: list
    drift: Optional[float] = None
    rtol: Optional[float] = None
    atol: Optional[float] = None
    intervals: Optional[int] = None
    fd_points: Optional[int] = None
    fd_order: Optional[float] = None
    fd_error: Optional[float] = None
    fd_error_layer: Optional[float] = None
    cond_bvp: Optional[float] = None
    error_estimate: Optional[float] = None
    tol: Optional[float] = None
    stages: Optional[int] = None
    sampling: list = field(default_factory=list)
    sampling_error: Optional[float] = None
    outputs: list = field(default_factory=list)
    y: Optional[np.ndarray] = None
    path: str = "dense"
    pi_proven: Optional[float] = None
    pi_proofs: Optional[int] = None
    pi_inv_bound: Optional[float] = None
    pi_proof_off: Optional[str] = None


@dataclass
class LQRSolution:
    """A totally singular LQR solution (``lth-lqr``; Clark's section 4.2).

    ``x`` (n, nx), ``lam`` (n, nx; lambda), ``u`` (n, nu) at ``times`` (empty
    when ``have_trajectory`` is false), ``cost`` J (None without a trajectory),
    ``exists`` / ``unique`` (Theorems 5-6).  Without a smooth optimum the
    trajectories are the singular arc after an impulse ``jump`` at t0 from
    ``x0`` to ``x0_consistent`` (``jump_in_range_B``) and/or before a
    ``terminal_jump`` at t1 (``terminal_impulse``).  ``residual``, ``cond_W``,
    ``theorem4`` (deviation from P_1' = P_2), ``drift``; ``gain`` (n, nu, 2 nx)
    the closed-loop gain K(t) of u = K [x; lambda] when asked for;
    ``sampling_error`` and ``sampling_error_cost`` (a sampled A, B or H only)
    the estimated errors of (x, lambda, u) and of the cost that the samples'
    fits cause.  ``path`` ("dense" or "operator") the path taken; on the
    operator path ``error_estimate`` and ``intervals`` of the collocation
    and the proof of Pi between the points (``pi_proven``, ``pi_proofs``,
    ``pi_inv_bound``, ``pi_proof_off``), while ``cond_W``, ``theorem4`` and
    ``gain`` are None."""

    times: np.ndarray
    x: np.ndarray
    lam: np.ndarray
    u: np.ndarray
    cost: Optional[float]
    exists: bool
    unique: bool
    have_trajectory: bool
    x0: np.ndarray
    x0_consistent: np.ndarray
    jump: np.ndarray
    jump_in_range_B: bool
    terminal_impulse: bool
    terminal_jump: np.ndarray
    residual: float
    cond_W: Optional[float]
    theorem4: Optional[float]
    drift: float
    nx: int
    nu: int
    p: int
    gain: Optional[np.ndarray] = None
    sampling_error: Optional[float] = None
    sampling_error_cost: Optional[float] = None
    path: str = "dense"
    error_estimate: Optional[float] = None
    intervals: Optional[int] = None
    pi_proven: Optional[float] = None
    pi_proofs: Optional[int] = None
    pi_inv_bound: Optional[float] = None
    pi_proof_off: Optional[str] = None

    @property
    def components(self):
        """Names of the columns of x, lam and u."""
        return ([f"x[{i + 1}]" for i in range(self.nx)]
                + [f"lambda[{i + 1}]" for i in range(self.nx)]
                + [f"u[{i + 1}]" for i in range(self.nu)])
