/** `npm start`: runs the embedded default until SIGINT or SIGTERM. */
import { describeBootstrap, optionsFromEnv, startLocalRuntime } from './runtime';
import { DUPLICATE_WINDOW_MS, stopSignals } from './stop-signals';

const options = optionsFromEnv(process.env);
const runtime = await startLocalRuntime({ ...options, log: (line) => console.log(line) }).catch((error: Error) => {
  console.error(`Cartwheel failed to start: ${error.message}`);
  process.exit(1);
});
// One write: the listening line and the facts arrive together for tools that wait for the line.
console.log(
  `Cartwheel listening on ${runtime.url}\n${describeBootstrap(runtime.bootstrap, options.clock)}\n  Data:           ${options.dataDir} (bootstrap.json holds these facts)`,
);

// A copy of the first signal (the process group's and a parent's relay of it) is the same
// request to stop; only a signal after the window quits at once (stop-signals.ts).
const verdict = stopSignals();
const shutdown = (signal: string) => {
  const meaning = verdict(performance.now());
  if (meaning === 'duplicate') {
    console.log(`${signal} received again within ${DUPLICATE_WINDOW_MS / 1000} s: a copy of the same request to stop (the group's signal relayed by a parent), still finishing.`);
    return;
  }
  if (meaning === 'force') {
    console.error(`${signal} received again: quitting without finishing in-flight work.`);
    process.exit(1);
  }
  console.log(`${signal} received: finishing in-flight work (at most 10 s; a second signal after ${DUPLICATE_WINDOW_MS / 1000} s quits at once)...`);
  runtime.stop().then(
    () => {
      console.log('Cartwheel stopped.');
      process.exit(0);
    },
    (error) => {
      console.error('Shutdown failed', error);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
