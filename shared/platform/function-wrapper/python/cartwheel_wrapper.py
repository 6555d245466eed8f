"""The platform wrapper for Python hosted functions (functions.md §7.4, §10 "Platform wrapper").

One file, standard library only: the cloud package copies it into the merchant's zip as
`__cartwheel__/cartwheel_wrapper.py` and configures `__cartwheel__/cartwheel_wrapper.handler`;
the local runner's child (infra/local/functions/python_child.py) uses `load_handler` and
`run_handler` from it, so both settle a call by the same rules.

A call ends in a result dict, never a raised exception:
    {"kind": "returned", "value": ...}          ("value" left out when the handler returned None)
    {"kind": "error", "errorType": ..., "errorMessage": ...}   (no traceback, ever)
"""
import asyncio
import importlib
import inspect
import json
import os
import sys


def _failure(error, error_type=None):
    """The structured failure for an exception (its class name and message)."""
    return {
        "kind": "error",
        "errorType": error_type or type(error).__name__,
        "errorMessage": str(error),
    }


def parse_handler(handler_name):
    """Splits `app/routes.quote` or `app.routes.quote` into module `app.routes` and function `quote`."""
    name = str(handler_name).replace("/", ".")
    module, _, function = name.rpartition(".")
    if not module or not function or any(part == "" for part in module.split(".")):
        raise ValueError(f'Bad handler "{handler_name}": expected <module path>.<function>')
    return module, function


def load_handler(code_dir, handler_name):
    """Imports the module named by `handler_name` from `code_dir` and answers its function."""
    module_name, function_name = parse_handler(handler_name)
    code_dir = os.path.abspath(code_dir)
    if code_dir not in sys.path:
        sys.path.insert(0, code_dir)
    module = importlib.import_module(module_name)
    fn = getattr(module, function_name, None)
    if not callable(fn):
        raise AttributeError(f'Module "{module_name}" has no function named "{function_name}"')
    return fn


def run_handler(fn, event, context):
    """Calls `fn(event, context)`, awaiting a coroutine, and answers the result dict."""
    try:
        value = fn(event, context)
        if inspect.isawaitable(value):
            value = asyncio.run(_awaited(value))
    except Exception as error:  # noqa: BLE001 - every merchant error is a structured failure
        return _failure(error)
    if value is None:
        return {"kind": "returned"}
    return {"kind": "returned", "value": value}


async def _awaited(awaitable):
    return await awaitable


_loaded = None


def _load_configured():
    """Reads `handler.json` next to this file and loads the handler from the parent folder."""
    global _loaded
    if _loaded is None:
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "handler.json"), encoding="utf-8") as config_file:
            config = json.load(config_file)
        _loaded = load_handler(os.path.dirname(here), config["handler"])
    return _loaded


def handler(event, context):
    """The cloud entry: answers {"__cartwheel__": result} so a merchant error is a structured failure."""
    try:
        fn = _load_configured()
    except Exception as error:  # noqa: BLE001
        return {"__cartwheel__": _failure(error, "Runtime.ImportModuleError")}
    return {"__cartwheel__": run_handler(fn, event, context)}
