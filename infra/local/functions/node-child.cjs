'use strict';
/**
 * A warm child of the local function runner (runner.ts) for Node.js functions: loads the
 * merchant's handler once through the platform wrapper and answers one call at a time.
 *
 * Started as `node --permission ... node-child.cjs <wrapper path>`; the protocol runs over fd 3
 * (a socket pair), one JSON object per line, so merchant output on stdout and stderr never mixes
 * with it:
 *   runner → child  {"type":"init","codeDir","handler","functionName","memoryMb"}
 *                   {"type":"invoke","id","event","deadlineMs"}
 *   child → runner  {"type":"ready"} | {"type":"loadError","result"}
 *                   {"type":"result","id","result"}
 * An uncaught error ends the child (after answering the call in flight): the next call gets a
 * fresh one, as a crashed execution environment would.
 */
const net = require('node:net');
const { loadHandler, runHandler } = require(process.argv[2]);

// bwrap's --chdir exports PWD; the contract's environment is exactly the runner's (functions.md §11).
delete process.env.PWD;

const channel = new net.Socket({ fd: 3, readable: true, writable: true });
let init;
let fn;
let current;

function send(message) {
  let line;
  try {
    line = JSON.stringify(message);
  } catch {
    // A success value JSON cannot hold (a cycle, a BigInt): the caller gets an invalid response.
    line = JSON.stringify({ ...message, result: { kind: 'returned' } });
  }
  channel.write(`${line}\n`);
}

function errorResult(error, errorType) {
  const message = error && typeof error === 'object' && typeof error.message === 'string' ? error.message : String(error);
  const type = errorType || (error && typeof error === 'object' && typeof error.name === 'string' ? error.name : 'Error');
  return { kind: 'error', errorType: type, errorMessage: message };
}

/** Fails the call in flight with `error` and ends the child once the answer is written. */
function die(error) {
  if (current !== undefined) {
    send({ type: 'result', id: current, result: errorResult(error) });
    current = undefined;
  }
  channel.end(() => process.exit(1));
  setTimeout(() => process.exit(1), 200).unref();
}
process.on('uncaughtException', die);
process.on('unhandledRejection', die);

async function handle(message) {
  if (message.type === 'init') {
    init = message;
    try {
      fn = await loadHandler(init.codeDir, init.handler);
      send({ type: 'ready' });
    } catch (error) {
      send({ type: 'loadError', result: errorResult(error, 'Runtime.ImportModuleError') });
    }
    return;
  }
  if (message.type !== 'invoke' || !fn) return;
  const { id, event, deadlineMs } = message;
  current = id;
  const requestId = (event && event.requestContext && event.requestContext.requestId) || String(id);
  const context = {
    functionName: init.functionName,
    functionVersion: '$LATEST',
    awsRequestId: requestId,
    memoryLimitInMB: String(init.memoryMb),
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadlineMs - Date.now()),
  };
  const result = await runHandler(fn, event, context);
  if (current !== id) return;
  current = undefined;
  send({ type: 'result', id, result });
}

// One call at a time: the runner sends the next request only after the answer.
let buffered = '';
let queue = Promise.resolve();
channel.setEncoding('utf8');
channel.on('data', (chunk) => {
  // Large events arrive in many chunks: look for the end of line only in what is new.
  let newline = chunk.indexOf('\n');
  if (newline >= 0) newline += buffered.length;
  buffered += chunk;
  for (; newline >= 0; newline = buffered.indexOf('\n')) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    if (!line) continue;
    const message = JSON.parse(line);
    queue = queue.then(() => handle(message));
  }
});
// The runner went away: nothing is left to answer.
channel.on('end', () => process.exit(0));
channel.on('error', () => process.exit(0));
