"""The run viewer: a static, self-contained HTML report of a run directory (``harness view``).

It reads only the run directory (records, event logs, transcripts, stored diffs, run.json) and
the protocol run.json names; the hidden oracle is never in a run directory, so never in a report.
"""
