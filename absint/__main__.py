import sys

from absint.cli import main

sys.exit(main())
