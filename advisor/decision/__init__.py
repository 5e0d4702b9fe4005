"""The decision model: criteria, evidence, projections, memory, cost, schedule, risks and the stack.

One module per part; `advisor.report.build_report` assembles them. Nothing here formats output."""
