/**
 * Password checks at the contract's parameters (auth.md 9.3: scrypt N=2^15, r=8, p=3), on one
 * core. Prints:
 *   - p50 / p95 of one `verifyPassword` at the current parameters (must stay under 250 ms on one
 *     core), as wall time and as CPU time (what it takes of one core on a machine busy with other
 *     work, where wall time also holds the wait for a core), and for comparison at the earlier p=1;
 *   - p50 / p95 of a sign-in answer over HTTP on the local runtime for an unknown login name and
 *     for a known one with a wrong password, and their ratio (near 1: the dummy hash check makes
 *     unknown names cost what a real check costs, auth.md 5.3). Attempts alternate so load
 *     drifts hit both alike; the per-IP limit and lockout are lifted for the run.
 *
 *   npm run bench:passwords [-- --checks 40 --attempts 40]
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { hashPassword, PASSWORD_HASH, verifyPassword } from '../shared/modules/identity/passwords';
import { startRuntime } from '../test/support/runtime-process';
import { signInThroughForm } from '../test/support/sign-in';
import { api } from '../test/support/runtime-process';

const { values } = parseArgs({ options: { checks: { type: 'string', default: '40' }, attempts: { type: 'string', default: '40' } } });
const checks = Number(values.checks);
const attempts = Number(values.attempts);

const percentile = (samples: number[], p: number) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(samples.length * p))] ?? 0;
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/** The CPU time (all threads of this process, so the libuv thread the KDF runs on too) one run costs: what it needs of one core, whatever else the machine is doing. */
async function cpuTimed(run: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

// 1. The KDF itself, one check at a time (one core).
const password = 'a long enough passphrase';
const current = await hashPassword(password);
const earlier = current.replace(`scrypt$${PASSWORD_HASH.logN}$${PASSWORD_HASH.r}$${PASSWORD_HASH.p}$`, 'scrypt$15$8$1$');
// The earlier hash's digest differs (other p), but a check costs the same whether it matches or not.
const samples = { current: [] as number[], earlier: [] as number[], currentCpu: [] as number[], earlierCpu: [] as number[] };
await verifyPassword(password, current);
for (let index = 0; index < checks; index++) {
  samples.current.push(await timed(() => verifyPassword(password, current)));
  samples.earlier.push(await timed(() => verifyPassword(password, earlier)));
  samples.currentCpu.push(await cpuTimed(() => verifyPassword(password, current)));
  samples.earlierCpu.push(await cpuTimed(() => verifyPassword(password, earlier)));
}
const figures = (wall: number[], cpu: number[]) =>
  `wall p50 ${ms(percentile(wall, 0.5))}, p95 ${ms(percentile(wall, 0.95))}; CPU time (one core) p50 ${ms(percentile(cpu, 0.5))}, p95 ${ms(percentile(cpu, 0.95))}`;
console.log(`load average ${loadavg().map((value) => value.toFixed(1)).join(' ')} on ${cpus().length} cores`);
console.log(`password check, scrypt N=2^${PASSWORD_HASH.logN} r=${PASSWORD_HASH.r} p=${PASSWORD_HASH.p} (${checks} checks, one at a time): ${figures(samples.current, samples.currentCpu)} (limit 250 ms)`);
console.log(`  for comparison p=1: ${figures(samples.earlier, samples.earlierCpu)}`);

// 2. Unknown login names against wrong passwords, over HTTP.
const runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '1000000/1000000', CARTWHEEL_RATE_PER_IP: '1000000/1000000', CARTWHEEL_CLOCK: 'manual' } });
try {
  const redirect = 'https://admin.example.test/cb';
  await api(`${runtime.bootstrap.api_url}settings/technical`, { method: 'POST', token: runtime.bootstrap.tokens.live_secret, body: { oauth_redirect_uris: [redirect] } });
  const times = { unknown: [] as number[], wrong: [] as number[] };
  const attempt = async (username: string) => {
    const start = performance.now();
    const answer = await signInThroughForm(runtime.bootstrap.signin_url, username, 'wrong password here', { redirect_uri: redirect });
    if (answer.errorCode !== 'invalid_login') throw new Error(`expected invalid_login, got ${answer.status} ${answer.errorCode}`);
    return performance.now() - start;
  };
  await attempt('nobody');
  for (let index = 0; index < attempts; index++) {
    times.unknown.push(await attempt(`nobody-${index}`));
    times.wrong.push(await attempt('owner'));
    // Four failures at most per lockout window: move the manual clock past it.
    if (index % 4 === 3) await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: 16 * 60 } });
  }
  const [unknown50, wrong50] = [percentile(times.unknown, 0.5), percentile(times.wrong, 0.5)];
  console.log(`sign-in answer over HTTP (${attempts} each, form GET + POST): unknown name p50 ${ms(unknown50)} p95 ${ms(percentile(times.unknown, 0.95))}; wrong password p50 ${ms(wrong50)} p95 ${ms(percentile(times.wrong, 0.95))}`);
  console.log(`  ratio unknown / wrong (p50): ${(unknown50 / wrong50).toFixed(3)}`);
} finally {
  await runtime.stop();
}
