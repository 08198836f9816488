import type { Kysely } from 'kysely';
import { createTransport } from 'nodemailer';
import { findOrganization } from '../organizations/organizations.repository.js';
import type { AddressDigests } from '../platform/address-digest.js';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/db/schema.js';
import type { ChannelAdapter, OutboundMessage } from './channel.js';
import { issueUnsubscribeToken, unsubscribeKey, unsubscribeUrl } from './unsubscribe-token.js';
import { outboundEmailSubject } from '../events/payloads.js';

/** The domain of the From address, for Message-IDs (`Parley <no-reply@example.com>` -> example.com). */
function fromDomain(from: string): string {
  return /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
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
export function createEmailAdapter(config: Config & { smtpUrl: string }, db: Kysely<Database>, digests: AddressDigests): ChannelAdapter {
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
    async send(m: OutboundMessage) {
      const key = await unsubscribeKey({ config, db });
      // Bound to the address it is sent to: a click unsubscribes that address, whoever holds it later.
      const token = issueUnsubscribeToken(key, { organizationId: m.organizationId, leadId: m.leadId, channel: 'email', issuedAt: new Date(), addressDigest: digests.keyed(m.to) });
      const link = unsubscribeUrl(config.publicUrl, token);
      const organization = await findOrganization(db, m.organizationId);
      const info = await transport.sendMail({
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
      });
      return { providerMessageId: info.messageId };
    },
  };
}
