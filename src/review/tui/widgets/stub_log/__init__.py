"""The stub log pane: the fake gateway's requests as they happen, the before/after comparison and
the scenario picker."""
