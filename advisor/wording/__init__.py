"""The words of the decision model's findings: one catalogue (`advisor.wording.catalogue`) maps each
finding's code to its sentence, so a wording change never touches the arithmetic and another language
needs only another catalogue.

Why here and not in `advisor/render/`: the report's JSON carries the findings' words in the decision
model's own records (a schedule's `finding`, a projection's communication notes), and other decision
modules compose those words into theirs (the confidence's steps, the hard constraints' reasons). The
words are therefore resolved where a record is written, and the decision model may not import the
renderers (the renderers import the report, which imports the decision model: a circle). This package
is a leaf that imports nothing of the tool but `advisor.numbers`, so the decision model, the review
layer and the renderers all use the same catalogue without a circle."""

from advisor.wording.catalogue import CATALOGUE, word

__all__ = ["CATALOGUE", "word"]
