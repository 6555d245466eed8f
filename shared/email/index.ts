/**
 * Sending email. A port with two adapters: SES in the cloud, and locally an outbox directory
 * (local-runtime.md: `/_local/outbox`) where each message is kept as metadata, HTML, text and
 * raw MIME. Callers never know which one runs.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { nowMs } from '../clock';
import { config } from '../config';
import { newId } from '../ids';

/** An email to send. */
export interface EmailMessage {
  to: string;
  from?: string;
  subject: string;
  html: string;
  text: string;
  /** What the message is, e.g. `order_confirmation`. */
  kind: string;
  orderId?: string;
}

/** A message as the outbox keeps it. */
export interface OutboxEntry {
  message_id: string;
  date: string;
  to: string;
  from: string;
  subject: string;
  kind: string;
  order_id?: string;
}

let ses: SESv2Client | undefined;

/** Sends an email and returns its message id. */
export async function sendEmail(message: EmailMessage): Promise<string> {
  const settings = config().email;
  const from = message.from ?? settings.from;
  if (settings.kind === 'outbox') return writeToOutbox(settings.dir, { ...message, from });
  ses ??= new SESv2Client({ region: config().region });
  const result = await ses.send(
    new SendEmailCommand({
      FromEmailAddress: from,
      Destination: { ToAddresses: [message.to] },
      Content: {
        Simple: {
          Subject: { Data: message.subject, Charset: 'UTF-8' },
          Body: { Html: { Data: message.html, Charset: 'UTF-8' }, Text: { Data: message.text, Charset: 'UTF-8' } },
        },
      },
      EmailTags: [{ Name: 'kind', Value: message.kind }],
    }),
  );
  return result.MessageId ?? newId();
}

/** Writes a message into the outbox directory; the metadata file is renamed in last, so a listed message is complete. */
async function writeToOutbox(dir: string, message: EmailMessage & { from: string }): Promise<string> {
  const messageId = `${new Date(nowMs()).toISOString().replace(/[-:.TZ]/g, '')}-${newId()}`;
  await mkdir(dir, { recursive: true });
  const entry: OutboxEntry = {
    message_id: messageId,
    date: new Date(nowMs()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    to: message.to,
    from: message.from,
    subject: message.subject,
    kind: message.kind,
    ...(message.orderId ? { order_id: message.orderId } : {}),
  };
  await writeFile(join(dir, `${messageId}.html`), message.html);
  await writeFile(join(dir, `${messageId}.txt`), message.text);
  await writeFile(join(dir, `${messageId}.eml`), toMime(entry, message));
  await writeFile(join(dir, `${messageId}.json.tmp`), JSON.stringify(entry));
  await rename(join(dir, `${messageId}.json.tmp`), join(dir, `${messageId}.json`));
  return messageId;
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
    'MIME-Version: 1.0',
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
  ].join('\r\n');
}
