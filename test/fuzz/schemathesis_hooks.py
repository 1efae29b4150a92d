"""Schemathesis hooks of the fuzz test (test/api/fuzz.test.ts) and of the recorded run in docs/api.md.

The one exception to "a schema-valid request is accepted" (check positive_data_acceptance, ST202):
values whose validity no JSON Schema keyword can describe. The generated document says what each
field looks like; these rules are about what an opaque value *contains*, or compare two fields, so
a schema-valid request can still be refused with the 4xx below. Nothing else is filtered: every
other failure of every check fails the run.
"""

import json

import schemathesis

# (HTTP status, error code, error param or None) -> why JSON Schema cannot say it.
OPAQUE_CONTENT = {
    (400, "invalid_cursor", "cursor"): "pagination cursors are HMAC-signed and bound to their list; a forged one is refused",
    (415, "unsupported_file_type", None): "an upload is detected from its bytes (XML, ZIP or PDF), which a schema cannot describe",
    (400, "invalid_parameter", "certificate_p12_base64"): "a PKCS#12 certificate must open with its password",
    (400, "invalid_parameter", "certificate_password"): "a PKCS#12 certificate must open with its password",
    (400, "invalid_parameter", "file"): "an uploaded DIAN export must be a readable CSV or XLSX with the expected columns",
    (400, "invalid_parameter", "end_date"): "end_date must not be before begin_date, nor a listed range over ten years: JSON Schema cannot compare two fields",
    (400, "invalid_parameter", "since"): "since must be within the last 30 days (the delivery history): relative to the current time",
    (400, "invalid_parameter", "vat"): "a payment claim's vat must not exceed its total: JSON Schema cannot compare two fields",
}


def _error(response):
    try:
        error = json.loads(response.content)["error"]
        return error.get("code"), error.get("param")
    except Exception:  # not our error body: keep the failure
        return None, None


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """Keep every failure except a positive-data rejection listed in OPAQUE_CONTENT."""
    if failure.code != "ST202":
        return True
    code, param = _error(response)
    return (response.status_code, code, param) not in OPAQUE_CONTENT
