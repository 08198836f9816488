import type { ProviderError } from '../deliverability/error-codes.js';
import type { ChannelName } from '../lead-records/channels.js';

export interface OutboundMessage {
  organizationId: string;
  messageId: string;
  /** The recipient lead (email signs its unsubscribe link with it). */
  leadId: string;
  channel: ChannelName;
  to: string;
  /** The organization's sending number (settings `sendingNumber`) for sms and voice; null when it has none. */
  from: string | null;
  text: string;
}

export interface SendReceipt {
  providerMessageId: string | null;
}

/**
 * What a failed send tells of its outcome. `refused`: the provider said no for
 * good (an invalid number, a rejected recipient): never retried. `not_sent`:
 * it never took the message (unreachable, rate-limited, a transient refusal):
 * retried. `unknown`: the answer was lost (a timeout, a cut connection, a
 * server error): the send is reconciled with the provider before any retry.
 * Any other error thrown by an adapter counts as `unknown`.
 */
export type SendOutcome = 'refused' | 'not_sent' | 'unknown';

export class SendError extends Error {
  /** The provider's own error code, when it gave one (Twilio's `code`, an SMTP reply code): deliverability/error-codes.ts classifies it. */
  constructor(
    message: string,
    readonly outcome: SendOutcome,
    readonly providerError?: ProviderError,
  ) {
    super(message);
  }
}

/** A send the provider holds: its id, and its status in our words (sent, delivered, undelivered, failed). */
export interface FoundSend {
  providerMessageId: string;
  status: string;
}

/**
 * How a send whose outcome is unknown is settled: `resend` (nothing left the
 * machine: the log adapter), `ask` (`find` asks the provider), `operator` (the
 * provider cannot be asked: the message is left in doubt for a person).
 */
export type DoubtPolicy = 'resend' | 'ask' | 'operator';

/**
 * A provider adapter. Adapters are only ever called from channels/outbound.ts,
 * after the compliance gate has said yes.
 */
export interface ChannelAdapter {
  readonly name: string;
  readonly inDoubt: DoubtPolicy;
  send(message: OutboundMessage): Promise<SendReceipt>;
  /**
   * For `ask`: the sends of this text the provider accepted from `from` to
   * `message.to` since `since`; none means the attempt never reached it
   * (sending again is safe). Throws when the provider cannot be asked.
   */
  find?(message: OutboundMessage, since: Date): Promise<FoundSend[]>;
}

/** What the log adapter needs of the process's logger. */
export interface SendLog {
  info(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

/**
 * Zero-setup default: records the send as delivered, so whole conversations
 * run on one machine, and says so in the log, one line per send (channel,
 * recipient, lead, message id; the address is masked by the logger, the text
 * never logged), so a first send can be seen to happen.
 */
export function logAdapter(log: SendLog): ChannelAdapter {
  return {
    name: 'log',
    inDoubt: 'resend',
    send: async (m) => {
      const fields = { channel: m.channel, to: m.to, leadId: m.leadId, messageId: m.messageId, adapter: 'log' };
      log.info(fields, `${m.channel} handed to the log adapter (no provider configured: nothing left this machine)`);
      log.debug({ ...fields, characters: m.text.length }, 'log adapter: message length');
      return { providerMessageId: `log-${m.messageId}` };
    },
  };
}
