"""Between the core and the screens: reading submissions (through gitsafe), scores on disk, the
cohort, and the session that caches what was computed so nothing is computed twice."""
