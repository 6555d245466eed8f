/**
 * The local outbox's files (infra/local/outbox.ts): one `<id>.json` per message with its
 * bodies inside, listed without them; messages an earlier version wrote (bodies in files of
 * their own) are still listed and served.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listOutbox, outboxEmail, readOutboxBody } from '../../infra/local/outbox';

const clock = { nowMs: () => Date.parse('2026-11-24T10:00:00Z') };

describe('the local outbox files', () => {
  it('keeps a message as one file, listed without its bodies and served body by body', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cartwheel-outbox-files-'));
    const email = outboxEmail({ dir, from: 'shop@example.test', clock });
    const id = await email.send({ to: 'ada@example.test', subject: 'Your order', html: '<p>Thanks</p>', text: 'Thanks', kind: 'order_confirmation', orderId: 'O1' });
    const textOnly = await email.send({ to: 'bo@example.test', subject: 'Plain', text: 'Just text', kind: 'notice' });

    expect(readdirSync(dir).filter((name) => name !== 'dedup').sort()).toEqual([`${id}.json`, `${textOnly}.json`].sort());
    const listed = await listOutbox(dir);
    expect(listed.find((entry) => entry.message_id === id)).toEqual({
      message_id: id,
      date: '2026-11-24T10:00:00Z',
      to: 'ada@example.test',
      from: 'shop@example.test',
      subject: 'Your order',
      kind: 'order_confirmation',
      order_id: 'O1',
    });
    expect(await readOutboxBody(dir, id, 'html')).toBe('<p>Thanks</p>');
    expect(await readOutboxBody(dir, id, 'txt')).toBe('Thanks');
    expect(await readOutboxBody(dir, id, 'eml')).toContain('Subject: Your order');
    // No HTML body, no such message: nothing to serve.
    expect(await readOutboxBody(dir, textOnly, 'html')).toBeUndefined();
    expect(await readOutboxBody(dir, 'NOPE', 'txt')).toBeUndefined();
  });

  it('still lists and serves a message an earlier version wrote as four files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cartwheel-outbox-files-'));
    const entry = { message_id: '20261101000000-OLD', date: '2026-11-01T00:00:00Z', to: 'a@example.test', from: 'shop@example.test', subject: 'Old', kind: 'notice' };
    writeFileSync(join(dir, `${entry.message_id}.json`), JSON.stringify(entry));
    writeFileSync(join(dir, `${entry.message_id}.txt`), 'old text');
    writeFileSync(join(dir, `${entry.message_id}.eml`), 'Subject: Old');
    expect(await listOutbox(dir)).toEqual([entry]);
    expect(await readOutboxBody(dir, entry.message_id, 'txt')).toBe('old text');
    expect(await readOutboxBody(dir, entry.message_id, 'eml')).toBe('Subject: Old');
    expect(await readOutboxBody(dir, entry.message_id, 'html')).toBeUndefined();
  });

  it('lists an outbox of more messages than the process may open files, newest first', () => {
    // All files at once ran a soak's outbox (20,000 messages) out of descriptors (EMFILE).
    const dir = mkdtempSync(join(tmpdir(), 'cartwheel-outbox-many-'));
    const count = 600;
    for (let index = 0; index < count; index++) {
      const id = `20261124${String(index).padStart(6, '0')}-M`;
      writeFileSync(join(dir, `${id}.json`), JSON.stringify({ message_id: id, date: '2026-11-24T00:00:00Z', to: 'a@example.test', from: 'shop@example.test', subject: `Order ${index}`, kind: 'order_confirmation', bodies: { txt: 'x', eml: 'y' } }));
    }
    const root = resolve(import.meta.dirname, '../..');
    const script = `const { listOutbox } = await import(${JSON.stringify(join(root, 'infra/local/outbox.ts'))}); const listed = await listOutbox(${JSON.stringify(dir)}); console.log(JSON.stringify([listed.length, listed[0].message_id, listed.at(-1).message_id]));`;
    // A shell sets a limit of 200 open files for the listing process (Node and tsx use some).
    const output = execFileSync('sh', ['-c', `ulimit -n 200 && exec "$0" --import tsx --input-type=module -e "$1"`, process.execPath, script], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual([count, '20261124000599-M', '20261124000000-M']);
  });
});
