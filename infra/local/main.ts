/** `npm start`: runs the embedded default until SIGINT or SIGTERM. */
import { describeBootstrap, optionsFromEnv, startLocalRuntime } from './runtime';

const options = optionsFromEnv(process.env);
const runtime = await startLocalRuntime({ ...options, log: (line) => console.log(line) }).catch((error: Error) => {
  console.error(`Cartwheel failed to start: ${error.message}`);
  process.exit(1);
});
// One write: the listening line and the facts arrive together for tools that wait for the line.
console.log(
  `Cartwheel listening on ${runtime.url}\n${describeBootstrap(runtime.bootstrap, options.clock)}\n  Data:           ${options.dataDir} (bootstrap.json holds these facts)`,
);

let signals = 0;
const shutdown = (signal: string) => {
  if (++signals > 1) process.exit(1);
  console.log(`${signal} received: finishing in-flight work (at most 10 s)...`);
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
