# polyeval's long-lived Python syntax checker (python-checker.ts starts it in the sandbox).
# It decides exactly what the one-shot check decided (python.ts): the source is read as
# open(path, encoding="utf-8").read() reads a file (UTF-8, universal newlines), then
# compile(src, "main.py", "exec"). Nothing of the source is ever executed.
#
# Protocol, one request at a time: "<byte length>\n<source bytes>" on stdin; one line back:
#   OK                     compiled
#   EXC <base64 text>      compile() raised: the exception as Python prints it (no traceback)
#   ERR <base64 text>      anything else went wrong here: the caller checks that source alone
import base64
import io
import sys
import warnings

# Warnings (SyntaxWarning, DeprecationWarning) never changed the one-shot check's outcome.
warnings.simplefilter("ignore")


def answer(kind, text=""):
    encoded = base64.b64encode(text.encode("utf-8", "replace")).decode("ascii")
    sys.stdout.write(f"{kind} {encoded}\n" if text else f"{kind}\n")
    sys.stdout.flush()


def printed(error, src):
    # As the interpreter prints an uncaught exception (its C printer, whose carets differ
    # from the traceback module's), without a traceback: what the one-shot check printed.
    # An error found past the parser carries no source line; the printer then reads it from
    # main.py in its working directory, which the one-shot check had and this process has not.
    if isinstance(error, SyntaxError) and error.text is None and error.filename == "main.py" and error.lineno:
        lines = src.split("\n")
        if 0 < error.lineno <= len(lines):
            error.text = lines[error.lineno - 1] + "\n"
    real, sys.stderr = sys.stderr, io.StringIO()
    try:
        sys.__excepthook__(type(error), error.with_traceback(None), None)
        return sys.stderr.getvalue()
    finally:
        sys.stderr = real


def main():
    requests = sys.stdin.buffer
    while True:
        header = requests.readline()
        if not header:
            return
        data = requests.read(int(header))
        try:
            src = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()
        except BaseException as error:  # noqa: BLE001 - the caller decides with the one-shot check
            answer("ERR", repr(error))
            continue
        try:
            compile(src, "main.py", "exec")
        except (SyntaxError, ValueError) as error:
            answer("EXC", printed(error, src))
        except BaseException as error:  # noqa: BLE001 - RecursionError, MemoryError: the one-shot check decides
            answer("ERR", repr(error))
        else:
            answer("OK")


main()
