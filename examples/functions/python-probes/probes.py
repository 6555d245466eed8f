"""One handler per behaviour the local runner must handle; PROBE_PATH names what to poke at."""
import json
import os
import subprocess
import time

calls = 0


def counter(event, context):
    global calls
    calls += 1
    return {"statusCode": 200, "body": str(calls)}


def sleep_forever(event, context):
    while True:
        time.sleep(1)


def exit_now(event, context):
    os._exit(1)


def oom(event, context):
    hoard = []
    while True:
        hoard.append(bytearray(10 * 1024 * 1024))


def env(event, context):
    return {"statusCode": 200, "body": json.dumps(dict(os.environ))}


def _probe_paths():
    """The paths in PROBE_PATH (":"-separated); HOME stands for the function's own folder."""
    return [os.environ["HOME"] if target == "HOME" else target for target in os.environ.get("PROBE_PATH", "").split(":") if target]


def _attempt(what):
    try:
        return {"ok": True, "value": what()}
    except Exception as error:  # noqa: BLE001
        return {"ok": False, "error": f"{type(error).__name__}: {error}"}


def read(event, context):
    results = {}
    for target in _probe_paths():
        def look(target=target):
            if os.path.isdir(target):
                return os.listdir(target)
            with open(target, encoding="utf-8") as handle:
                return handle.read()
        results[target] = _attempt(look)
    return {"statusCode": 200, "body": json.dumps(results)}


def write(event, context):
    results = {}
    for target in [*_probe_paths(), os.environ["TMPDIR"]]:
        def put(target=target):
            with open(os.path.join(target, "probe-was-here"), "w", encoding="utf-8") as handle:
                handle.write("x")
        results[target] = _attempt(put)
    return {"statusCode": 200, "body": json.dumps(results)}


def spawn(event, context):
    return {"statusCode": 200, "body": json.dumps({"subprocess": _attempt(lambda: subprocess.run(["echo", "spawned"], capture_output=True, check=True).stdout.decode())})}


instance = os.urandom(6).hex()


def act(event, context):
    """One function, many behaviours (the event body says which)."""
    global calls
    action, _, argument = (event.get("body") or "count").partition(":")
    if action == "count":
        calls += 1
        return {"statusCode": 200, "body": json.dumps({"instance": instance, "calls": calls})}
    if action == "hold":
        time.sleep(int(argument or "300") / 1000)
        calls += 1
        return {"statusCode": 200, "body": json.dumps({"instance": instance, "calls": calls})}
    if action == "sleep":
        return sleep_forever(event, context)
    if action == "loop":
        while True:
            pass
    if action == "exit":
        return exit_now(event, context)
    if action == "oom":
        return oom(event, context)
    if action == "channel":
        # Writes over the runner's own channel (fd 3), then waits.
        os.write(3, b"not a message\n")
        return sleep_forever(event, context)
    raise ValueError(f"unknown action {action}")
