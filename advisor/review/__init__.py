"""The review layer: what a reviewer reads about a decision the model has already made.

The judged review document (first page, sign-off, evidence classes), the risk register, the stack to
install and the sensitivity over the knowledge base's own figures. It reads the decision model's
results and never feeds back into them: `advisor.decision` never imports this package."""
