import type { Kysely } from 'kysely';
import { createTransport } from 'nodemailer';
import { findOrganization } from '../organizations/organizations.repository.js';
import type { AddressDigests } from '../platform/address-digest.js';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/db/schema.js';
import {
  SendError,
  type ChannelAdapter,
  type OutboundMessage,
  type SendOutcome,
} from '../providers/channel-adapter.js';
import { issueUnsubscribeToken, unsubscribeKey, unsubscribeUrl } from './unsubscribe-token.js';
import { outboundEmailSubject } from '../events/payloads.js';

/** The domain of the From address, for Message-IDs (`Parley <no-reply@example.com>` -> example.com). */
function fromDomain(from: string): string {
  return /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
}

/** Failures of the connection that come before the server could have read a message. */
const NEVER_REACHED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * What an SMTP failure says of the message. A reply from the server (4xx,
 * 5xx) is an answer: 5xx refused for good, 4xx not taken. Failing to connect,
 * to log in or to start TLS comes before any message. A connection cut or
 * timed out later may come after the server took the message while its reply
 * was lost: unknown, and SMTP cannot be asked afterwards.
 */
function smtpOutcome(err: Error & { code?: string; originalCode?: string; responseCode?: number }): SendOutcome {
  if (
    err.code === 'EAUTH' ||
    err.code === 'ETLS' ||
    err.code === 'EDNS' ||
    NEVER_REACHED.has(err.originalCode ?? err.code ?? '')
  )
    return 'not_sent';
  if (typeof err.responseCode === 'number') return err.responseCode >= 500 ? 'refused' : 'not_sent';
  if (err.code === 'EENVELOPE' || err.code === 'EMESSAGE') return 'refused';
  return 'unknown';
}

export function emailBody(text: string, link: string): string {
  return `${text}\n\n--\nTo stop receiving these emails, unsubscribe here: ${link}\n`;
}

/**
 * Email over SMTP (SMTP_URL), one pooled transport per configuration. Every
 * message carries RFC 8058 one-click unsubscribe: `List-Unsubscribe` with a
 * signed link under PARLEY_PUBLIC_URL, `List-Unsubscribe-Post:
 * List-Unsubscribe=One-Click` (what Gmail and Yahoo require of bulk senders),
 * and the same link in a plain-text footer for readers whose client shows no
 * button. An SMTP failure throws, so the send job retries it.
 */
export function createEmailAdapter(
  config: Config & { smtpUrl: string },
  db: Kysely<Database>,
  digests: AddressDigests,
): ChannelAdapter {
  // A send must end well inside the job's lease, or a second worker would claim the job
  // and send the message again while the first is still talking to a slow server.
  const deadlineMs = Math.min(60_000, Math.floor(config.leaseMs / 2));
  const transport = createTransport({
    pool: true,
    url: config.smtpUrl,
    maxConnections: 5,
    connectionTimeout: Math.min(10_000, deadlineMs),
    greetingTimeout: Math.min(10_000, deadlineMs),
    socketTimeout: deadlineMs,
    idleTimeout: 30_000,
  });
  const domain = fromDomain(config.emailFrom);

  return {
    name: 'smtp',
    // SMTP has no way to ask a server what it took: an email whose answer was lost is left for an operator.
    inDoubt: 'operator',
    async send(m: OutboundMessage) {
      let link: string;
      let organization;
      try {
        const key = await unsubscribeKey({ config, db });
        // Bound to the address it is sent to: a click unsubscribes that address, whoever holds it later.
        const token = issueUnsubscribeToken(key, {
          organizationId: m.organizationId,
          leadId: m.leadId,
          channel: 'email',
          issuedAt: new Date(),
          addressDigest: digests.keyed(m.to),
        });
        link = unsubscribeUrl(config.publicUrl, token);
        organization = await findOrganization(db, m.organizationId);
      } catch (err) {
        throw new SendError((err as Error).message, 'not_sent');
      }
      const info = await transport
        .sendMail({
          from: config.emailFrom,
          to: m.to,
          subject: outboundEmailSubject(organization?.name),
          text: emailBody(m.text, link),
          textEncoding: 'quoted-printable',
          // Stable across retries: a copy sent twice (accepted, but the answer lost) is recognisable as one.
          messageId: `<${m.messageId}@${domain}>`,
          headers: {
            'List-Unsubscribe': `<${link}>`,
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          },
          signal: AbortSignal.timeout(deadlineMs),
        })
        .catch((err: Error & { responseCode?: number }) => {
          // A reply code is the server's answer: 5xx a hard bounce, 4xx a soft one (deliverability/error-codes.ts).
          const code =
            typeof err.responseCode === 'number'
              ? { provider: 'smtp' as const, code: String(err.responseCode) }
              : undefined;
          throw new SendError(err.message, smtpOutcome(err), code);
        });
      return { providerMessageId: info.messageId };
    },
  };
}
