# schemathesis hooks for ./scripts/api-conformance: tus sends its bytes as
# application/offset+octet-stream, which schemathesis does not know; send them as it sends
# application/octet-stream, unchanged.
import schemathesis

schemathesis.serializer.alias("application/offset+octet-stream", "application/octet-stream")

