"""``FastMaskablePPO``: sb3-contrib's ``MaskablePPO`` with a cheaper ``train()`` (the PPO update).

The update was about three quarters of a batched training run, and with a [128, 128] network
on a few hundred nonzero input columns most of a 512-row minibatch's ~7 ms was per-call
overhead rather than arithmetic. :meth:`FastMaskablePPO.train` computes what
``MaskablePPO.train`` computes: the same minibatches in the same order (one
``np.random.permutation`` per epoch), the same losses, ratio clipping, gradient-norm clipping,
Adam steps, ``target_kl`` early stop and logger keys and values. It differs only in how:

* The features extractor has no parameters (``flat``, ``fight5_slot``), so it runs once per
  rollout over all of it instead of once per minibatch, and the all-zero feature columns are
  found once per rollout too (:meth:`FastMaskablePolicy.nonzero_columns`; a zero column adds
  exactly nothing to the first layers' product). Minibatches are cut from those reduced
  features, and the masks are converted to booleans once.
* The logged statistics stay tensors and are turned into numbers once per update instead of
  five ``.item()`` calls per minibatch; ``clip_fraction`` and ``approx_kl`` reuse the ratio
  already computed for the loss, outside autograd.
* The parameter list for gradient clipping is built once per update, not once per minibatch.
* An extractor with parameters that offers ``prepare`` (``fight_klub_pointer``: its answer
  features, and each card slot's index among the distinct cards, so that a minibatch embeds each
  distinct card once) runs per minibatch, as it must, but its ``prepare`` runs once per rollout, and
  each minibatch's observations are rebuilt from the rollout's nonzero columns
  (:meth:`FastMaskablePPO._prepared_evaluator`).

With ``target_kl`` set, the KL estimate is read every minibatch (as the stock code must, to stop).
Anything the fast path does not cover (another policy or buffer class, a non-Discrete action
space, an extractor with parameters and no ``prepare``) runs the stock ``MaskablePPO.train``. A saved model is an
ordinary MaskablePPO file: ``MaskablePPO.load`` and ``FastMaskablePPO.load`` both read it.
``tests/train/test_fast_ppo.py`` checks a whole update against the stock one.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from stable_baselines3.common.utils import explained_variance
from torch.nn import functional as F

from fight_envs.train.features import (
    FEATURES,
    FastMaskablePolicy,
    FastMaskableRolloutBuffer,
    PrivilegedCriticExtractor,
    nonzero_columns,
)

PREPARE_CHUNK = 512
"""Rows per call of an extractor's ``prepare`` in the update. Its intermediates grow with the rows, and
past a few hundred rows they stop fitting the caches: Fight Klub's prepare of an 8,192-decision update
took 0.7-1.1 s in chunks of 256 to 1,024 rows, 1.1 s in chunks of 2,048 and 1.9-2.8 s in chunks of 4,096
(2026-12-07, beside two evaluations)."""


def clip_grad_norm(parameters: list[th.Tensor], max_norm: float) -> None:
    """``torch.nn.utils.clip_grad_norm_(parameters, max_norm)`` for parameters on one device with one
    dtype (the policy's): the same operations (``_foreach_norm``, the norm of their stack, the clamped
    factor, ``_foreach_mul_``) without regrouping the tensors by device and dtype on every call."""
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return
    total_norm = th.linalg.vector_norm(th.stack(th._foreach_norm(grads, 2.0)), 2.0)
    th._foreach_mul_(grads, th.clamp(max_norm / (total_norm + 1e-6), max=1.0))


def _known_extractor(extractor: Any) -> bool:
    """One of the suite's extractors (``FEATURES``), or the privileged critic's wrapper of one."""
    if isinstance(extractor, PrivilegedCriticExtractor):
        extractor = extractor.inner
    return type(extractor) in FEATURES.values()


class FastMaskablePPO(MaskablePPO):
    """``MaskablePPO`` whose ``train()`` does the same update with fewer operations (module docstring)."""

    def _fast_update(self) -> bool:
        policy = self.policy
        return (isinstance(policy, FastMaskablePolicy) and policy._fast_path()
                and isinstance(self.rollout_buffer, FastMaskableRolloutBuffer)
                and isinstance(self.action_space, spaces.Discrete)
                and _known_extractor(policy.features_extractor)
                and not any(True for _ in policy.features_extractor.parameters()))

    def _prepared_update(self) -> bool:
        """An extractor with parameters that offers ``prepare`` (``fight_klub_pointer``): the update of
        :meth:`_prepared_evaluator` (flat observations only)."""
        policy = self.policy
        return (isinstance(policy, FastMaskablePolicy) and policy.share_features_extractor
                and isinstance(self.rollout_buffer, FastMaskableRolloutBuffer)
                and isinstance(self.action_space, spaces.Discrete)
                and isinstance(policy.action_dist, MaskableCategoricalDistribution)
                and len(self.observation_space.shape) == 1
                and callable(getattr(policy.features_extractor, "prepare", None)))

    def _features_evaluator(self, observations: th.Tensor, actions: th.Tensor, masks: th.Tensor) -> Any:
        """``evaluate(rows)`` for a parameter-free extractor: its features of the whole rollout once, cut
        to the columns nonzero somewhere in it; each minibatch takes its rows of them."""
        policy: FastMaskablePolicy = self.policy  # type: ignore[assignment]
        with th.no_grad():
            features = policy.extract_features(observations)
            columns = policy.nonzero_columns(features)
            if columns is not None:
                features = features.index_select(1, columns)

        def evaluate(rows: th.Tensor) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
            return policy.evaluate_latents(
                *policy.latents_of_columns(features.index_select(0, rows), columns),
                actions.index_select(0, rows), masks.index_select(0, rows), fused=True)

        return evaluate

    def _prepared_evaluator(self, observations: th.Tensor, actions: th.Tensor, masks: th.Tensor) -> Any:
        """``evaluate(rows)`` for an extractor with parameters and ``prepare``; ``observations`` in the
        buffer's (step, env) order (:meth:`FastMaskableRolloutBuffer.rollout_parts`).

        Once per rollout: the extractor's ``prepare`` of every observation (its parameter-free
        part), and the observation columns nonzero anywhere in the rollout, gathered (in Fight Klub
        about 2,500 of 20,274). Per minibatch, its observations are rebuilt exactly in a buffer
        whose other columns stay zero, which costs a tenth of gathering the whole rows of a fresh
        tensor; the extractor then runs with its prepared rows. The features are those of the stock
        ``extract_features`` (``fight_klub_pointer``'s card embeddings, computed once per distinct card
        and gathered, to float32 rounding); the rest is :meth:`FastMaskablePolicy.evaluate_latents`."""
        policy: FastMaskablePolicy = self.policy  # type: ignore[assignment]
        extractor = policy.features_extractor
        order = self.rollout_buffer.obs_index  # type: ignore[attr-defined]
        with th.no_grad():
            # prepared in chunks (bounded memory), then put in get's numbering (small tensors)
            chunks = [extractor.prepare(observations[i:i + PREPARE_CHUNK])
                      for i in range(0, observations.shape[0], PREPARE_CHUNK)]
            prepared = [th.cat(parts).index_select(0, order) for parts in zip(*chunks)]
            columns = nonzero_columns(observations)
            gathered = observations.index_select(1, columns).index_select(0, order)
        canvas = th.zeros((self.batch_size, observations.shape[1]), dtype=gathered.dtype, device=gathered.device)

        def evaluate(rows: th.Tensor) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
            x = canvas[:len(rows)]
            x[:, columns] = gathered.index_select(0, rows)  # the other columns are zero in every row
            features = extractor(x, *(p.index_select(0, rows) for p in prepared))
            latent_pi, latent_vf = policy.mlp_extractor(features)
            return policy.evaluate_latents(latent_pi, latent_vf, actions.index_select(0, rows),
                                           masks.index_select(0, rows), fused=True)

        return evaluate

    def train(self) -> None:
        fast = self._fast_update()
        if not fast and not self._prepared_update():
            return super().train()
        policy: FastMaskablePolicy = self.policy  # type: ignore[assignment]
        buffer: FastMaskableRolloutBuffer = self.rollout_buffer  # type: ignore[assignment]
        policy.set_training_mode(True)
        self._update_learning_rate(policy.optimizer)
        clip_range = self.clip_range(self._current_progress_remaining)  # type: ignore[operator]
        if self.clip_range_vf is not None:
            clip_range_vf = self.clip_range_vf(self._current_progress_remaining)  # type: ignore[operator]

        # ---- Once per rollout: the rollout's tensors, actions and masks as the update uses them, and how a
        # minibatch's values, log-probabilities and entropies are computed from its rows.
        if fast:
            observations, actions, old_values, old_log_probs, advantages_all, returns, masks = buffer.rollout_tensors()
        else:
            observations, (actions, old_values, old_log_probs, advantages_all, returns, masks) = buffer.rollout_parts()
        actions = actions.long().flatten()
        masks = masks.to(th.bool)
        evaluate = (self._features_evaluator if fast else self._prepared_evaluator)(observations, actions, masks)
        parameters = list(policy.parameters())

        entropy_losses: list[th.Tensor] = []
        pg_losses: list[th.Tensor] = []
        value_losses: list[th.Tensor] = []
        clip_fractions: list[th.Tensor] = []
        continue_training = True
        for epoch in range(self.n_epochs):
            approx_kl_divs: list[th.Tensor] = []
            for rows in buffer.minibatch_rows(self.batch_size):
                values, log_prob, entropy = evaluate(rows)
                values = values.flatten()
                advantages = advantages_all.index_select(0, rows)
                if self.normalize_advantage:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)

                log_ratio = log_prob - old_log_probs.index_select(0, rows)
                ratio = th.exp(log_ratio)
                policy_loss_1 = advantages * ratio
                policy_loss_2 = advantages * th.clamp(ratio, 1 - clip_range, 1 + clip_range)
                policy_loss = -th.min(policy_loss_1, policy_loss_2).mean()

                if self.clip_range_vf is None:
                    values_pred = values
                else:
                    old = old_values.index_select(0, rows)
                    values_pred = old + th.clamp(values - old, -clip_range_vf, clip_range_vf)
                value_loss = F.mse_loss(returns.index_select(0, rows), values_pred)
                entropy_loss = -th.mean(entropy)
                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss

                with th.no_grad():
                    ratio_minus_one = ratio.detach() - 1
                    clip_fractions.append(th.mean((th.abs(ratio_minus_one) > clip_range).float()))
                    approx_kl_div = th.mean(ratio_minus_one - log_ratio.detach())
                pg_losses.append(policy_loss.detach())
                value_losses.append(value_loss.detach())
                entropy_losses.append(entropy_loss.detach())
                approx_kl_divs.append(approx_kl_div)

                if self.target_kl is not None:
                    kl = approx_kl_div.cpu().numpy()  # compared as the stock code compares it
                    if kl > 1.5 * self.target_kl:
                        continue_training = False
                        if self.verbose >= 1:
                            print(f"Early stopping at step {epoch} due to reaching max kl: {kl:.2f}")
                        break

                policy.optimizer.zero_grad()
                loss.backward()
                clip_grad_norm(parameters, self.max_grad_norm)
                policy.optimizer.step()

            self._n_updates += 1
            if not continue_training:
                break
        explained_var = explained_variance(buffer.values.flatten(), buffer.returns.flatten())

        # Logs: the stock values (means of Python floats, approx_kl over the last epoch in float32).
        def mean(stats: list[th.Tensor]) -> np.floating:
            return np.mean(th.stack(stats).double().cpu().numpy())

        self.logger.record("train/entropy_loss", mean(entropy_losses))
        self.logger.record("train/policy_gradient_loss", mean(pg_losses))
        self.logger.record("train/value_loss", mean(value_losses))
        self.logger.record("train/approx_kl", np.mean(th.stack(approx_kl_divs).cpu().numpy()))
        self.logger.record("train/clip_fraction", mean(clip_fractions))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)
        if self.clip_range_vf is not None:
            self.logger.record("train/clip_range_vf", clip_range_vf)
