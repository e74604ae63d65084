"""hloscope's exceptions: an HloError carries what the CLI prints, and where."""
import re

# "FILE:LINE:COL: error: ..." (the parser's and the verifier's messages).
_POSITION = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): error: ")
# A binary proto's decoding error names the byte offset where it failed.
_OFFSET = re.compile(r"\bat byte (?:offset )?(?P<offset>\d+)")


class HloError(Exception):
    """An input hloscope cannot read, or an analysis that failed on it.

    message is the text the CLI prints (after "hlo-opt: error: " when it has no position),
    except that an option the library names is spelled as the keyword argument ("size it with
    dim_value=N") where the CLI names its flag ("--dim-value=N");
    file, line and column are set when the message points into a file (the line and column
    of a proto read as HLO text point into that text, named "FILE (as HLO text)"), offset when
    a binary proto could not be decoded; kind says which step failed ("read", "parse",
    "verify", "memory_report", "passes", "analysis", "dump").
    """

    def __init__(self, message, kind="error"):
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.file = None
        self.line = None
        self.column = None
        self.offset = None
        m = _POSITION.match(message)
        if m:
            self.file = m.group("file")
            self.line = int(m.group("line"))
            self.column = int(m.group("column"))
        o = _OFFSET.search(message)
        if o:
            self.offset = int(o.group("offset"))


class UsageError(ValueError):
    """An option the CLI would refuse as a usage error (exit 2), with the CLI's message."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message
