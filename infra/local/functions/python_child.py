"""A warm child of the local function runner (runner.ts) for Python functions.

Loads the merchant's handler once through the platform wrapper and answers one call at a time
over fd 3 (a socket pair), one JSON object per line; merchant output on stdout and stderr never
mixes with it. Same messages as node-child.cjs:
    runner -> child  {"type":"init","codeDir","handler","functionName","memoryMb","wrapperDir",
                      "scratchDir","privatePaths"}
                     {"type":"invoke","id","event","deadlineMs"}
    child -> runner  {"type":"ready"} | {"type":"loadError","result"}
                     {"type":"result","id","result"} | {"type":"outOfMemory","id"}

Before any merchant code runs it limits the address space to memory_mb + 64 MB (functions.md §11)
and installs an audit hook: no process spawning, no writes outside the scratch folder, no reads of
the runner's private paths (the data directory) other than the function's own code. The hook is
mistake isolation for machines without bwrap, not a sandbox (ctypes walks around it).
"""
import json
import os
import resource
import socket
import sys
import time

channel = socket.socket(fileno=3)
reader = channel.makefile("rb")


def send(message):
    try:
        line = json.dumps(message)
    except (TypeError, ValueError):
        # A success value JSON cannot hold: the caller gets an invalid response.
        line = json.dumps({**message, "result": {"kind": "returned"}})
    channel.sendall(line.encode("utf-8") + b"\n")


def receive():
    line = reader.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def confine(init):
    """The address-space limit and the audit hook, before merchant code is imported."""
    limit = (int(init["memoryMb"]) + 64) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    real = os.path.realpath
    scratch = real(init["scratchDir"])
    # Its own code, scratch folder and the runner's files; the interpreter's library; its own /proc entry.
    readable = [real(init["codeDir"]), scratch, real(init["wrapperDir"]), real(sys.base_prefix), real(sys.prefix), f"/proc/{os.getpid()}"]
    private = [real(path) for path in init.get("privatePaths", [])]

    def inside(path, roots):
        return any(path == root or path.startswith(root + os.sep) for root in roots)

    def resolved(path):
        if isinstance(path, int):
            return None
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        return real(os.path.join(os.getcwd(), str(path)))

    def check_write(path):
        where = resolved(path)
        if where is not None and where != "/dev/null" and not inside(where, [scratch]):
            raise PermissionError(f"Writing outside the scratch folder is not allowed: {path}")

    def check_read(path):
        where = resolved(path)
        if where is not None and inside(where, private) and not inside(where, readable):
            raise PermissionError(f"Reading outside the function's folder is not allowed: {path}")

    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    spawning = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "pty.spawn"}
    path_writes = {"os.remove", "os.rmdir", "os.mkdir", "os.rename", "os.chmod", "os.chown", "os.symlink", "os.link", "os.truncate", "os.utime", "shutil.rmtree"}

    def hook(event, args):
        if event == "open":
            path, mode, flags = args
            writing = (mode is not None and any(c in mode for c in "wax+")) or (mode is None and flags & write_flags)
            if writing:
                check_write(path)
            check_read(path)
        elif event in spawning:
            raise PermissionError("Hosted functions may not start processes")
        elif event in path_writes:
            for path in args[:2]:
                if isinstance(path, (str, bytes)):
                    check_write(path)
        elif event in ("os.listdir", "os.scandir") and args:
            if isinstance(args[0], (str, bytes)):
                check_read(args[0])

    sys.addaudithook(hook)


def main():
    # bwrap's --chdir exports PWD; the contract's environment is exactly the runner's.
    os.environ.pop("PWD", None)
    init = receive()
    sys.path.insert(0, init["wrapperDir"])
    import cartwheel_wrapper  # noqa: E402 - found through the path just added

    os.chdir(init["codeDir"])
    confine(init)
    try:
        fn = cartwheel_wrapper.load_handler(init["codeDir"], init["handler"])
    except MemoryError:
        send({"type": "outOfMemory", "id": None})
        os._exit(1)
    except BaseException as error:  # noqa: BLE001 - SyntaxError and SystemExit included
        send({"type": "loadError", "result": {"kind": "error", "errorType": "Runtime.ImportModuleError", "errorMessage": f"{type(error).__name__}: {error}"}})
        return
    send({"type": "ready"})
    while True:
        message = receive()
        if message.get("type") != "invoke":
            continue
        call = message["id"]
        event = message["event"]
        deadline = message["deadlineMs"]
        context = Context(init, event, call, deadline)
        try:
            result = cartwheel_wrapper.run_handler(fn, event, context)
        except MemoryError:
            result = {"kind": "error", "errorType": "MemoryError", "errorMessage": ""}
        if result.get("kind") == "error" and result.get("errorType") == "MemoryError":
            send({"type": "outOfMemory", "id": call})
            os._exit(1)
        send({"type": "result", "id": call, "result": result})


class Context:
    """The handler's context object (Lambda's names)."""

    def __init__(self, init, event, call, deadline_ms):
        request = event.get("requestContext") if isinstance(event, dict) else None
        self.function_name = init["functionName"]
        self.function_version = "$LATEST"
        self.aws_request_id = (request or {}).get("requestId") or str(call)
        self.memory_limit_in_mb = int(init["memoryMb"])
        self._deadline_ms = deadline_ms

    def get_remaining_time_in_millis(self):
        return max(0, int(self._deadline_ms - time.time() * 1000))


if __name__ == "__main__":
    main()
