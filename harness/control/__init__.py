"""harness.control: what a cell's controller does. The arms, the attempt loop and the worker's
tools, the reviewer, the token budget, the scenario hooks (``injections``) and the adjudicator (here,
not in ``harness.judge``, because it runs the scenario's hidden checks beside the judged oracle).
Imports only the layers below it."""
