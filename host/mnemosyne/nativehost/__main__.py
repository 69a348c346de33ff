"""`python -m mnemosyne.nativehost`: what the launcher runs when a browser starts the host."""

import sys

from .server import main

sys.exit(main())
