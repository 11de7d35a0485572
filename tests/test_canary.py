from collections import Counter

from wagtail_bulk_translate.canary import plan_picks

SIZES = {(ct, loc): 50 for ct in (1, 2, 3) for loc in (10, 11, 12, 13)}


def test_plan_is_deterministic_per_seed():
    assert plan_picks(SIZES, 9, seed=5) == plan_picks(SIZES, 9, seed=5)
    assert plan_picks(SIZES, 9, seed=5) != plan_picks(SIZES, 9, seed=6)


def test_every_type_and_locale_is_covered_before_any_gets_a_second_pick():
    picks = plan_picks(SIZES, 4, seed=1)
    assert {loc for _ct, loc in picks} == {10, 11, 12, 13}
    assert {ct for ct, _loc in picks} == {1, 2, 3}
    types = Counter(ct for ct, _loc in picks)
    assert max(types.values()) == 2  # 4 picks over 3 types: one type repeats, only once


def test_picks_spread_evenly_as_the_sample_grows():
    picks = plan_picks(SIZES, 12, seed=3)
    assert Counter(ct for ct, _ in picks) == {1: 4, 2: 4, 3: 4}
    assert Counter(loc for _, loc in picks) == {10: 3, 11: 3, 12: 3, 13: 3}


def test_small_strata_run_out_and_the_sample_stops_at_the_population():
    sizes = {(1, 10): 1, (2, 10): 5}
    picks = plan_picks(sizes, 10, seed=0)
    assert len(picks) == 6
    assert picks.count((1, 10)) == 1
