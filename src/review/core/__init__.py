"""The pure core: diff model, attribution, rubric, evidence, text sanitising. No I/O, no Textual,
no git, no subprocess (import-linter checks it)."""
