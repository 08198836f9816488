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

/** Zero-setup default: records the send as delivered, so whole conversations run on one machine. */
export const logAdapter: ChannelAdapter = {
  name: 'log',
  send: async (m) => ({ providerMessageId: `log-${m.messageId}` }),
};
