"""A mutant operator: artifact -> mutants, each with a fixed label, and its own checked examples."""
from corpus.model import DESTROYING
from corpus.operators import Example, operator


@operator("upper_case", "x-example", ["text"], DESTROYING, examples=[Example("text", "keep calm\n", "KEEP CALM\n")])
def upper_case(spec):
    """Every letter upper-cased."""
    return [(spec.text.upper().encode(), "upper-cased")]
