"""Run a submission's checkout.mjs against the pinned fake gateway, in a sandbox."""
