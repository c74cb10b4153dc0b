# schemathesis hooks for ./scripts/api-conformance: tus sends its bytes as
# application/offset+octet-stream, the IETF resumable uploads draft as application/partial-upload
# and the file's own type (video/mp4, video/quicktime), which schemathesis does not know; send
# them as it sends application/octet-stream, unchanged.
import schemathesis

for media_type in ["application/offset+octet-stream", "application/partial-upload", "video/mp4", "video/quicktime"]:
    schemathesis.serializer.alias(media_type, "application/octet-stream")


# Hypothesis names each filter in a strategy's description by parsing the lambda's source
# file; on Python 3.11, parsing a large file deep in a recursion can fail with
# "SystemError: AST constructor recursion depth mismatch" (a CPython parser bug), which stopped
# one operation's coverage phase in a CI run of 2026-12-04. The description is only a label:
# when it cannot be made, use hypothesis's own placeholder for an unknown lambda body.
from hypothesis.internal import lambda_sources

_describe = lambda_sources._lambda_description


def _described_or_unknown(f, *args, **kwargs):
    try:
        return _describe(f, *args, **kwargs)
    except (SystemError, RecursionError):
        return "lambda: <unknown>"


lambda_sources._lambda_description = _described_or_unknown
