"""The simulator's truth, worked by hand: a member's revenue_365 counts charges and refunds
before assigned_at + 365 days, and a refund ends the chain."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import simulate  # noqa: E402
from simulate import DAY, Member, group, product  # noqa: E402


class ScriptedRandom:
    """random() and uniform() from scripts; choice() picks the first option."""

    def __init__(self, randoms, uniforms):
        self.randoms = list(randoms)
        self.uniforms = list(uniforms)

    def random(self):
        return self.randoms.pop(0)

    def uniform(self, low, high):
        return self.uniforms.pop(0) if self.uniforms else low

    def choice(self, count, p=None):
        return 0


def test_a_weekly_chain_renewing_twice():
    spec = group("g", 1.0, simulate.constant_late(0.0), [product("w", "weekly", 7.99, 1.0, [1.0, 1.0, 0.0], refund=0.0)])
    # paywall entry; no refund, renew; no refund, renew; no refund, the third renewal fails.
    member = Member(0.0, spec, ScriptedRandom([0.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [60.0]))
    assert [event[0] for event in member.events] == ["purchase", "renewal", "renewal"]
    assert abs(member.revenue365 - 3 * 7.99) < 1e-9


def test_a_refund_ends_the_chain_and_counts_before_day_365():
    spec = group("g", 1.0, simulate.constant_late(0.0), [product("y", "yearly", 50.0, 1.0, [1.0], refund=1.0, refund_share=0.5)])
    member = Member(0.0, spec, ScriptedRandom([0.0, 0.0], [60.0, 2.0]))
    assert [event[0] for event in member.events] == ["purchase", "refund"]
    assert member.events[1][3] == 25.0
    assert abs(member.revenue365 - 25.0) < 1e-9


def test_a_charge_after_day_365_is_not_revenue_365():
    # A late entry on day 364 buys a weekly plan that renews once, on day 371: only the first charge counts.
    spec = group("g", 0.0, lambda day: 1.0 if day == 364 else 0.0,
                 [product("w", "weekly", 5.0, 1.0, [1.0, 0.0], refund=0.0)])
    randoms = [0.9] + [0.5] * 363 + [0.0, 0.5, 0.5, 0.5, 0.5, 0.5]
    member = Member(0.0, spec, ScriptedRandom(randoms, []))
    assert [event[0] for event in member.events] == ["purchase", "renewal"]
    assert member.events[0][1] >= 364 * DAY and member.events[1][1] >= 365 * DAY
    assert abs(member.revenue365 - 5.0) < 1e-9


def test_a_trial_that_converts_charges_at_its_end():
    spec = group("g", 1.0, simulate.constant_late(0.0),
                 [product("y", "yearly", 40.0, 1.0, [0.0], trial_days=7, trial_share=1.0, trial_conversion=1.0, refund=0.0)])
    member = Member(0.0, spec, ScriptedRandom([0.0, 0.0, 0.0, 0.5, 0.9], [60.0, 60.0]))
    kinds = [event[0] for event in member.events]
    assert kinds == ["trial_start", "purchase"]
    assert member.events[1][1] >= member.events[0][4]
    assert member.revenue365 == 40.0

