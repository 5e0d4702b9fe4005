"""One module per criterion (ecosystem and debugging share one: both mix knowledge-base aspect
ratings of the workflow's stacks). Each `*_score(wf, ctx[, k])` returns (0-100 score, evidence, note);
`advisor.decision.evaluate` puts them together."""
