/**
 * The local adapter of the email port: an outbox directory (local-runtime.md `/_local/outbox`)
 * where each message is kept as metadata, HTML, text and raw MIME.
 *
 * De-duplication: a message with a `dedupKey` first claims `dedup/<sha256 of key>` (created
 * exclusively, holding the message id it will have), then writes the message under that id.
 * A second send with the key finds the claim and answers the same id; if the first sender died
 * half-way, the second finishes writing the same message. So a key is sent exactly once, at
 * any crash point.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OutboxEntry } from '../../shared/email';
import { newId } from '../../shared/ids';
import type { Clock, EmailMessage, EmailPort } from '../../shared/platform/ports';

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

/** Writes the files of one message; the metadata file is renamed in last, so a listed message is complete. */
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
  if (message.html !== undefined) await writeFile(join(dir, `${messageId}.html`), message.html);
  await writeFile(join(dir, `${messageId}.txt`), message.text);
  await writeFile(join(dir, `${messageId}.eml`), toMime(entry, message));
  await writeFile(join(dir, `${messageId}.json.tmp`), JSON.stringify(entry));
  await rename(join(dir, `${messageId}.json.tmp`), join(dir, `${messageId}.json`));
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
