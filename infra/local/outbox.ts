/**
 * The local adapter of the email port: an outbox directory (local-runtime.md `/_local/outbox`)
 * where each message is kept as one file, `<message id>.json`: its metadata, and its HTML,
 * text and raw MIME under `bodies` (`readOutboxBody`). Earlier versions wrote the three bodies
 * as files of their own next to the metadata; those are still read. One file instead of four
 * (issue 12): creating a file cost this machine's file system about 0.6 ms of a thread-pool
 * thread, and a confirmation email is sent for every checkout.
 *
 * De-duplication: a message with a `dedupKey` first claims `dedup/<sha256 of key>` (created
 * exclusively, holding the message id it will have), then writes the message under that id.
 * A second send with the key finds the claim and answers the same id; if the first sender died
 * half-way, the second finishes writing the same message. So a key is sent exactly once, at
 * any crash point.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OutboxEntry } from '../../shared/platform/adapters/ses-email';
import { newId } from '../../shared/core/ids';
import { inParallel } from '../../shared/core/parallel';
import type { Clock, EmailMessage, EmailPort } from '../../shared/platform/ports';

/** The bodies an outbox message keeps, by the extension `/_local/outbox/<id>.<ext>` serves. */
export type OutboxBodies = { html?: string; txt: string; eml: string };

/** What `<message id>.json` holds: the metadata, and (since issue 12) the bodies. */
export type OutboxFile = OutboxEntry & { bodies?: OutboxBodies };

/** The outbox adapter writing into `dir`, dating messages by `clock`. */
export function outboxEmail(options: { dir: string; from: string; clock: Clock }): EmailPort {
  const { dir, clock } = options;
  return {
    async send(message: EmailMessage) {
      await mkdir(join(dir, 'dedup'), { recursive: true });
      const fresh = `${new Date(clock.nowMs()).toISOString().replace(/[-:.TZ]/g, '')}-${newId()}`;
      let messageId = fresh;
      if (message.dedupKey) {
        const claim = join(dir, 'dedup', createHash('sha256').update(message.dedupKey).digest('hex'));
        try {
          await writeFile(claim, fresh, { flag: 'wx' });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
          messageId = (await readFile(claim, 'utf8')).trim() || fresh;
          if (existsSync(join(dir, `${messageId}.json`))) return messageId;
        }
      }
      await writeMessage(dir, messageId, clock, { ...message, from: message.from ?? options.from });
      return messageId;
    },
  };
}

/** Writes one message's file: under a temporary name first and renamed in, so a listed message is complete. */
async function writeMessage(dir: string, messageId: string, clock: Clock, message: EmailMessage & { from: string }): Promise<void> {
  const entry: OutboxEntry = {
    message_id: messageId,
    date: new Date(clock.nowMs()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    to: message.to,
    from: message.from,
    subject: message.subject,
    kind: message.kind,
    ...(message.orderId ? { order_id: message.orderId } : {}),
  };
  const bodies: OutboxBodies = { ...(message.html !== undefined ? { html: message.html } : {}), txt: message.text, eml: toMime(entry, message) };
  const file: OutboxFile = { ...entry, bodies };
  await writeFile(join(dir, `${messageId}.json.tmp`), JSON.stringify(file));
  await rename(join(dir, `${messageId}.json.tmp`), join(dir, `${messageId}.json`));
}

/** The metadata of a message file (without its bodies). */
export function outboxEntry(file: OutboxFile): OutboxEntry {
  const { bodies: _bodies, ...entry } = file;
  return entry;
}

/**
 * One body of message `id` (`html`, `txt` or `eml`), or undefined when there is no such message
 * or body. A message an earlier version wrote keeps its bodies in files of their own.
 */
export async function readOutboxBody(dir: string, id: string, extension: keyof OutboxBodies): Promise<string | undefined> {
  let file: OutboxFile;
  try {
    file = await readMessageFile(dir, id);
  } catch {
    return undefined;
  }
  if (file.bodies) return file.bodies[extension];
  try {
    return await readFile(join(dir, `${id}.${extension}`), 'utf8');
  } catch {
    return undefined;
  }
}

/** Message files `listOutbox` reads at once. */
const OUTBOX_READS_AT_ONCE = 16;

/** What the outbox page shows of a message beside its metadata (./outbox-page.ts). */
export interface OutboxSummary {
  entry: OutboxEntry;
  /** The text body (empty for a message an earlier version wrote, whose bodies are files of their own). */
  text: string;
  /** Whether the message has an HTML body to render. */
  hasHtml: boolean;
}

/** Every message's metadata, newest first. */
export async function listOutbox(dir: string): Promise<OutboxEntry[]> {
  return (await listOutboxSummaries(dir)).map((summary) => summary.entry);
}

/** Every message's metadata, text and whether it has HTML, newest first (one read per message). */
export async function listOutboxSummaries(dir: string): Promise<OutboxSummary[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const ids = names.filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -5)).sort().reverse();
  // A few files at a time: all at once opened one descriptor per message, and an outbox of
  // 20,000 messages (a soak's 10,000 checkouts) ran the process out of them (EMFILE), failing
  // the page and any file the runtime opened meanwhile.
  const summaries = new Array<OutboxSummary>(ids.length);
  await inParallel(ids, OUTBOX_READS_AT_ONCE, async (id, index) => {
    const file = await readMessageFile(dir, id);
    summaries[index] = { entry: outboxEntry(file), text: file.bodies?.txt ?? '', hasHtml: file.bodies ? file.bodies.html !== undefined : true };
  });
  return summaries;
}

/** Message `id`'s file, parsed. */
async function readMessageFile(dir: string, id: string): Promise<OutboxFile> {
  return JSON.parse(await readFile(join(dir, `${id}.json`), 'utf8')) as OutboxFile;
}

/** A raw multipart/alternative MIME message (what SES would put on the wire). */
export function toMime(entry: OutboxEntry, message: EmailMessage): string {
  const boundary = `cw-${randomBytes(12).toString('hex')}`;
  const encodeHeader = (value: string) =>
    /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=`;
  const base64Lines = (value: string) => Buffer.from(value, 'utf8').toString('base64').replace(/.{76}/g, '$&\r\n');
  return [
    `From: ${entry.from}`,
    `To: ${entry.to}`,
    `Subject: ${encodeHeader(entry.subject)}`,
    `Date: ${new Date(entry.date).toUTCString()}`,
    `Message-ID: <${entry.message_id}@cartwheel.localhost>`,
    ...Object.entries(message.headers ?? {}).map(([name, value]) => `${name}: ${encodeHeader(value)}`),
    'MIME-Version: 1.0',
    ...(message.html === undefined
      ? ['Content-Type: text/plain; charset=UTF-8', 'Content-Transfer-Encoding: base64', '', base64Lines(message.text), '']
      : [
          `Content-Type: multipart/alternative; boundary="${boundary}"`,
          '',
          `--${boundary}`,
          'Content-Type: text/plain; charset=UTF-8',
          'Content-Transfer-Encoding: base64',
          '',
          base64Lines(message.text),
          `--${boundary}`,
          'Content-Type: text/html; charset=UTF-8',
          'Content-Transfer-Encoding: base64',
          '',
          base64Lines(message.html),
          `--${boundary}--`,
          '',
        ]),
  ].join('\r\n');
}
