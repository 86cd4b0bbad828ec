import sys

from table.cli import main

sys.exit(main())
