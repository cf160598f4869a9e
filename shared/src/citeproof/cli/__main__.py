import sys

from citeproof.cli import main

sys.exit(main())
