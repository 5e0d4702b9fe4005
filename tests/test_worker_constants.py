"""Constants written out in worker-side modules so that workers never import scipy: pinned to scipy here."""

import pytest
from scipy import stats as st

from probes.deploy import timing
from probes.training import stats


def test_deploy_timer_t_crit_is_scipys_for_n_batches(monkeypatch):
    monkeypatch.delenv("ADVISOR_T_CRIT", raising=False)
    assert stats.N_BATCHES == 10, "T_CRIT_975_DF9 is t(0.975, 9): recompute it when N_BATCHES changes"
    assert timing.t_crit() == pytest.approx(st.t.ppf(0.975, stats.N_BATCHES - 1), rel=1e-12)
    monkeypatch.setenv("ADVISOR_T_CRIT", "3.5")
    assert timing.t_crit() == 3.5
