# schemathesis hooks for ./scripts/api-conformance: tus sends its bytes as
# application/offset+octet-stream, the IETF resumable uploads draft as application/partial-upload
# and the file's own type (video/mp4, video/quicktime), which schemathesis does not know; send
# them as it sends application/octet-stream, unchanged.
import schemathesis

for media_type in ["application/offset+octet-stream", "application/partial-upload", "video/mp4", "video/quicktime"]:
    schemathesis.serializer.alias(media_type, "application/octet-stream")

