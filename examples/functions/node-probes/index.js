// One handler per behaviour the local runner must handle; PROBE_PATH names what to poke at.
const fs = require('node:fs');
const path = require('node:path');

let calls = 0;

// Module state survives calls on a warm child.
exports.counter = async () => ({ statusCode: 200, body: String(++calls) });

exports.pid = async () => ({ statusCode: 200, body: String(process.pid) });

// First settlement wins: the callback, then a throw and a rejected promise that are ignored.
exports.callbackThenThrow = (event, context, callback) => {
  callback(null, { statusCode: 200, body: 'callback' });
  throw new Error('ignored');
};
exports.throwFirst = () => {
  throw new TypeError('thrown');
};
exports.promiseBeatsCallback = async (event, context, callback) => {
  setTimeout(() => callback(null, { statusCode: 200, body: 'late callback' }), 50);
  return { statusCode: 200, body: 'promise' };
};
exports.callbackError = (event, context, callback) => callback(new RangeError('bad range'));
exports.rejects = async () => {
  class QuoteError extends Error {}
  throw new QuoteError('no carrier');
};
exports.resolvesUndefined = async () => undefined;
exports.throwString = () => {
  throw 'plain string';
};
// A non-promise return keeps the call open until the callback.
exports.callbackLater = (event, context, callback) => {
  setTimeout(() => callback(null, { statusCode: 202, body: 'later' }), 100);
  return 'ignored';
};

exports.sleepForever = () => new Promise(() => setInterval(() => undefined, 1000));
exports.loopForever = () => {
  for (;;);
};
// Waits until PROBE_PATH exists in the scratch folder... or just a while: used to hold a child busy.
exports.hold = async (event) => {
  await new Promise((resolve) => setTimeout(resolve, Number(event.body || 300)));
  return { statusCode: 200, body: String(process.pid) };
};
exports.exit = () => {
  process.exit(1);
};
exports.oom = () => {
  const hoard = [];
  for (;;) hoard.push(new Array(100_000).fill(Math.random()));
};

function attempt(what) {
  try {
    return { ok: true, value: what() };
  } catch (error) {
    return { ok: false, error: String(error && error.code ? error.code : error) };
  }
}

exports.env = async () => ({ statusCode: 200, body: JSON.stringify(process.env) });

/** The paths in PROBE_PATH (":"-separated); `HOME` stands for the function's own folder. */
function probePaths() {
  return (process.env.PROBE_PATH || '').split(':').filter(Boolean).map((target) => (target === 'HOME' ? process.env.HOME : target));
}

// Tries to read every path in PROBE_PATH: files and folders.
exports.read = async () => {
  const results = {};
  for (const target of probePaths()) {
    results[target] = attempt(() => {
      const stat = fs.statSync(target);
      return stat.isDirectory() ? fs.readdirSync(target) : fs.readFileSync(target, 'utf8');
    });
  }
  return { statusCode: 200, body: JSON.stringify(results) };
};

// Tries to write into every folder of PROBE_PATH, and into TMPDIR (which must work).
exports.write = async () => {
  const results = {};
  for (const target of [...probePaths(), process.env.TMPDIR]) {
    results[target] = attempt(() => fs.writeFileSync(path.join(target, 'probe-was-here'), 'x'));
  }
  return { statusCode: 200, body: JSON.stringify(results) };
};

exports.spawn = async () => {
  const results = {};
  results.child_process = attempt(() => require('node:child_process').execSync('echo spawned').toString());
  results.worker = attempt(() => new (require('node:worker_threads').Worker)('1', { eval: true }) && 'started');
  return { statusCode: 200, body: JSON.stringify(results) };
};

// One function, many behaviours (the event body says which), so a test can misbehave and then
// check that the next call on the same function works.
const instance = Math.random().toString(36).slice(2);
exports.act = async (event) => {
  const [action, argument] = String(event.body || 'count').split(':');
  switch (action) {
    case 'count':
      return { statusCode: 200, body: JSON.stringify({ instance, calls: ++calls }) };
    case 'hold':
      await new Promise((resolve) => setTimeout(resolve, Number(argument || 300)));
      return { statusCode: 200, body: JSON.stringify({ instance, calls: ++calls }) };
    case 'sleep':
      return exports.sleepForever();
    case 'loop':
      return exports.loopForever();
    case 'exit':
      return exports.exit();
    case 'oom':
      return exports.oom();
    case 'channel':
      // Writes over the runner's own channel (fd 3), then waits.
      fs.writeSync(3, 'not a message\n');
      return new Promise(() => undefined);
    default:
      throw new Error(`unknown action ${action}`);
  }
};
