/**
 * The cloud adapter of the email port (shared/platform/ports.ts): SES. The local adapter is
 * the outbox directory (infra/local/outbox.ts). Callers never know which one runs.
 */
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { traced } from '../../core/tracing';
import { newId } from '../../core/ids';
import type { EmailMessage, EmailPort } from '../ports';
import { onFirstUse } from './on-first-use';

const sdk = onFirstUse(() => import('@aws-sdk/client-sesv2'));

export type { EmailMessage } from '../ports';

/** A message as the local outbox keeps it (listed at `/_local/outbox`). */
export interface OutboxEntry {
  message_id: string;
  date: string;
  to: string;
  from: string;
  subject: string;
  kind: string;
  order_id?: string;
}

/**
 * Sending through SES; the client (and its package) is made on first use. SES has no de-duplication key: a
 * message's `dedupKey` travels as a tag only, and exactly-once rests on the sender's claim
 * (shared/work), which leaves the window between SES accepting and the claim's record.
 */
export function sesEmail(options: { from: string; region: string }): EmailPort {
  let ses: SESv2Client | undefined;
  return {
    async send(message: EmailMessage) {
      const { SESv2Client, SendEmailCommand } = await sdk();
      ses ??= traced(new SESv2Client({ region: options.region }));
      const result = await ses.send(
        new SendEmailCommand({
          FromEmailAddress: message.from ?? options.from,
          Destination: { ToAddresses: [message.to] },
          Content: {
            Simple: {
              Subject: { Data: message.subject, Charset: 'UTF-8' },
              Body: {
                ...(message.html !== undefined ? { Html: { Data: message.html, Charset: 'UTF-8' } } : {}),
                Text: { Data: message.text, Charset: 'UTF-8' },
              },
              ...(message.headers ? { Headers: Object.entries(message.headers).map(([Name, Value]) => ({ Name, Value })) } : {}),
            },
          },
          EmailTags: [{ Name: 'kind', Value: message.kind }],
        }),
      );
      return result.MessageId ?? newId();
    },
  };
}
