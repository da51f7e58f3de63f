"""The console's screens: triage, one submission, help."""
