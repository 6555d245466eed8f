# PLACEHOLDER for the fn-cloud branch only: the real Python wrapper (functions.md §10) is written
# in parallel and replaces this file on merge. It exists so the packaging and bundling tests of
# the Lambda adapter have a file at the path `__cartwheel__/cartwheel_wrapper.handler` names.
def handler(event, context):
    return {"__cartwheel__": {"kind": "error", "errorType": "Placeholder", "errorMessage": "placeholder wrapper"}}
