"""``review bench``: figures and ratios, one module per benchmark (never timed tests: these
machines are noisy). ``python -m review.devtools.bench`` runs the parts measured in a process of
their own."""
