import json
import os

calls = 0


def handler(event, context):
    global calls
    calls += 1
    return {
        "statusCode": 200,
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps({"event": event, "env": dict(os.environ), "calls": calls, "requestId": context.aws_request_id}),
    }


async def async_handler(event, context):
    return {"statusCode": 201, "body": "async"}


def fail(event, context):
    raise ValueError("country required")
