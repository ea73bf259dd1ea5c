"""Hand-written realistic bugs in the reference implementations, one contract point each.

They are the mistakes an engineer makes when writing the code from problem.md (several are what
the first draft of a rewrite did), written as whole edits rather than one-token mutations, so
they reach what bugsmith's mutators do not: a criterion swapped for another, a check moved after
the state change, a rule applied to the wrong rows. test_realistic_bugs.py checks that the
suites, which assert no message, catch each one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Bug:
    name: str
    problem: str
    file: str  # inside reference/<problem>/
    old: str  # must occur exactly once
    new: str
    breaks: str  # the contract point of tests/contract/tables/<problem>.md it breaks
    more: tuple[tuple[str, str], ...] = ()  # further (old, new) edits of the same file


BUGS = (
    # --- auc ----------------------------------------------------------------------------------
    Bug(name="auc-tie-runs-end-at-their-first-sample", problem="auc", file="auc.py",
        old="last = np.r_[np.flatnonzero(np.diff(scores)), scores.size - 1]",
        new="last = np.r_[0, np.flatnonzero(np.diff(scores)) + 1]",
        breaks="ties-move-together"),
    Bug(name="auc-negatives-counted-not-weighed", problem="auc", file="auc.py",
        old="fps = np.cumsum(weights * ~positive)", new="fps = np.cumsum(~positive).astype(float)",
        breaks="weights-in-every-rate"),
    Bug(name="auc-first-threshold-is-max-plus-one", problem="auc", file="auc.py",
        old="return fpr, tpr, np.r_[np.inf, scores[last]]",
        new="return fpr, tpr, np.r_[scores[0] + 1, scores[last]]",
        breaks="first-point"),
    Bug(name="auc-rectangles-instead-of-trapezoids", problem="auc", file="auc.py",
        old="np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1])) / 2",
        new="np.sum(np.diff(fpr) * tpr[1:])",
        breaks="auc-trapezoid"),
    Bug(name="auc-labels-checked-as-a-range", problem="auc", file="auc.py",
        old="binary = np.isin(labels, (0, 1))",
        new="binary = (labels.astype(float) >= 0) & (labels.astype(float) <= 1)",
        breaks="error-labels"),
    Bug(name="auc-classes-counted-before-dropping-zero-weights", problem="auc", file="auc.py",
        old="    positive = labels[keep] == 1\n    if positive.all() or not positive.any():",
        new="    positive = labels[keep] == 1\n    if (labels == 1).all() or not (labels == 1).any():",
        breaks="error-one-class-after-zero-weights"),
    Bug(name="auc-scores-validated-after-dropping-zero-weights", problem="auc", file="auc.py",
        old=("    if not np.isfinite(scores).all():\n"
             "        raise ValueError(\"y_score must be finite (no NaN or inf)\")\n"),
        new="",
        breaks="validate-zero-weight-samples"),
    Bug(name="auc-any-two-d-input-flattened", problem="auc", file="auc.py",
        old="if array.ndim == 2 and array.shape[1] == 1:", new="if array.ndim == 2:",
        breaks="error-shape-two-columns"),
    # The larger of any two label values taken as the positive class, as scikit-learn does for
    # {-1, 1}: problem.md accepts 0/1 (or booleans) alone.
    Bug(name="auc-any-two-labels-accepted", problem="auc", file="auc.py",
        old="binary = np.isin(labels, (0, 1))", new="binary = np.full(labels.shape, np.unique(labels).size <= 2)",
        more=(("positive = labels[keep] == 1", "positive = labels[keep] == labels.max()"),),
        breaks="error-labels"),
    # NaN compares false, so `weights > 0` drops a NaN-weighted sample as if its weight were 0.
    Bug(name="auc-nan-weights-read-as-zero", problem="auc", file="auc.py",
        old="if not np.isfinite(weights).all() or (weights < 0).any():",
        new="if np.isinf(weights).any() or (weights < 0).any():",
        breaks="error-weight-nan"),
    # --- scheduler ------------------------------------------------------------------------------
    Bug(name="scheduler-small-requests-overtake-a-blocked-head", problem="scheduler", file="scheduler.py",
        old="""        while self._waiting:
            entry = self._waiting[0]
            if not self._fits(entry.request, budget):
                break  # FCFS: a head that does not fit blocks everyone behind it
            self._waiting.popleft()""",
        new="""        for entry in list(self._waiting):
            if not self._fits(entry.request, budget):
                continue
            self._waiting.remove(entry)""",
        breaks="blocked-head-stops-admission"),
    Bug(name="scheduler-cap-ignores-requests-admitted-this-step", problem="scheduler", file="scheduler.py",
        old="""        admitted: list[_Entry] = []
        while self._waiting:""",
        new="""        admitted: list[_Entry] = []
        self._running_at_start = len(self._running)
        while self._waiting:""",
        more=(("return self._max_running is None or len(self._running) < self._max_running",
               "return self._max_running is None or self._running_at_start < self._max_running"),),
        breaks="admit-if-fits-and-under-cap"),
    Bug(name="scheduler-finished-requests-leave-a-step-late", problem="scheduler", file="scheduler.py",
        old="        decoded = self._running\n",
        new="        decoded = [entry for entry in self._running if entry.state is State.DECODE]\n",
        more=(("self._running = [entry for entry in decoded if entry.state is State.DECODE]",
               "self._running = list(decoded)"),),
        breaks="finish-in-same-step"),
    Bug(name="scheduler-admission-before-decodes", problem="scheduler", file="scheduler.py",
        old="""        decoded, finished = self._decode()
        prefilled = self._admit(self._token_budget - len(decoded))""",
        new="""        prefilled = self._admit(self._token_budget - len(self._running))
        decoded, finished = self._decode()""",
        breaks="first-token-next-step"),
    Bug(name="scheduler-finished-ids-may-be-reused", problem="scheduler", file="scheduler.py",
        old="if request.rid in self._entries:",
        new="if request.rid in self._entries and self._entries[request.rid].state is not State.FINISHED:",
        breaks="submit-duplicate"),
    Bug(name="scheduler-queued-before-the-budget-check", problem="scheduler", file="scheduler.py",
        old="""        if request.prompt_tokens > self._token_budget:""",
        new="""        self._entries[request.rid] = _Entry(request)
        if request.prompt_tokens > self._token_budget:""",
        breaks="rejected-call-changes-nothing"),
    Bug(name="scheduler-run-checks-the-limit-after-stepping", problem="scheduler", file="scheduler.py",
        old="""            if len(results) == max_steps:
                raise RuntimeError(f"requests still unfinished after {max_steps} steps")
            results.append(self.step())""",
        new="""            results.append(self.step())
            if len(results) >= max_steps and (self._waiting or self._running):
                raise RuntimeError(f"requests still unfinished after {max_steps} steps")""",
        breaks="run-raises-after-max-steps"),
    Bug(name="scheduler-idle-steps-not-counted", problem="scheduler", file="scheduler.py",
        old="        self._steps += 1\n",
        new="        self._steps += 1 if (self._waiting or self._running) else 0\n",
        breaks="idle-step"),
    Bug(name="scheduler-tokens-used-forgets-decodes", problem="scheduler", file="scheduler.py",
        old="tokens_used=len(decoded) + sum(", new="tokens_used=0 + sum(",
        breaks="tokens-used"),
    # --- rolling_features -----------------------------------------------------------------------
    Bug(name="rolling-shift-runs-across-entities", problem="rolling_features", file="rolling_features.py",
        old="past = _per_entity(values, entity).shift(1)", new="past = values.shift(1)",
        breaks="past-and-same-entity-only"),
    Bug(name="rolling-offset-window-drops-its-left-edge", problem="rolling_features",
        file="rolling_features.py", old='closed="left"', new='closed="neither"',
        breaks="offset-window"),
    Bug(name="rolling-offset-window-includes-the-row", problem="rolling_features",
        file="rolling_features.py", old='closed="left"', new='closed="both"',
        breaks="past-and-same-entity-only"),
    Bug(name="rolling-integer-window-needs-one-observation", problem="rolling_features",
        file="rolling_features.py",
        old="return _per_entity(past, entity).rolling(window, min_periods=min_periods)",
        new="return _per_entity(past, entity).rolling(window, min_periods=min_periods or 1)",
        breaks="min-periods-defaults"),
    Bug(name="rolling-population-std", problem="rolling_features", file="rolling_features.py",
        old="features[name] = getattr(rolling, stat)().to_numpy()",
        new='features[name] = getattr(rolling, stat)(**({"ddof": 0} if stat == "std" else {})).to_numpy()',
        breaks="sample-std"),
    Bug(name="rolling-rows-put-back-by-index-label", problem="rolling_features", file="rolling_features.py",
        old="ordered = df.reset_index(drop=True).sort_values(keys)", new="ordered = df.sort_values(keys)",
        breaks="index-and-order-kept"),
    Bug(name="rolling-duplicates-checked-on-time-alone", problem="rolling_features",
        file="rolling_features.py", old="if df.duplicated(keys).any():", new="if df.duplicated([time]).any():",
        breaks="one-row-per-time"),
    Bug(name="rolling-missing-entities-not-checked", problem="rolling_features", file="rolling_features.py",
        old="if df[keys].isna().any(axis=None):", new="if df[time].isna().any():",
        breaks="by-complete"),
    Bug(name="rolling-bare-strings-read-as-lists", problem="rolling_features", file="rolling_features.py",
        old="if isinstance(items, (str, int)):", new="if isinstance(items, int):",
        breaks="valueerror-bare-windows-or-stats"),
    Bug(name="rolling-numeric-times-accepted", problem="rolling_features", file="rolling_features.py",
        old="if not pd.api.types.is_datetime64_any_dtype(df[time]):",
        new="if not (pd.api.types.is_datetime64_any_dtype(df[time]) or pd.api.types.is_numeric_dtype(df[time])):",
        breaks="valueerror-time-not-datetime"),
    Bug(name="rolling-bool-values-refused", problem="rolling_features", file="rolling_features.py",
        old="if not pd.api.types.is_numeric_dtype(df[value]):",
        new="if pd.api.types.is_bool_dtype(df[value]) or not pd.api.types.is_numeric_dtype(df[value]):",
        breaks="value-numeric"),
    # --- extra_trees ----------------------------------------------------------------------------
    Bug(name="trees-children-impurity-not-weighted", problem="extra_trees", file="tree.py",
        old="""        (left_sums**2).sum(axis=1) / n_left[valid]
        + (right_sums**2).sum(axis=1) / n_right[valid]""",
        new="""        (left_sums**2).sum(axis=1) / n_left[valid] ** 2
        + (right_sums**2).sum(axis=1) / n_right[valid] ** 2""",
        breaks="best-impurity-decrease"),
    Bug(name="trees-threshold-range-of-all-rows", problem="extra_trees", file="tree.py",
        old="low, high = values.min(axis=0), values.max(axis=0)",
        new="low, high = X[:, candidates].min(axis=0), X[:, candidates].max(axis=0)",
        breaks="uniform-threshold"),
    Bug(name="trees-bootstrap-rows", problem="extra_trees", file="tree.py",
        old="queue = deque([(np.arange(len(X)), 0)])",
        new="queue = deque([(rng.integers(0, len(X), len(X)), 0)])",
        breaks="no-bootstrap"),
    Bug(name="trees-features-drawn-with-replacement", problem="extra_trees", file="tree.py",
        old="candidates = rng.permutation(X.shape[1])[: rules.n_candidates]",
        new="candidates = rng.integers(0, X.shape[1], rules.n_candidates)",
        breaks="distinct-candidates"),
    Bug(name="trees-min-samples-leaf-on-the-left-only", problem="extra_trees", file="tree.py",
        old="valid = (n_left >= rules.min_samples_leaf) & (n_right >= rules.min_samples_leaf)",
        new="valid = (n_left >= rules.min_samples_leaf) & (n_right >= 1)",
        breaks="valid-candidates"),
    Bug(name="trees-root-at-depth-one", problem="extra_trees", file="tree.py",
        old="queue = deque([(np.arange(len(X)), 0)])", new="queue = deque([(np.arange(len(X)), 1)])",
        breaks="root-depth-zero"),
    Bug(name="trees-apply-sends-ties-right", problem="extra_trees", file="tree.py",
        old="go_left = X[inner, self.feature[at]] <= self.threshold[at]",
        new="go_left = X[inner, self.feature[at]] < self.threshold[at]",
        breaks="left-when-at-most-threshold"),
    Bug(name="trees-sqrt-rounded-up", problem="extra_trees", file="forest.py",
        old="return int(np.sqrt(n_features))", new="return int(np.ceil(np.sqrt(n_features)))",
        breaks="max-features-resolution"),
    Bug(name="trees-float-max-features-rounded", problem="extra_trees", file="forest.py",
        old="return max(1, int(max_features * n_features))", new="return max(1, round(max_features * n_features))",
        breaks="max-features-resolution"),
    Bug(name="trees-classifier-defaults-to-all-features", problem="extra_trees", file="forest.py",
        old='max_features: MaxFeatures = "sqrt",', new="max_features: MaxFeatures = 1.0,",
        breaks="constructor-defaults"),
    Bug(name="trees-probability-tie-to-the-last-class", problem="extra_trees", file="forest.py",
        old="return self.classes_[proba.argmax(axis=1)]",
        new="return self.classes_[proba.shape[1] - 1 - proba[:, ::-1].argmax(axis=1)]",
        breaks="predict-argmax-first-on-tie"),
    Bug(name="trees-width-not-checked-at-predict", problem="extra_trees", file="forest.py",
        old="if X.shape[1] != self.n_features_in_:", new="if X.shape[1] < self.n_features_in_:",
        breaks="predict-width"),
    # --- kv_cache (issue 17, problem 5) ----------------------------------------------------------
    Bug(name="kv-ceil-adds-a-block-to-exact-multiples", problem="kv_cache", file="allocator.py",
        old="blocks = self._take((num_tokens + self._block_size - 1) // self._block_size)",
        new="blocks = self._take(num_tokens // self._block_size + 1)",
        breaks="ceil-blocks"),
    Bug(name="kv-capacity-checked-after-taking-blocks", problem="kv_cache", file="allocator.py",
        old="""        if count > len(self._free):
            raise OutOfBlocks(f"{count} blocks needed, {len(self._free)} free")
        blocks = sorted(self._free)[:count]
        self._free.difference_update(blocks)
""",
        new="""        blocks = sorted(self._free)[:count]
        self._free.difference_update(blocks)
        if count > len(blocks):
            raise OutOfBlocks(f"{count} blocks needed, {len(blocks)} free")
""",
        breaks="rejected-call-changes-nothing"),
    Bug(name="kv-copy-on-write-forgotten", problem="kv_cache", file="allocator.py",
        old="""        elif self._refs[sequence.blocks[-1]] > 1:
            # Copy-on-write: the other holders keep the shared block as it is.
            (block,) = self._take(1)
            self._release(sequence.blocks[-1])
            sequence.blocks[-1] = block
        else:""",
        new="""        else:""",
        breaks="copy-on-write"),
    Bug(name="kv-copy-keeps-the-shared-count", problem="kv_cache", file="allocator.py",
        old="""            self._release(sequence.blocks[-1])
            sequence.blocks[-1] = block""",
        new="""            sequence.blocks[-1] = block""",
        breaks="copy-on-write"),
    Bug(name="kv-free-returns-shared-blocks-to-the-pool", problem="kv_cache", file="allocator.py",
        old="""        self._refs[block] -= 1
        if self._refs[block] == 0:
            self._free.add(block)""",
        new="""        self._refs[block] -= 1
        self._free.add(block)""",
        breaks="free"),
    Bug(name="kv-fork-does-not-count-references", problem="kv_cache", file="allocator.py",
        old="""        for block in parent.blocks:
            self._refs[block] += 1
""",
        new="",
        breaks="fork"),
    Bug(name="kv-highest-free-block-first", problem="kv_cache", file="allocator.py",
        old="blocks = sorted(self._free)[:count]", new="blocks = sorted(self._free, reverse=True)[:count]",
        breaks="lowest-free-first"),
    Bug(name="kv-full-shared-block-copied-instead-of-extended", problem="kv_cache", file="allocator.py",
        old="""        if sequence.tokens % self._block_size == 0:
            (block,) = self._take(1)
            sequence.blocks.append(block)
        elif self._refs[sequence.blocks[-1]] > 1:""",
        new="""        if self._refs[sequence.blocks[-1]] > 1:""",
        more=(("""            sequence.blocks[-1] = block
        else:""", """            sequence.blocks[-1] = block
        elif sequence.tokens % self._block_size == 0:
            (block,) = self._take(1)
            sequence.blocks.append(block)
        else:"""),),
        breaks="append-full-takes-a-block"),
    Bug(name="kv-sole-holder-copies-too", problem="kv_cache", file="allocator.py",
        old="elif self._refs[sequence.blocks[-1]] > 1:", new="elif self._refs[sequence.blocks[-1]] >= 1:",
        breaks="append-in-place"),
    Bug(name="kv-shared-block-released-before-the-copy-is-taken", problem="kv_cache", file="allocator.py",
        old="""            (block,) = self._take(1)
            self._release(sequence.blocks[-1])
            sequence.blocks[-1] = block""",
        new="""            self._release(sequence.blocks[-1])
            (block,) = self._take(1)
            sequence.blocks[-1] = block""",
        breaks="append-out-of-blocks"),
    Bug(name="kv-fork-overwrites-a-live-child", problem="kv_cache", file="allocator.py",
        old="""        if child_id in self._sequences:
            raise ValueError(f"sequence {child_id!r} already exists")
        for block""",
        new="""        for block""",
        breaks="fork-live-child"),
    Bug(name="kv-ref-count-accepts-num-blocks", problem="kv_cache", file="allocator.py",
        old="if not 0 <= block < self._num_blocks:", new="if not 0 <= block <= self._num_blocks:",
        breaks="ref-count-validation"),
    # --- attention (issue 17, problem 6) ---------------------------------------------------------
    Bug(name="attn-causal-diagonal-not-shifted", problem="attention", file="attention.py",
        old="np.arange(n_keys) <= rows + (n_keys - n_queries)", new="np.arange(n_keys) <= rows",
        breaks="causal"),
    Bug(name="attn-scaled-by-d-not-sqrt-d", problem="attention", file="attention.py",
        old="/ np.sqrt(q.shape[-1])", new="/ q.shape[-1]",
        breaks="scaled-scores"),
    Bug(name="attn-scaled-by-dv", problem="attention", file="attention.py",
        old="/ np.sqrt(q.shape[-1])", new="/ np.sqrt(v.shape[-1])",
        breaks="scaled-scores"),
    Bug(name="attn-softmax-over-the-queries", problem="attention", file="attention.py",
        old="weights = softmax(scores, axis=-1)", new="weights = softmax(scores, axis=-2)",
        breaks="weights-and-output"),
    Bug(name="attn-softmax-max-not-subtracted", problem="attention", file="attention.py",
        old="exps = np.exp(x - peak)", new="exps = np.exp(x)",
        breaks="softmax-stable"),
    Bug(name="attn-all-neg-inf-slice-is-nan", problem="attention", file="attention.py",
        old="return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)",
        new="return exps / total",
        breaks="softmax-neg-inf"),
    Bug(name="attn-mask-transposed", problem="attention", file="attention.py",
        old="scores = np.where(_broadcast_mask(mask, scores.shape), scores, -np.inf)",
        new="scores = np.where(_broadcast_mask(np.asarray(mask).T, scores.shape), scores, -np.inf)",
        breaks="mask"),
    Bug(name="attn-mask-ignored-when-causal", problem="attention", file="attention.py",
        old="    if mask is not None:\n", new="    elif mask is not None:\n",
        breaks="mask-and-causal"),
    Bug(name="attn-masked-with-minus-a-billion", problem="attention", file="attention.py",
        old="scores = np.where(_broadcast_mask(mask, scores.shape), scores, -np.inf)",
        new="scores = np.where(_broadcast_mask(mask, scores.shape), scores, -1e9)",
        breaks="nothing-to-attend"),
    Bug(name="attn-leading-dimensions-broadcast", problem="attention", file="attention.py",
        old="""    if not q.shape[:-2] == k.shape[:-2] == v.shape[:-2]:
        raise ValueError(f"q, k and v must have the same leading dimensions, got {q.shape}, {k.shape}, {v.shape}")
""",
        new="",
        breaks="error-leading"),
    Bug(name="attn-mask-broadcast-both-ways", problem="attention", file="attention.py",
        old="return np.broadcast_to(np.asarray(mask, dtype=bool), shape)",
        new="return np.asarray(mask, dtype=bool) | np.zeros(shape, dtype=bool)",
        breaks="error-mask-more-dimensions"),
    # --- pr_curve -------------------------------------------------------------------------------
    Bug(name="pr-thresholds-left-decreasing", problem="pr_curve", file="pr_curve.py",
        old="np.r_[recall[::-1], 0.0], scores[last][::-1]", new="np.r_[recall[::-1], 0.0], scores[last]",
        breaks="one-point-per-distinct-score"),
    Bug(name="pr-final-point-missing", problem="pr_curve", file="pr_curve.py",
        old="return np.r_[precision[::-1], 1.0], np.r_[recall[::-1], 0.0], scores[last][::-1]",
        new="return precision[::-1], recall[::-1], scores[last][::-1]",
        breaks="final-point"),
    Bug(name="pr-ap-by-trapezoids", problem="pr_curve", file="pr_curve.py",
        old="np.sum((recall[:-1] - recall[1:]) * precision[:-1])",
        new="np.sum((recall[:-1] - recall[1:]) * (precision[:-1] + precision[1:]) / 2)",
        breaks="ap-step-sum"),
    Bug(name="pr-ap-recall-difference-reversed", problem="pr_curve", file="pr_curve.py",
        old="np.sum((recall[:-1] - recall[1:]) * precision[:-1])",
        new="np.sum((recall[1:] - recall[:-1]) * precision[:-1])",
        breaks="ap-step-sum"),
    Bug(name="pr-ap-weighted-by-the-step-start", problem="pr_curve", file="pr_curve.py",
        old="np.sum((recall[:-1] - recall[1:]) * precision[:-1])",
        new="np.sum((recall[:-1] - recall[1:]) * precision[1:])",
        breaks="ap-step-sum"),
    Bug(name="pr-ties-split-into-points", problem="pr_curve", file="pr_curve.py",
        old="last = np.r_[np.flatnonzero(np.diff(scores)), scores.size - 1]",
        new="last = np.arange(scores.size)",
        breaks="ties-move-together"),
    Bug(name="pr-zero-weights-create-points", problem="pr_curve", file="pr_curve.py",
        old="keep = weights > 0", new="keep = weights >= 0",
        breaks="zero-weight-ignored"),
    Bug(name="pr-no-positive-recall-zero", problem="pr_curve", file="pr_curve.py",
        old="else np.ones(tps.size)", new="else np.zeros(tps.size)",
        breaks="no-positive-convention"),
    Bug(name="pr-precision-over-all-samples", problem="pr_curve", file="pr_curve.py",
        old="precision = tps / (tps + fps)", new="precision = tps / (tps[-1] + fps[-1])",
        breaks="precision-definition"),
    Bug(name="pr-negatives-counted-not-weighed", problem="pr_curve", file="pr_curve.py",
        old="fps = np.cumsum(weights * ~positive)[last]", new="fps = np.cumsum(~positive)[last]",
        breaks="weights-in-every-count"),
    Bug(name="pr-one-class-refused-as-for-auc", problem="pr_curve", file="pr_curve.py",
        old="if not keep.any():",
        new="if not keep.any() or (labels[keep] == 1).all() or not (labels[keep] == 1).any():",
        breaks="one-class-is-valid"),
    Bug(name="pr-any-two-labels-accepted", problem="pr_curve", file="pr_curve.py",
        old="binary = np.isin(labels, (0, 1))", new="binary = np.full(labels.shape, np.unique(labels).size <= 2)",
        more=(("return labels[keep] == 1, scores[keep]", "return labels[keep] == labels.max(), scores[keep]"),),
        breaks="error-labels"),
    Bug(name="pr-scores-checked-only-where-weighted", problem="pr_curve", file="pr_curve.py",
        old=("    if not np.isfinite(scores).all():\n"
             "        raise ValueError(\"y_score must be finite (no NaN or inf)\")\n"),
        new="",
        breaks="validate-zero-weight-samples"),
    # --- target_encoding ------------------------------------------------------------------------
    Bug(name="te-ties-in-time-count-as-earlier", problem="target_encoding", file="target_encoding.py",
        old='earlier = per_time.groupby(level="key").cumsum().groupby(level="key").shift(1, fill_value=0)',
        new='earlier = per_time.groupby(level="key").cumsum()',
        more=(("    encoded = _smoothed(at_row[\"sum\"].to_numpy(), at_row[\"count\"].to_numpy(), priors, smoothing)\n"
               "    return pd.Series(encoded, index=df.index,",
               "    encoded = _smoothed(at_row[\"sum\"].to_numpy() - y, at_row[\"count\"].to_numpy() - 1, priors, smoothing)\n"
               "    return pd.Series(encoded, index=df.index,"),),
        breaks="ties-are-not-earlier"),
    Bug(name="te-own-time-included", problem="target_encoding", file="target_encoding.py",
        old='earlier = per_time.groupby(level="key").cumsum().groupby(level="key").shift(1, fill_value=0)',
        new='earlier = per_time.groupby(level="key").cumsum()',
        breaks="strictly-earlier-same-category"),
    Bug(name="te-prior-over-all-rows", problem="target_encoding", file="target_encoding.py",
        old='priors = (totals["sum"] / totals["count"]).to_numpy()',
        new='priors = np.full(len(rows), rows["y"].mean())',
        breaks="default-prior"),
    Bug(name="te-prior-includes-the-rows-own-time", problem="target_encoding", file="target_encoding.py",
        old='overall = rows.groupby("time")["y"].agg(["sum", "count"]).cumsum().shift(1)',
        new='overall = rows.groupby("time")["y"].agg(["sum", "count"]).cumsum()',
        breaks="default-prior"),
    Bug(name="te-prior-not-scaled-by-smoothing", problem="target_encoding", file="target_encoding.py",
        old="means = (sums + priors * smoothing) / (counts + smoothing)",
        new="means = (sums + priors) / (counts + smoothing)",
        breaks="smoothing-formula"),
    Bug(name="te-missing-category-dropped", problem="target_encoding", file="target_encoding.py",
        old="return np.where(codes < 0, len(uniques), codes)", new="return np.where(codes < 0, np.nan, codes)",
        breaks="missing-category"),
    Bug(name="te-index-lost", problem="target_encoding", file="target_encoding.py",
        old='return pd.Series(encoded, index=df.index, name=f"{column}_encoded", dtype=float)',
        new='return pd.Series(encoded, name=f"{column}_encoded", dtype=float)',
        breaks="output-series"),
    Bug(name="te-rows-returned-in-time-order", problem="target_encoding", file="target_encoding.py",
        old="    _check_time(df[time])\n",
        new="    df = df.sort_values(time, kind=\"stable\")\n    _check_time(df[time])\n",
        breaks="unsorted-rows"),
    Bug(name="te-apply-ignores-the-given-prior", problem="target_encoding", file="target_encoding.py",
        old="    if prior is None:\n        with np.errstate(invalid=\"ignore\"):\n            prior = y.sum() / y.size",
        new="    if True:\n        with np.errstate(invalid=\"ignore\"):\n            prior = y.sum() / y.size",
        breaks="apply-unseen-and-missing"),
    Bug(name="te-apply-codes-each-frame-apart", problem="target_encoding", file="target_encoding.py",
        old="train_keys, test_keys = keys[: len(train)], keys[len(train):]",
        new="train_keys, test_keys = _category_codes(train[column]), _category_codes(test[column])",
        breaks="apply-all-train-rows"),
    Bug(name="te-nan-target-accepted", problem="target_encoding", file="target_encoding.py",
        old='    if values.isna().any():\n        raise ValueError("target column has missing values")\n',
        new="",
        breaks="valueerror-missing-target"),
    # encode_apply's checks written again, shorter, rather than shared with encode_train.
    Bug(name="te-apply-reads-a-missing-target-as-zero", problem="target_encoding", file="target_encoding.py",
        old="    y = _checked_target(train[target])\n",
        new=("    if not pd.api.types.is_numeric_dtype(train[target]):\n"
             "        raise ValueError(\"target column must be numeric\")\n"
             "    y = train[target].to_numpy(dtype=float, na_value=0.0)\n"
             "    if np.isnan(y).any():\n"
             "        raise ValueError(\"target column has NaN\")\n"),
        breaks="valueerror-missing-target"),
    Bug(name="te-apply-smoothing-checked-for-sign-only", problem="target_encoding", file="target_encoding.py",
        old="    _check_smoothing(smoothing, prior)\n    # One coding of both frames",
        new=("    if smoothing < 0 or smoothing == math.inf or (prior is not None and not math.isfinite(prior)):\n"
             "        raise ValueError(\"smoothing must be at least 0 and prior finite\")\n"
             "    # One coding of both frames"),
        breaks="valueerror-smoothing"),
    Bug(name="te-apply-prior-checked-for-nan-only", problem="target_encoding", file="target_encoding.py",
        old="    _check_smoothing(smoothing, prior)\n    # One coding of both frames",
        new=("    if not math.isfinite(smoothing) or smoothing < 0 or (prior is not None and math.isnan(prior)):\n"
             "        raise ValueError(\"smoothing must be finite and at least 0, prior not NaN\")\n"
             "    # One coding of both frames"),
        breaks="valueerror-prior"),
    Bug(name="te-infinite-smoothing-accepted", problem="target_encoding", file="target_encoding.py",
        old="if not math.isfinite(smoothing) or smoothing < 0:", new="if smoothing < 0:",
        breaks="smoothing-and-prior-values"),
)
