"""How many texts are longer than the Transformer's limit: counted, or worked out from their share."""

from __future__ import annotations

from guiapp.core.health.findings import LengthStats


def _stats(**changes) -> LengthStats:
    base = dict(unit="tokens", n=400, mean=120.0, median=100.0, p90=300.0, max=900, histogram_edges=(0.0, 900.0),
                histogram_counts=(400,), limit=512)
    return LengthStats(**(base | changes))


def test_the_count_is_the_recorded_one():
    assert _stats(share_over_limit=0.05, n_over_limit=21).over_limit_count == 21


def test_without_a_count_it_comes_from_the_share_of_the_measured_texts():
    assert _stats(share_over_limit=0.0525).over_limit_count == 21
    assert _stats(share_over_limit=0.0).over_limit_count == 0


def test_no_count_without_a_limit():
    assert _stats(limit=None).over_limit_count is None
