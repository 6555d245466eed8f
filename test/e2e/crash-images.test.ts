/**
 * Image uploads survive `kill -9` (commerce.md §2.2, the upload's crash story). Two clients
 * upload images, each with its own Idempotency-Key, against a runtime with the manual clock,
 * while the test kills it with SIGKILL twice at random moments and restarts it on the same data
 * directory; a client retries an upload whose connection failed with the same key and bytes
 * (and waits out `in_progress` while the dead attempt's key is held). Then:
 *   - every key got one image (all its 201 answers name the same image_id), and the list holds
 *     exactly those images: no double record;
 *   - every listed image has its five files;
 *   - after the clock moved two hours, the sweep has removed every file no listed image owns
 *     (uploads cut off between their files and their record), so nothing is left behind.
 */
import { expect, it } from 'vitest';
import { jpeg } from '../modules/images/fixtures';
import { storedObjectKeys } from '../support/stored-objects';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

const CLIENTS = 2;
const UPLOADS_PER_CLIENT = 5;
const KILLS = 2;
const SETTLE_MS = 20_000;

const env = { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const randomBetween = (low: number, high: number) => low + Math.floor(Math.random() * (high - low));

/** The image files in the local apps bucket, as keys (`images/<sha256>/<image_id>/<size>.<ext>`). */
const storedKeys = (dataDir: string) => storedObjectKeys(dataDir, 'apps', 'images');

it('leaves one image per key, each with its files, and no stray file, across kill -9 restarts', async () => {
  let runtime: RuntimeProcess = await startRuntime({ env });
  const { api_url: base, tokens } = runtime.bootstrap;
  const token = tokens.test_secret;
  const origin = runtime.url;
  try {
    const answers = new Map<string, string[]>();
    const counts = { connectionRetries: 0, inProgress: 0, kills: 0 };
    const unexpected: string[] = [];

    /** Uploads until the key has a definitive answer, retrying lost connections and in-progress keys. */
    const uploadWithKey = async (key: string, data: Buffer) => {
      for (;;) {
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(data)], { type: 'image/jpeg' }), `${key}.jpg`);
        let response: Response;
        try {
          response = await fetch(`${base}images`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Idempotency-Key': key }, body: form });
        } catch {
          counts.connectionRetries++;
          await pause(50);
          continue;
        }
        const body = (await response.json().catch(() => undefined)) as any;
        if (response.status === 201) return answers.set(key, [...(answers.get(key) ?? []), body.image_id]);
        if (response.status === 409 && body?.error?.meta?.reason === 'in_progress') {
          // The killed attempt holds the key until its time budget runs out.
          counts.inProgress++;
          await pause(250);
          continue;
        }
        if (response.status === 503) {
          await pause(50);
          continue;
        }
        unexpected.push(`${key} → ${response.status} ${JSON.stringify(body)}`);
        return;
      }
    };

    const client = async (n: number) => {
      for (let i = 0; i < UPLOADS_PER_CLIENT; i++) {
        const key = `client-${n}-upload-${i}`;
        const data = await jpeg(1600 + n * 10 + i, 1200);
        await uploadWithKey(key, data);
        // The answer may have been lost with a kill: asking again must name the same image.
        if (i % 2 === 0) await uploadWithKey(key, data);
      }
    };

    const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));
    for (let kill = 0; kill < KILLS; kill++) {
      await pause(randomBetween(300, 1500));
      await runtime.kill9();
      counts.kills++;
      runtime = await runtime.restart();
    }
    await Promise.all(clients);

    const listed = (await api(`${base}images?limit=100`, { token })).body.data as Array<{ image_id: string; link: string }>;
    const listedIds = new Set(listed.map((image) => image.image_id));
    const violations: string[] = [...unexpected.map((answer) => `unexpected answer: ${answer}`)];
    for (const [key, ids] of answers) if (new Set(ids).size !== 1) violations.push(`key ${key} was answered with images ${ids.join(', ')}`);
    const answered = new Set([...answers.values()].map((ids) => ids[0]!));
    if (answered.size !== CLIENTS * UPLOADS_PER_CLIENT) violations.push(`${answered.size} keys answered of ${CLIENTS * UPLOADS_PER_CLIENT}`);
    for (const id of listedIds) if (!answered.has(id)) violations.push(`image ${id} is listed but no key was answered with it (a double record)`);
    for (const id of answered) if (!listedIds.has(id)) violations.push(`image ${id} was answered but is not listed`);
    for (const image of listed) {
      const owned = storedKeys(runtime.dataDir).filter((key) => key.split('/')[2] === image.image_id);
      if (owned.length !== 5) violations.push(`image ${image.image_id} has ${owned.length} files`);
    }
    expect(violations).toEqual([]);

    // Files of uploads cut off before their record: swept an hour later.
    const stray = () => storedKeys(runtime.dataDir).filter((key) => !listedIds.has(key.split('/')[2]!));
    const strayBefore = stray().length;
    const moved = await api(`${origin}/_local/clock`, { method: 'POST', body: { advance_seconds: 7200 } });
    expect(moved.status, moved.text).toBe(200);
    const settleBy = Date.now() + SETTLE_MS;
    while (stray().length && Date.now() < settleBy) await pause(250);
    console.log(
      `crash images: ${counts.kills} kills, ${answers.size} keys, ${listed.length} images listed; ${counts.connectionRetries} uploads retried after a lost connection, ` +
        `${counts.inProgress} waits on an in-progress key; ${strayBefore} stray files before the sweep, ${stray().length} after`,
    );
    expect(stray()).toEqual([]);
    expect((await api(`${base}images?limit=100`, { token })).body.total_items).toBe(listed.length);
  } finally {
    await runtime.stop();
  }
}, 150_000);
