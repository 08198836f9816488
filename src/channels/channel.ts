import type { ChannelName } from '../subscriptions/channels.js';

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
 * A provider adapter. Adapters are only ever called from channels/outbound.ts,
 * after the compliance gate has said yes.
 */
export interface ChannelAdapter {
  readonly name: string;
  send(message: OutboundMessage): Promise<SendReceipt>;
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
    send: async (m) => {
      const fields = { channel: m.channel, to: m.to, leadId: m.leadId, messageId: m.messageId, adapter: 'log' };
      log.info(fields, `${m.channel} handed to the log adapter (no provider configured: nothing left this machine)`);
      log.debug({ ...fields, characters: m.text.length }, 'log adapter: message length');
      return { providerMessageId: `log-${m.messageId}` };
    },
  };
}
