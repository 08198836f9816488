/** The shapes the console reads, as the API documents them (src/*\/*.schemas.ts). */

export type Role = 'admin' | 'agent' | 'viewer';
export type Channel = 'sms' | 'voice' | 'email';
export const CHANNELS: Channel[] = ['sms', 'voice', 'email'];

export interface User {
  id: string;
  email: string;
  role: Role;
  organizationId: string;
  organizationName: string;
}

export interface SessionReply {
  user: User;
  csrfToken: string;
}

export interface Tag {
  id: string;
  name: string;
  condition: string;
}

export interface LastMessage {
  text: string;
  direction: 'inbound' | 'outbound';
  channel: Channel;
  at: string;
  isAiGenerated?: boolean;
  /** compliance and stop_confirmation: written by Parley itself, not by the agent or a person. */
  purpose?: 'conversation' | 'compliance' | 'stop_confirmation';
  /** The message's state: a blocked or failed one never reached the lead. */
  status?: string;
  /** An email's subject line, apart from `text` (GET /console/api/inbox); null otherwise. */
  subject?: string | null;
}

export interface Lead {
  id: string;
  firstName: string;
  lastName: string;
  phone: string | null;
  email: string | null;
  customerProfile: string;
  additionalInfo: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  lastActivityAt: string | null;
  lastMessage?: LastMessage | null;
  needsAttention?: boolean;
  hasReplied: boolean;
  isHot: boolean;
  isQualified: boolean;
  isUnsubscribed: boolean;
  isAiOn: boolean;
  isDoNotContact: boolean;
  tags: Tag[];
  summary: string | null;
  timeZone: string | null;
  externalLeadId: string | null;
  subscriptions: Record<Channel, 'subscribed' | 'unsubscribed' | 'unavailable'>;
  /** The owning user's id (hand-offs); null: nobody. */
  owner?: string | null;
}

export interface Message {
  id: string;
  content: { text: string };
  createdAt: string;
  owner: 'user' | 'lead';
  isAiGenerated: boolean;
  channel: Channel;
  direction: 'outbound' | 'inbound';
  status: string;
  statusReason: string | null;
  statusCode: string | null;
  scheduledTime: string | null;
  /** An email's subject line, apart from `content.text` (GET /console/api/leads/{id}/messages); null otherwise. */
  subject?: string | null;
  /** compliance and stop_confirmation: written by Parley itself (an opt-out's confirmation), not the team. */
  purpose?: 'conversation' | 'compliance' | 'stop_confirmation';
}

export interface ConsentRecord {
  id: string;
  channel: string;
  action: 'optOut' | 'optIn';
  source: string;
  reason: string | null;
  actor: string | null;
  /** The key's prefix and name, or the user's email, when the actor is one. */
  actorLabel?: string | null;
  createdAt: string;
}

export interface Profile {
  id: string;
  name: string;
  description: string | null;
  instructions: string | null;
  openingMessage: string | null;
  questions: string[];
  /** A/B variants of the opening (docs/analytics.md). */
  openingVariants?: { name: string; text: string; weight: number }[];
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string | null;
  events: string[] | null;
  enabled: boolean;
  disabledReason: string | null;
}

export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

export interface Settings {
  smsVoiceOptOutCoupled: boolean;
  timeZone: string;
  contactHours: { start: string; end: string };
  contactDays: string[];
  holidays: string[];
  regionalRules: boolean;
  optOutKeywords: string[];
  optInKeywords: string[];
  helpText: string;
}

export interface ApiKey {
  prefix: string;
  name?: string | null;
  scopes?: string[];
  createdAt?: string;
  revokedAt?: string | null;
  lastUsedAt?: string | null;
}

export interface ConsoleUser {
  id: string;
  email: string;
  role: Role;
  createdAt?: string;
}

export interface LeadNote {
  id: string;
  kind: 'context' | 'command';
  text: string;
  createdAt: string;
  consumedAt: string | null;
}

/** A hand-off of a lead to a person (GET /v1/handoffs). */
export interface Handoff {
  id: string;
  leadId: string;
  leadName?: string;
  ownerId: string | null;
  raisedAt: string;
  reason: string | null;
  status: 'open' | 'acknowledged' | 'closed';
  acknowledgedAt: string | null;
  firstTouchAt: string | null;
  secondsToFirstTouch: number | null;
  escalationLevel: number;
}

export interface HandoffStats {
  count: number;
  touched: number;
  p50Seconds: number | null;
  p90Seconds: number | null;
}
