"""The triage table's cells, columns and legend."""
