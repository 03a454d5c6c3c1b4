"""A gate kind: a gate file declares kind = "nonempty"; the judge returns accept / reject / incapacity."""
from corpus.declarations import STR
from corpus.gates import Judgement, Verdict
from harness.api import GATES


@GATES.register("nonempty", keys={"note": STR}, required=())
def judge_nonempty(gate, work, target, home, mapping, env) -> Judgement:
    """Accepts an artifact with at least one non-blank line."""
    path = work / target
    if not path.is_file():
        return Judgement(Verdict.INCAPACITY, f"{target} is missing")
    ok = path.read_text(errors="replace").strip() != ""
    return Judgement(Verdict.ACCEPT if ok else Verdict.REJECT, "non-empty" if ok else "empty")
