from review.cli import main

raise SystemExit(main())
