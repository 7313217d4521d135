"""The latent-ability model behind the Small LM Index.

Every chosen score ``s`` (0-100) of model ``i`` on benchmark ``j`` is read on the logit scale,
``y = logit(s / 100)``, and modelled as ``y ~ Normal(a_j + b_j . theta_i, sigma_j^2)``: a benchmark has a
difficulty ``a_j``, a slope ``b_j`` (how strongly it tracks ability) and a noise level ``sigma_j``; a model
has an ability ``theta_i`` (one number, or two for the comparison variant) with a standard normal prior, so
a model with few scores stays near the average until its scores say otherwise.

Benchmark parameters are fitted by expectation-maximisation with the abilities integrated out, plus weak
priors that keep a benchmark with few scores from running away. (Maximising over abilities and benchmark
parameters jointly was tried first: it lets one benchmark be explained perfectly and calls its noise zero.)
Given the benchmark parameters, a model's ability has a closed-form normal posterior, which gives both the
estimate and its range.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit

# Scores of exactly 0 or 100 have no logit; they are read as half a point inside the scale.
CLIP_LO, CLIP_HI = 0.5, 99.5

# Priors on the logit scale. Wide on difficulty; the first slope centred on 1 (abilities are standard normal,
# so a slope of 1 spreads models over about four logits), a second factor's slope centred on 0.
PRIOR_A_SD = 3.0
PRIOR_B1_MEAN, PRIOR_B_SD = 1.0, 0.6
MIN_SLOPE = 0.3
# Noise variance: inverse-gamma(alpha, beta), which keeps a benchmark's noise away from zero.
PRIOR_SIGMA_ALPHA, PRIOR_SIGMA_BETA = 2.0, 0.2

Params = tuple[np.ndarray, np.ndarray, np.ndarray]


def to_logit(score: np.ndarray | float) -> np.ndarray:
    return logit(np.clip(np.asarray(score, dtype=float), CLIP_LO, CLIP_HI) / 100.0)


def to_score(value: np.ndarray | float) -> np.ndarray:
    return 100.0 * expit(np.asarray(value, dtype=float))


@dataclass(frozen=True)
class Observations:
    """Reported scores in long form: row ``k`` says model ``model[k]`` scored ``score[k]`` on ``bench[k]``."""

    model: np.ndarray  # int indices into the model list
    bench: np.ndarray  # int indices into the benchmark list
    score: np.ndarray  # 0-100
    n_models: int
    n_benches: int

    def without(self, k: int) -> Observations:
        keep = np.ones(len(self.score), dtype=bool)
        keep[k] = False
        return Observations(
            self.model[keep], self.bench[keep], self.score[keep], self.n_models, self.n_benches
        )


@dataclass(frozen=True)
class FittedModel:
    """Benchmark parameters plus each model's ability (posterior mean and covariance)."""

    n_factors: int
    difficulty: np.ndarray  # (J,)
    slope: np.ndarray  # (J, K)
    sigma: np.ndarray  # (J,)
    theta: np.ndarray  # (N, K) posterior means
    theta_cov: np.ndarray  # (N, K, K)
    converged: bool

    def predict_logit(self, model: int, bench: int) -> float:
        return float(self.difficulty[bench] + self.slope[bench] @ self.theta[model])

    def predictive_sd(self, model: int, bench: int) -> float:
        b = self.slope[bench]
        return float(np.sqrt(b @ self.theta_cov[model] @ b + self.sigma[bench] ** 2))


def _dense(obs: Observations, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mask = np.zeros((obs.n_models, obs.n_benches))
    ymat = np.zeros((obs.n_models, obs.n_benches))
    mask[obs.model, obs.bench] = 1.0
    ymat[obs.model, obs.bench] = y
    return mask, ymat


def _e_step(
    mask: np.ndarray, ymat: np.ndarray, a: np.ndarray, b: np.ndarray, sigma: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Posterior mean (N, K) and covariance (N, K, K) of every model's ability."""
    k = b.shape[1]
    w = mask / sigma**2
    outer = (b[:, :, None] * b[:, None, :]).reshape(len(b), k * k)
    precision = np.eye(k)[None] + (w @ outer).reshape(-1, k, k)
    cov = np.linalg.inv(precision)
    h = (w * (ymat - a)) @ b
    mean = np.einsum("nkl,nl->nk", cov, h)
    return mean, cov


def _m_step(
    mask: np.ndarray,
    ymat: np.ndarray,
    mean: np.ndarray,
    cov: np.ndarray,
    sigma: np.ndarray,
    prior_mean: np.ndarray,
    prior_prec: np.ndarray,
) -> Params:
    """MAP update of every benchmark's difficulty, slopes and noise, given the abilities' posteriors."""
    n, k1 = mean.shape[0], mean.shape[1] + 1
    ez = np.concatenate([np.ones((n, 1)), mean], axis=1)  # (N, K+1)
    ezz = ez[:, :, None] * ez[:, None, :]
    ezz[:, 1:, 1:] += cov
    s_zz = (mask.T @ ezz.reshape(n, -1)).reshape(mask.shape[1], k1, k1)
    s_zy = (mask * ymat).T @ ez
    var = sigma**2
    lhs = s_zz + var[:, None, None] * prior_prec[None]
    rhs = s_zy + var[:, None] * (prior_mean @ prior_prec)
    coef = np.linalg.solve(lhs, rhs[..., None])[..., 0]  # (J, K+1)
    a, b = coef[:, 0], coef[:, 1:].copy()
    # A benchmark never gets harder as ability rises: the first slope stays above a small floor. Without it a
    # benchmark reported mostly by specialists (SWE-bench by coding models) can fit a negative slope.
    b[:, 0] = np.maximum(b[:, 0], MIN_SLOPE)
    # Expected squared residual: (y - w.E[z])^2 + b' Cov(theta) b, over the models that reported.
    pred = ez @ coef.T
    k = k1 - 1
    spread = cov.reshape(n, k * k) @ (b[:, :, None] * b[:, None, :]).reshape(len(b), k * k).T
    ss = np.sum(mask * ((ymat - pred) ** 2 + spread), axis=0)
    counts = mask.sum(axis=0)
    new_var = (ss + 2 * PRIOR_SIGMA_BETA) / (counts + 2 * PRIOR_SIGMA_ALPHA + 2)
    return a, b, np.sqrt(new_var)


def _priors(j: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    prior_mean = np.zeros((j, k + 1))
    prior_mean[:, 1] = PRIOR_B1_MEAN
    prior_prec = np.diag([1.0 / PRIOR_A_SD**2] + [1.0 / PRIOR_B_SD**2] * k)
    return prior_mean, prior_prec


def _initial(obs: Observations, y: np.ndarray, k: int) -> Params:
    j = obs.n_benches
    counts = np.maximum(np.bincount(obs.bench, minlength=j), 1)
    a = np.bincount(obs.bench, weights=y, minlength=j) / counts
    b = np.zeros((j, k))
    b[:, 0] = 1.0
    if k > 1:
        b[:, 1:] = 0.1 * np.cos(np.arange(j))[:, None]
    return a, b, np.full(j, 0.5)


def posterior_theta(
    difficulty: np.ndarray, slope: np.ndarray, sigma: np.ndarray, bench: np.ndarray, y: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Normal posterior of one model's ability given benchmark parameters and its logit scores."""
    k = slope.shape[1]
    b = slope[bench]
    inv_var = 1.0 / sigma[bench] ** 2
    precision = np.eye(k) + (b * inv_var[:, None]).T @ b
    cov = np.linalg.inv(precision)
    mean = cov @ (b.T @ ((y - difficulty[bench]) * inv_var))
    return mean, cov


def fit_parameters(
    obs: Observations,
    n_factors: int = 1,
    start: Params | None = None,
    tol: float = 1e-5,
    max_iter: int = 5000,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Params, bool]:
    """Benchmark parameters: difficulty, slope, sigma, the three again as a warm start, and convergence."""
    k = n_factors
    y = to_logit(obs.score)
    mask, ymat = _dense(obs, y)
    prior_mean, prior_prec = _priors(obs.n_benches, k)
    a, b, sigma = _initial(obs, y, k) if start is None else (np.array(p, copy=True) for p in start)
    converged = False
    for _ in range(max_iter):
        mean, cov = _e_step(mask, ymat, a, b, sigma)
        a_new, b_new, s_new = _m_step(mask, ymat, mean, cov, sigma, prior_mean, prior_prec)
        change = max(np.max(np.abs(a_new - a)), np.max(np.abs(b_new - b)), np.max(np.abs(s_new - sigma)))
        a, b, sigma = a_new, b_new, s_new
        if change < tol:
            converged = True
            break
    if k == 1 and np.sum(b[:, 0]) < 0:  # the sign of a lone factor is arbitrary: make "higher is better"
        b = -b
    return a, b, sigma, (a, b, sigma), converged


def fit(obs: Observations, n_factors: int = 1, start: Params | None = None) -> tuple[FittedModel, Params]:
    """Fit the model; returns it and its parameters as a warm start for a nearby fit."""
    a, b, sigma, params, converged = fit_parameters(obs, n_factors, start)
    mask, ymat = _dense(obs, to_logit(obs.score))
    theta, cov = _e_step(mask, ymat, a, b, sigma)
    return FittedModel(n_factors, a, b, sigma, theta, cov, converged), params
