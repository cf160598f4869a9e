"""OpenAPI description of the upload body.

The upload handler parses multipart itself (see uploads.py), so Litestar cannot infer the body;
this operation class states it, so /schema documents the endpoint completely and schema-driven
clients and fuzzers can build valid uploads.
"""

from __future__ import annotations

from dataclasses import dataclass

from litestar.openapi.spec import OpenAPIMediaType, Operation, RequestBody, Schema
from litestar.openapi.spec.enums import OpenAPIFormat, OpenAPIType

from citeproof.api.documents.uploads import FILES_FIELD, KIND_FIELD, KINDS

UPLOAD_BODY = RequestBody(
    required=True,
    description="One or more files and the kind they all have.",
    content={
        "multipart/form-data": OpenAPIMediaType(
            schema=Schema(
                type=OpenAPIType.OBJECT,
                required=[FILES_FIELD, KIND_FIELD],
                properties={
                    FILES_FIELD: Schema(
                        type=OpenAPIType.ARRAY,
                        items=Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.BINARY),
                        min_items=1,
                    ),
                    KIND_FIELD: Schema(type=OpenAPIType.STRING, enum=list(KINDS)),
                },
            )
        )
    },
)


@dataclass
class UploadOperation(Operation):
    def __post_init__(self) -> None:
        self.request_body = UPLOAD_BODY
