"""The Frog family: Frog (Foster 1909 and modern), Solo or Slough, Straight Solo, Coeur d'Alene.

Public entry points: :class:`~table.frog.rules.RuleSet` and :func:`~table.frog.rules.rule_set`,
:func:`~table.frog.deal.deal_plan`, :class:`~table.frog.state.FrogDeal` (one deal, verify/can/act),
:class:`~table.frog.match.FrogMatch` (deals with a conserved chip ledger), the bots in
:mod:`table.frog.bots` and records in :mod:`table.frog.record`. See ``docs/rules/frog.md``.
"""
