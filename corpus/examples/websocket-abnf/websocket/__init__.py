"""websocket-client 1.9.0, cut down to the frame layer (see ATTRIBUTION.md): the upstream package
__init__ also imports the app, core, socket and url layers, which _abnf.py does not need."""
from ._abnf import *  # noqa: F401,F403
from ._exceptions import *  # noqa: F401,F403
